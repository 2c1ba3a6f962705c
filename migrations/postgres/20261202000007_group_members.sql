-- What the anti-spam engine remembers of each member of a guarded group,
-- across restarts: clean messages toward trust, penalties ever, first
-- message (the weekly moderator shortlist needs two weeks of history).
-- Keep in step with ../sqlite/.
CREATE TABLE group_members (
    chat_id             BIGINT NOT NULL,
    user_id             BIGINT NOT NULL,
    clean               BIGINT NOT NULL,
    strikes_ever        BIGINT NOT NULL,
    first_seen          BIGINT,
    updated_at          BIGINT NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
