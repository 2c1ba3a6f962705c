-- The CEO's loop: where each objective's answer went, the interpretations
-- the CEO corrected, the organisation's proposals, and one metrics row per
-- finished task (seed 003's success figures). Keep in step with ../postgres/.
ALTER TABLE objectives ADD COLUMN answer_message_id INTEGER;
ALTER TABLE objectives ADD COLUMN answered_at INTEGER;
ALTER TABLE ceo_interactions ADD COLUMN corrected INTEGER NOT NULL DEFAULT 0 CHECK (corrected IN (0, 1));

-- An objective the organisation proposes; the CEO accepts, declines or
-- postpones it (or, for a trusted proposer, it became one on its own).
CREATE TABLE proposals (
    id                  INTEGER PRIMARY KEY,
    proposer            TEXT NOT NULL,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    title               TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    team                TEXT,
    priority            INTEGER NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    rationale           TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','accepted','declined','later','automatic')),
    objective_id        INTEGER REFERENCES objectives(id) ON DELETE SET NULL,
    chat_id             INTEGER,
    message_id          INTEGER,
    remind_at           INTEGER,
    decided_at          INTEGER,
    created_at          INTEGER NOT NULL
);
CREATE INDEX proposals_status ON proposals(status, remind_at);

-- One row per finished task, written once (task_id is the key).
CREATE TABLE task_metrics (
    task_id             INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    objective_id        INTEGER,
    agent               TEXT NOT NULL,
    team                TEXT NOT NULL,
    model               TEXT,
    succeeded           INTEGER NOT NULL CHECK (succeeded IN (0, 1)),
    intervened          INTEGER NOT NULL CHECK (intervened IN (0, 1)),
    escalated           INTEGER NOT NULL CHECK (escalated IN (0, 1)),
    alarm               INTEGER NOT NULL CHECK (alarm IN (0, 1)),
    confidence          REAL,
    tokens              INTEGER NOT NULL,
    duration_ms         INTEGER NOT NULL,
    retries             INTEGER NOT NULL,
    finished_at         INTEGER NOT NULL
);
CREATE INDEX task_metrics_finished ON task_metrics(finished_at);
