-- A/B tests of an agent's prompt versions (prompt_versions), started by the
-- Optimizer: at most one running test per agent. Keep in step with ../sqlite/.
CREATE TABLE ab_tests (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent               TEXT NOT NULL,
    version_a           BIGINT NOT NULL CHECK (version_a >= 1),
    version_b           BIGINT NOT NULL CHECK (version_b >= 1),
    started_by          TEXT NOT NULL,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    started_at          BIGINT NOT NULL,
    stopped_at          BIGINT,
    CHECK (version_a <> version_b)
);
CREATE UNIQUE INDEX ab_tests_one_running ON ab_tests(agent) WHERE stopped_at IS NULL;
