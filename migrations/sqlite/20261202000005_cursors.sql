-- Where a process stopped reading a stream (the ntfy reply topic's last
-- event id), so it resumes there after a restart.
CREATE TABLE cursors (
    name                TEXT PRIMARY KEY,
    value               TEXT NOT NULL,
    updated_at          INTEGER NOT NULL
);
