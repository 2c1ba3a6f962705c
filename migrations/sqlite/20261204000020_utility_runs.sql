-- The Builder's utilities: each build-and-test run of a template in the
-- sandbox (its config, how it ended, the tail of its output, which attempt
-- of the utility it was, its folder), and, once approved, where its
-- `dist/` was released (a site sub-page folder, or a bot command like
-- `/quiz`). A utility is an operation's Builder task: after three failed
-- runs it is `skipped`. Keep in step with ../postgres/.
CREATE TABLE utility_runs (
    id                  INTEGER PRIMARY KEY,
    operation_id        INTEGER NOT NULL REFERENCES operations(id),
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    template            TEXT NOT NULL,
    config              TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'skipped')),
    output_tail         TEXT NOT NULL,
    attempt             INTEGER NOT NULL CHECK (attempt >= 1),
    dir                 TEXT,
    released_to         TEXT,
    released_at         INTEGER,
    created_at          INTEGER NOT NULL,
    CHECK ((released_to IS NULL) = (released_at IS NULL)),
    CHECK (released_at IS NULL OR status = 'passed')
);
CREATE INDEX utility_runs_by_template ON utility_runs(operation_id, template, id);
CREATE INDEX utility_runs_by_task ON utility_runs(task_id, id);
