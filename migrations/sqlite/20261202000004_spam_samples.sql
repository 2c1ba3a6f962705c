-- Messages the team labelled in community groups: /spam (reply) adds spam,
-- unbanning from the team chat turns the banned message into ham. The
-- anti-spam model is retrained from them. Keep in step with ../postgres/.
CREATE TABLE spam_samples (
    id                  INTEGER PRIMARY KEY,
    chat_id             INTEGER NOT NULL,
    user_id             INTEGER,
    label               TEXT NOT NULL CHECK (label IN ('spam','ham')),
    text                TEXT NOT NULL,
    added_by            TEXT NOT NULL,
    created_at          INTEGER NOT NULL
);
CREATE INDEX spam_samples_label ON spam_samples(label);
