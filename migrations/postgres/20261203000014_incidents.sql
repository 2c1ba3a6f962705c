-- What the health checks saw, and the incidents that follow from it: a
-- check of a listed service is recorded by the tool that made it (not by
-- what a model reports); a service seen down opens one incident, kept
-- open (never a second one) until a check sees it back up.
-- Keep in step with ../sqlite/.
CREATE TABLE service_checks (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service             TEXT NOT NULL,
    task_id             BIGINT REFERENCES tasks(id),
    ok                  BIGINT NOT NULL CHECK (ok IN (0, 1)),
    detail              TEXT NOT NULL,
    checked_at          BIGINT NOT NULL
);
CREATE INDEX service_checks_by_task ON service_checks(task_id);
CREATE INDEX service_checks_by_service ON service_checks(service, id);

CREATE TABLE incidents (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service             TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved')),
    detail              TEXT NOT NULL,
    opened_at           BIGINT NOT NULL,
    resolved_at         BIGINT,
    task_id             BIGINT REFERENCES tasks(id),
    decision_id         BIGINT REFERENCES decisions(id),
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
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                TEXT NOT NULL,
    payload             JSONB NOT NULL,
    created_at          BIGINT NOT NULL,
    claimed_at          BIGINT,
    dispatched_at       BIGINT
);
CREATE INDEX events_waiting ON events(id) WHERE dispatched_at IS NULL;
