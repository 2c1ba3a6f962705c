-- A/B tests of an agent's prompt versions (prompt_versions), started by the
-- Optimizer: at most one running test per agent. Keep in step with ../postgres/.
CREATE TABLE ab_tests (
    id                  INTEGER PRIMARY KEY,
    agent               TEXT NOT NULL,
    version_a           INTEGER NOT NULL CHECK (version_a >= 1),
    version_b           INTEGER NOT NULL CHECK (version_b >= 1),
    started_by          TEXT NOT NULL,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    started_at          INTEGER NOT NULL,
    stopped_at          INTEGER,
    CHECK (version_a <> version_b)
);
CREATE UNIQUE INDEX ab_tests_one_running ON ab_tests(agent) WHERE stopped_at IS NULL;
