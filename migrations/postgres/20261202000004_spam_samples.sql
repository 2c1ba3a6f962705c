-- Messages the team labelled in community groups: /spam (reply) adds spam,
-- unbanning from the team chat turns the banned message into ham. The
-- anti-spam model is retrained from them. Keep in step with ../sqlite/.
CREATE TABLE spam_samples (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id             BIGINT NOT NULL,
    user_id             BIGINT,
    label               TEXT NOT NULL CHECK (label IN ('spam','ham')),
    text                TEXT NOT NULL,
    added_by            TEXT NOT NULL,
    created_at          BIGINT NOT NULL
);
CREATE INDEX spam_samples_label ON spam_samples(label);
