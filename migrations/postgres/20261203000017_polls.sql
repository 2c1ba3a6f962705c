-- Community votes: each poll sent (a native Telegram poll, an X poll) with
-- its options and the votes last seen (Telegram `poll` updates, X poll
-- results), and each vote's outcome: the options' totals summed over both
-- platforms, the winner and what decided it (the most votes; on a tie, the
-- most X votes; still tied, the team with buttons — `tied` holds the
-- options it chooses from until then). Keep in step with ../sqlite/.
CREATE TABLE polls (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id        BIGINT REFERENCES operations(id),
    publication_id      BIGINT NOT NULL REFERENCES publications(id),
    platform            TEXT NOT NULL CHECK (platform IN ('telegram', 'x')),
    external_id         TEXT NOT NULL,
    question            TEXT NOT NULL,
    options             JSONB NOT NULL,
    counts              JSONB NOT NULL,
    -- Orders the counts seen: Telegram's update id, or when X was read;
    -- an older state arriving late changes nothing.
    counts_seq          BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    UNIQUE (platform, external_id)
);
CREATE INDEX polls_by_operation ON polls(operation_id);

CREATE TABLE vote_outcomes (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id        BIGINT NOT NULL REFERENCES operations(id),
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    question            TEXT NOT NULL,
    options             JSONB NOT NULL,
    totals              JSONB NOT NULL,
    x_totals            JSONB NOT NULL,
    tied                JSONB,
    winner              BIGINT CHECK (winner >= 0),
    decided_by          TEXT CHECK (decided_by IN ('votes', 'x_votes', 'team')),
    decided_by_user     TEXT,
    announced_at        BIGINT,
    created_at          BIGINT NOT NULL,
    decided_at          BIGINT,
    CHECK ((winner IS NULL) = (decided_by IS NULL)),
    CHECK ((winner IS NULL) = (decided_at IS NULL)),
    CHECK (winner IS NOT NULL OR tied IS NOT NULL)
);
CREATE INDEX vote_outcomes_by_operation ON vote_outcomes(operation_id, id);
