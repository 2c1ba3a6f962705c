-- Exactly once under every crash window: a job being sent belongs to the
-- process that claimed it (a starting process marks unknown only its own
-- or those whose claim expired), and a thread or an album records each
-- part sent, so a send that failed at part 2 resumes at part 2.
-- Keep in step with ../postgres/.
ALTER TABLE publications ADD COLUMN sending_owner TEXT;

CREATE TABLE publication_parts (
    publication_id      INTEGER NOT NULL REFERENCES publications(id),
    part                INTEGER NOT NULL CHECK (part >= 0),
    external_id         TEXT NOT NULL,
    sent_at             INTEGER NOT NULL,
    PRIMARY KEY (publication_id, part)
);

-- A destructive call's confirmed re-run is created once per decision, even
-- when the button and the tick carry the answer out at the same moment.
CREATE UNIQUE INDEX tasks_confirmed_once ON tasks(step_key) WHERE step_key LIKE 'confirmed.%';
