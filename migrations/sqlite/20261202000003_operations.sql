-- Playbook operations: a gate step stops its operation on a no-go; an
-- objective can be paused without cancelling it. Keep in step with ../postgres/.
ALTER TABLE tasks ADD COLUMN gate INTEGER NOT NULL DEFAULT 0 CHECK (gate IN (0, 1));
ALTER TABLE objectives ADD COLUMN paused_at INTEGER;
CREATE INDEX tasks_operation ON tasks(operation_id, status);
