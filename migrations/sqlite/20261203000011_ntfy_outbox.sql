-- ntfy pushes go through an outbox, like publications: a push refused
-- (server down, 429) waits and is tried again with backoff, in order. A
-- decision has at most one push of each kind (its buttons, its outcome).
-- Keep in step with ../postgres/.
CREATE TABLE ntfy_pushes (
    id                  INTEGER PRIMARY KEY,
    kind                TEXT NOT NULL CHECK (kind IN ('alert','decision','outcome')),
    decision_id         INTEGER REFERENCES decisions(id),
    payload             TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','sending','sent','failed','cancelled')),
    attempts            INTEGER NOT NULL DEFAULT 0,
    not_before          INTEGER NOT NULL,
    error               TEXT,
    sending_since       INTEGER,
    sent_at             INTEGER,
    created_at          INTEGER NOT NULL,
    CHECK ((kind = 'alert') = (decision_id IS NULL)),
    CHECK ((status = 'sending') = (sending_since IS NOT NULL)),
    UNIQUE (decision_id, kind)
);
CREATE INDEX ntfy_pushes_open ON ntfy_pushes(status, id);
