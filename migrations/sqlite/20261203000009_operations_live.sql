-- Operations run live: an operation owns its community groups, X accounts,
-- official addresses and site subdomain; one live operation per contract;
-- decisions are typed (a kind and its values, rendered from locales) and
-- each answered or timed-out one is applied once (applied_at).
-- Keep in step with ../postgres/.
ALTER TABLE operations ADD COLUMN official_addresses TEXT NOT NULL DEFAULT '[]';
ALTER TABLE operations ADD COLUMN site_subdomain TEXT;
UPDATE operations SET official_addresses = json_array(official_address)
    WHERE official_address IS NOT NULL;
CREATE UNIQUE INDEX operations_live_contract ON operations(chain, lower(official_address))
    WHERE status IN ('planned','running','paused') AND official_address IS NOT NULL;

-- A community group belongs to at most one operation.
CREATE TABLE operation_groups (
    chat_id             INTEGER PRIMARY KEY,
    operation_id        INTEGER NOT NULL REFERENCES operations(id),
    bound_by            TEXT NOT NULL,
    bound_at            INTEGER NOT NULL
);
CREATE INDEX operation_groups_operation ON operation_groups(operation_id);

-- An X account belongs to at most one operation.
CREATE TABLE operation_accounts (
    account             TEXT PRIMARY KEY,
    operation_id        INTEGER NOT NULL REFERENCES operations(id),
    bound_at            INTEGER NOT NULL
);

ALTER TABLE decisions ADD COLUMN kind TEXT NOT NULL DEFAULT 'legacy';
ALTER TABLE decisions ADD COLUMN args TEXT;
ALTER TABLE decisions ADD COLUMN operation_id INTEGER REFERENCES operations(id);
ALTER TABLE decisions ADD COLUMN applied_at INTEGER;
-- Answers given before this migration were applied when given.
UPDATE decisions SET applied_at = responded_at WHERE status IN ('answered','timed_out');
CREATE INDEX decisions_unapplied ON decisions(status, applied_at);
