-- What the health checks saw, and the incidents that follow from it: a
-- check of a listed service is recorded by the tool that made it (not by
-- what a model reports); a service seen down opens one incident, kept
-- open (never a second one) until a check sees it back up.
-- Keep in step with ../postgres/.
CREATE TABLE service_checks (
    id                  INTEGER PRIMARY KEY,
    service             TEXT NOT NULL,
    task_id             INTEGER REFERENCES tasks(id),
    ok                  INTEGER NOT NULL CHECK (ok IN (0, 1)),
    detail              TEXT NOT NULL,
    checked_at          INTEGER NOT NULL
);
CREATE INDEX service_checks_by_task ON service_checks(task_id);
CREATE INDEX service_checks_by_service ON service_checks(service, id);

CREATE TABLE incidents (
    id                  INTEGER PRIMARY KEY,
    service             TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved')),
    detail              TEXT NOT NULL,
    opened_at           INTEGER NOT NULL,
    resolved_at         INTEGER,
    task_id             INTEGER REFERENCES tasks(id),
    decision_id         INTEGER REFERENCES decisions(id),
    CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
);
CREATE UNIQUE INDEX incidents_one_open_per_service ON incidents(service) WHERE status = 'open';

-- Events of the organisation (an incident opened, a deploy done, an
-- objective done): written where they happen, dispatched once to every
-- agent whose file declares `event:<name>`. A worker claims it
-- (claimed_at), creates the agents' tasks, then marks it dispatched; a
-- claim left by a crash is taken again after five minutes, so an event
-- is dispatched at least once.
CREATE TABLE events (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL,
    payload             TEXT NOT NULL,
    created_at          INTEGER NOT NULL,
    claimed_at          INTEGER,
    dispatched_at       INTEGER
);
CREATE INDEX events_waiting ON events(id) WHERE dispatched_at IS NULL;
