-- Learning from the group: a clean message of a trusted member kept as a
-- ham sample remembers which message it was, so that it is withdrawn if the
-- message is later deleted or reported (/spam). Keep in step with
-- ../postgres/.
ALTER TABLE spam_samples ADD COLUMN message_id INTEGER;
CREATE INDEX spam_samples_learned ON spam_samples(chat_id, user_id, added_by, created_at);
CREATE INDEX spam_samples_message ON spam_samples(chat_id, message_id);
