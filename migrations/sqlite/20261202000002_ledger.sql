-- The cost ledger reads log_entries: which pool served a model call, whether
-- that pool is the paid cloud one, and whether its usage was estimated.
ALTER TABLE log_entries ADD COLUMN pool TEXT;
ALTER TABLE log_entries ADD COLUMN cloud INTEGER NOT NULL DEFAULT 0 CHECK (cloud IN (0, 1));
ALTER TABLE log_entries ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0 CHECK (usage_estimated IN (0, 1));
CREATE INDEX log_entries_cloud ON log_entries(cloud, created_at);
CREATE INDEX log_entries_objective ON log_entries(objective_id);

-- Alerts that must be sent once only (a monthly spend threshold), even
-- across restarts and processes: the first insert wins.
CREATE TABLE sent_alerts (
    scope               TEXT NOT NULL,
    alert_key           TEXT NOT NULL,
    created_at          INTEGER NOT NULL,
    PRIMARY KEY (scope, alert_key)
);
