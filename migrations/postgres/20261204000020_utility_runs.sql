-- The Builder's utilities: each build-and-test run of a template in the
-- sandbox (its config, how it ended, the tail of its output, which attempt
-- of the utility it was, its folder), and, once approved, where its
-- `dist/` was released (a site sub-page folder, or a bot command like
-- `/quiz`). A utility is an operation's Builder task: after three failed
-- runs it is `skipped`. Keep in step with ../sqlite/.
CREATE TABLE utility_runs (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id        BIGINT NOT NULL REFERENCES operations(id),
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    template            TEXT NOT NULL,
    config              JSONB NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'skipped')),
    output_tail         TEXT NOT NULL,
    attempt             BIGINT NOT NULL CHECK (attempt >= 1),
    dir                 TEXT,
    released_to         TEXT,
    released_at         BIGINT,
    created_at          BIGINT NOT NULL,
    CHECK ((released_to IS NULL) = (released_at IS NULL)),
    CHECK (released_at IS NULL OR status = 'passed')
);
CREATE INDEX utility_runs_by_template ON utility_runs(operation_id, template, id);
CREATE INDEX utility_runs_by_task ON utility_runs(task_id, id);
