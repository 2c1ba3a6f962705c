-- Community votes: each poll sent (a native Telegram poll, an X poll) with
-- its options and the votes last seen (Telegram `poll` updates, X poll
-- results), and each vote's outcome: the options' totals summed over both
-- platforms, the winner and what decided it (the most votes; on a tie, the
-- most X votes; still tied, the team with buttons — `tied` holds the
-- options it chooses from until then). Keep in step with ../postgres/.
CREATE TABLE polls (
    id                  INTEGER PRIMARY KEY,
    operation_id        INTEGER REFERENCES operations(id),
    publication_id      INTEGER NOT NULL REFERENCES publications(id),
    platform            TEXT NOT NULL CHECK (platform IN ('telegram', 'x')),
    external_id         TEXT NOT NULL,
    question            TEXT NOT NULL,
    options             TEXT NOT NULL,
    counts              TEXT NOT NULL,
    -- Orders the counts seen: Telegram's update id, or when X was read;
    -- an older state arriving late changes nothing.
    counts_seq          INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    UNIQUE (platform, external_id)
);
CREATE INDEX polls_by_operation ON polls(operation_id);

CREATE TABLE vote_outcomes (
    id                  INTEGER PRIMARY KEY,
    operation_id        INTEGER NOT NULL REFERENCES operations(id),
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    question            TEXT NOT NULL,
    options             TEXT NOT NULL,
    totals              TEXT NOT NULL,
    x_totals            TEXT NOT NULL,
    tied                TEXT,
    winner              INTEGER CHECK (winner >= 0),
    decided_by          TEXT CHECK (decided_by IN ('votes', 'x_votes', 'team')),
    decided_by_user     TEXT,
    announced_at        INTEGER,
    created_at          INTEGER NOT NULL,
    decided_at          INTEGER,
    CHECK ((winner IS NULL) = (decided_by IS NULL)),
    CHECK ((winner IS NULL) = (decided_at IS NULL)),
    CHECK (winner IS NOT NULL OR tied IS NOT NULL)
);
CREATE INDEX vote_outcomes_by_operation ON vote_outcomes(operation_id, id);
