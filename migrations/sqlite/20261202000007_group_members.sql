-- What the anti-spam engine remembers of each member of a guarded group,
-- across restarts: clean messages toward trust, penalties ever, first
-- message (the weekly moderator shortlist needs two weeks of history).
-- Keep in step with ../postgres/.
CREATE TABLE group_members (
    chat_id             INTEGER NOT NULL,
    user_id             INTEGER NOT NULL,
    clean               INTEGER NOT NULL,
    strikes_ever        INTEGER NOT NULL,
    first_seen          INTEGER,
    updated_at          INTEGER NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
