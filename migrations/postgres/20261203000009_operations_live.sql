-- Operations run live: an operation owns its community groups, X accounts,
-- official addresses and site subdomain; one live operation per contract;
-- decisions are typed (a kind and its values, rendered from locales) and
-- each answered or timed-out one is applied once (applied_at).
-- Keep in step with ../sqlite/.
ALTER TABLE operations ADD COLUMN official_addresses JSONB NOT NULL DEFAULT '[]';
ALTER TABLE operations ADD COLUMN site_subdomain TEXT;
UPDATE operations SET official_addresses = jsonb_build_array(official_address)
    WHERE official_address IS NOT NULL;
CREATE UNIQUE INDEX operations_live_contract ON operations(chain, lower(official_address))
    WHERE status IN ('planned','running','paused') AND official_address IS NOT NULL;

-- A community group belongs to at most one operation.
CREATE TABLE operation_groups (
    chat_id             BIGINT PRIMARY KEY,
    operation_id        BIGINT NOT NULL REFERENCES operations(id),
    bound_by            TEXT NOT NULL,
    bound_at            BIGINT NOT NULL
);
CREATE INDEX operation_groups_operation ON operation_groups(operation_id);

-- An X account belongs to at most one operation.
CREATE TABLE operation_accounts (
    account             TEXT PRIMARY KEY,
    operation_id        BIGINT NOT NULL REFERENCES operations(id),
    bound_at            BIGINT NOT NULL
);

ALTER TABLE decisions ADD COLUMN kind TEXT NOT NULL DEFAULT 'legacy';
ALTER TABLE decisions ADD COLUMN args JSONB;
ALTER TABLE decisions ADD COLUMN operation_id BIGINT REFERENCES operations(id);
ALTER TABLE decisions ADD COLUMN applied_at BIGINT;
-- Answers given before this migration were applied when given.
UPDATE decisions SET applied_at = responded_at WHERE status IN ('answered','timed_out');
CREATE INDEX decisions_unapplied ON decisions(status, applied_at);
