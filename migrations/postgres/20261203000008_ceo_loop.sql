-- The CEO's loop: where each objective's answer went, the interpretations
-- the CEO corrected, the organisation's proposals, and one metrics row per
-- finished task (seed 003's success figures). Keep in step with ../postgres/.
ALTER TABLE objectives ADD COLUMN answer_message_id BIGINT;
ALTER TABLE objectives ADD COLUMN answered_at BIGINT;
ALTER TABLE ceo_interactions ADD COLUMN corrected BOOLEAN NOT NULL DEFAULT FALSE;

-- An objective the organisation proposes; the CEO accepts, declines or
-- postpones it (or, for a trusted proposer, it became one on its own).
CREATE TABLE proposals (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    proposer            TEXT NOT NULL,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    title               TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    team                TEXT,
    priority            BIGINT NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    rationale           TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','accepted','declined','later','automatic')),
    objective_id        BIGINT REFERENCES objectives(id) ON DELETE SET NULL,
    chat_id             BIGINT,
    message_id          BIGINT,
    remind_at           BIGINT,
    decided_at          BIGINT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX proposals_status ON proposals(status, remind_at);

-- One row per finished task, written once (task_id is the key).
CREATE TABLE task_metrics (
    task_id             BIGINT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    objective_id        BIGINT,
    agent               TEXT NOT NULL,
    team                TEXT NOT NULL,
    model               TEXT,
    succeeded           BOOLEAN NOT NULL,
    intervened          BOOLEAN NOT NULL,
    escalated           BOOLEAN NOT NULL,
    alarm               BOOLEAN NOT NULL,
    confidence          DOUBLE PRECISION,
    tokens              BIGINT NOT NULL,
    duration_ms         BIGINT NOT NULL,
    retries             BIGINT NOT NULL,
    finished_at         BIGINT NOT NULL
);
CREATE INDEX task_metrics_finished ON task_metrics(finished_at);
