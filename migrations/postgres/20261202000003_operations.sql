-- Playbook operations: a gate step stops its operation on a no-go; an
-- objective can be paused without cancelling it. Keep in step with ../sqlite/.
ALTER TABLE tasks ADD COLUMN gate BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE objectives ADD COLUMN paused_at BIGINT;
CREATE INDEX tasks_operation ON tasks(operation_id, status);
