-- Ulias schema, SQLite flavour. Keep in step with ../postgres/.
--
-- Conventions (both backends):
--   * every *_at column is Unix time in milliseconds, UTC (portable, exact, ordered);
--   * money is integer micro-dollars (*_micros), so sums are exact;
--   * statuses and other fixed vocabularies are text with a CHECK listing the
--     Rust enum's variants (ulias_core::domain); a store test checks they agree;
--   * JSON is TEXT here and JSONB on PostgreSQL.

CREATE TABLE operations (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL,
    token_symbol        TEXT,
    chain               TEXT,
    official_address    TEXT,
    j0_at               INTEGER,
    status              TEXT NOT NULL DEFAULT 'planned'
                        CHECK (status IN ('planned','running','paused','stopped','completed')),
    validation_required INTEGER NOT NULL DEFAULT 1 CHECK (validation_required IN (0, 1)),
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);

CREATE TABLE objectives (
    id                  INTEGER PRIMARY KEY,
    title               TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    priority            INTEGER NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','planning','in_progress','blocked','completed','failed','cancelled')),
    source              TEXT NOT NULL DEFAULT 'ceo'
                        CHECK (source IN ('ceo','strategist','scheduler','incident','anticipator','playbook')),
    source_agent        TEXT,
    team                TEXT,
    tags                TEXT NOT NULL DEFAULT '[]',
    parent_objective_id INTEGER REFERENCES objectives(id),
    operation_id        INTEGER REFERENCES operations(id),
    budget_micros       INTEGER,
    progress_chat_id    INTEGER,
    progress_message_id INTEGER,
    created_at          INTEGER NOT NULL,
    started_at          INTEGER,
    completed_at        INTEGER,
    result              TEXT,
    error               TEXT
);
CREATE INDEX objectives_status ON objectives(status);

CREATE TABLE tasks (
    id                  INTEGER PRIMARY KEY,
    objective_id        INTEGER REFERENCES objectives(id) ON DELETE CASCADE,
    operation_id        INTEGER REFERENCES operations(id),
    step_key            TEXT,
    parent_task_id      INTEGER REFERENCES tasks(id),
    agent               TEXT NOT NULL,
    team                TEXT NOT NULL,
    kind                TEXT,
    title               TEXT NOT NULL,
    input               TEXT NOT NULL DEFAULT '{}',
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','queued','running','blocked','completed','failed','cancelled')),
    pipeline            TEXT NOT NULL DEFAULT 'direct'
                        CHECK (pipeline IN ('direct','verification_chain','horse_race','cisc','cross_validation')),
    priority            INTEGER NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    due_at              INTEGER NOT NULL,
    attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts        INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    lease_owner         TEXT,
    lease_expires_at    INTEGER,
    requires_validation INTEGER NOT NULL DEFAULT 0 CHECK (requires_validation IN (0, 1)),
    result              TEXT,
    error               TEXT,
    confidence          REAL CHECK (confidence BETWEEN 0 AND 1),
    model               TEXT,
    tokens_in           INTEGER NOT NULL DEFAULT 0,
    tokens_out          INTEGER NOT NULL DEFAULT 0,
    cost_micros         INTEGER NOT NULL DEFAULT 0,
    cloud_equiv_micros  INTEGER NOT NULL DEFAULT 0,
    iterations          INTEGER NOT NULL DEFAULT 0,
    duration_ms         INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    started_at          INTEGER,
    completed_at        INTEGER,
    -- A running task holds a lease; nothing else does.
    CHECK ((status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
);
CREATE INDEX tasks_ready ON tasks(status, priority DESC, due_at, id);
CREATE INDEX tasks_lease ON tasks(status, lease_expires_at);
CREATE INDEX tasks_objective ON tasks(objective_id);
CREATE UNIQUE INDEX tasks_operation_step ON tasks(operation_id, step_key)
    WHERE operation_id IS NOT NULL AND step_key IS NOT NULL;

CREATE TABLE task_dependencies (
    task_id             INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    depends_on_id       INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    PRIMARY KEY (task_id, depends_on_id),
    CHECK (task_id <> depends_on_id)
);
CREATE INDEX task_dependencies_reverse ON task_dependencies(depends_on_id);

-- Every model exchange, so a run can be replayed.
CREATE TABLE messages (
    id                  INTEGER PRIMARY KEY,
    task_id             INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    turn                INTEGER NOT NULL,
    role                TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
    content             TEXT,
    tool_calls          TEXT,
    tool_call_id        TEXT,
    model               TEXT,
    tokens_in           INTEGER NOT NULL DEFAULT 0,
    tokens_out          INTEGER NOT NULL DEFAULT 0,
    usage_estimated     INTEGER NOT NULL DEFAULT 0 CHECK (usage_estimated IN (0, 1)),
    created_at          INTEGER NOT NULL
);
CREATE INDEX messages_task ON messages(task_id, turn);

CREATE TABLE decisions (
    id                  INTEGER PRIMARY KEY,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    objective_id        INTEGER REFERENCES objectives(id) ON DELETE SET NULL,
    question            TEXT NOT NULL,
    context_summary     TEXT NOT NULL DEFAULT '',
    options             TEXT NOT NULL DEFAULT '[]',
    recommended         INTEGER,
    urgency             TEXT NOT NULL DEFAULT 'normal'
                        CHECK (urgency IN ('low','normal','high','critical')),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','answered','timed_out','cancelled')),
    response            INTEGER,
    responded_by        TEXT,
    responded_at        INTEGER,
    timeout_at          INTEGER,
    auto_decision       INTEGER,
    notified_via        TEXT NOT NULL DEFAULT '[]',
    chat_id             INTEGER,
    message_id          INTEGER,
    created_at          INTEGER NOT NULL
);
CREATE INDEX decisions_pending ON decisions(status, timeout_at);

CREATE TABLE validations (
    id                  INTEGER PRIMARY KEY,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    operation_id        INTEGER REFERENCES operations(id),
    kind                TEXT NOT NULL
                        CHECK (kind IN ('post','thread','album','site','pinned','poll','profile','dossier','utility')),
    target              TEXT NOT NULL CHECK (target IN ('telegram','x','site','manual')),
    account             TEXT,
    payload             TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','approved','rejected','cancelled')),
    decided_by          TEXT,
    decided_at          INTEGER,
    rejection_reason    TEXT,
    chat_id             INTEGER,
    message_id          INTEGER,
    created_at          INTEGER NOT NULL
);
CREATE INDEX validations_pending ON validations(status, created_at);

-- The outbox: one job per approved output (or per direct publication).
CREATE TABLE publications (
    id                  INTEGER PRIMARY KEY,
    validation_id       INTEGER UNIQUE REFERENCES validations(id),
    operation_id        INTEGER REFERENCES operations(id),
    target              TEXT NOT NULL CHECK (target IN ('telegram','x','site','manual')),
    account             TEXT,
    payload             TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','sending','sent','unknown','failed','cancelled')),
    attempts            INTEGER NOT NULL DEFAULT 0,
    not_before          INTEGER NOT NULL,
    external_id         TEXT,
    error               TEXT,
    sending_since       INTEGER,
    sent_at             INTEGER,
    created_at          INTEGER NOT NULL
);
CREATE INDEX publications_due ON publications(status, not_before);

CREATE TABLE log_entries (
    id                  INTEGER PRIMARY KEY,
    operation_id        INTEGER REFERENCES operations(id),
    objective_id        INTEGER REFERENCES objectives(id) ON DELETE SET NULL,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    agent               TEXT,
    kind                TEXT NOT NULL
                        CHECK (kind IN ('model_call','tool_call','tool_refused','publication','moderation','alert','system')),
    summary             TEXT NOT NULL,
    model               TEXT,
    tokens_in           INTEGER NOT NULL DEFAULT 0,
    tokens_out          INTEGER NOT NULL DEFAULT 0,
    cost_micros         INTEGER NOT NULL DEFAULT 0,
    cloud_equiv_micros  INTEGER NOT NULL DEFAULT 0,
    is_public           INTEGER NOT NULL DEFAULT 0 CHECK (is_public IN (0, 1)),
    posted_at           INTEGER,
    created_at          INTEGER NOT NULL
);
CREATE INDEX log_entries_task ON log_entries(task_id);
CREATE INDEX log_entries_unposted ON log_entries(is_public, posted_at);
CREATE INDEX log_entries_created ON log_entries(created_at);

-- An operation's file: versioned, one section per agent. operation_id is
-- NULL for pre-reports on candidates.
CREATE TABLE operation_files (
    id                  INTEGER PRIMARY KEY,
    operation_id        INTEGER REFERENCES operations(id),
    subject             TEXT,
    section             TEXT NOT NULL,
    version             INTEGER NOT NULL CHECK (version >= 1),
    content             TEXT NOT NULL,
    author_agent        TEXT NOT NULL,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    created_at          INTEGER NOT NULL,
    UNIQUE (operation_id, section, version)
);

CREATE TABLE assets (
    id                  INTEGER PRIMARY KEY,
    operation_id        INTEGER REFERENCES operations(id),
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    kind                TEXT NOT NULL,
    path                TEXT NOT NULL,
    mime                TEXT NOT NULL,
    width               INTEGER,
    height              INTEGER,
    bytes               INTEGER NOT NULL DEFAULT 0,
    sha256              TEXT,
    created_at          INTEGER NOT NULL
);

CREATE TABLE metrics (
    id                  INTEGER PRIMARY KEY,
    agent               TEXT NOT NULL,
    team                TEXT NOT NULL,
    metric_type         TEXT NOT NULL,
    value               REAL NOT NULL,
    period              TEXT NOT NULL CHECK (period IN ('daily','weekly')),
    period_start        INTEGER NOT NULL,
    metadata            TEXT NOT NULL DEFAULT '{}',
    created_at          INTEGER NOT NULL
);
CREATE INDEX metrics_agent ON metrics(agent, metric_type, period_start);

CREATE TABLE lessons (
    id                  INTEGER PRIMARY KEY,
    objective_id        INTEGER REFERENCES objectives(id) ON DELETE SET NULL,
    task_id             INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    agent               TEXT,
    team                TEXT,
    category            TEXT NOT NULL DEFAULT 'pattern'
                        CHECK (category IN ('bug','pattern','convention','pitfall','optimization')),
    lesson              TEXT NOT NULL,
    services            TEXT NOT NULL DEFAULT '[]',
    -- little-endian f32s; cosine similarity is computed in Rust
    embedding           BLOB,
    embedding_dims      INTEGER,
    importance          REAL NOT NULL DEFAULT 0.5,
    created_at          INTEGER NOT NULL
);
CREATE INDEX lessons_agent ON lessons(agent);

CREATE TABLE ceo_profile (
    id                  INTEGER PRIMARY KEY,
    profile_type        TEXT NOT NULL CHECK (profile_type IN ('vocabulary','preference','pattern','habit','style','priority')),
    key                 TEXT NOT NULL,
    value               TEXT NOT NULL,
    confidence          REAL NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0 AND 1),
    learned_from        INTEGER REFERENCES objectives(id) ON DELETE SET NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    UNIQUE (profile_type, key)
);

CREATE TABLE ceo_interactions (
    id                  INTEGER PRIMARY KEY,
    chat_id             INTEGER,
    message_id          INTEGER,
    raw_message         TEXT NOT NULL,
    interpreted_as      TEXT,
    confidence          REAL,
    objective_id        INTEGER REFERENCES objectives(id) ON DELETE SET NULL,
    feedback            TEXT,
    created_at          INTEGER NOT NULL
);
CREATE INDEX ceo_interactions_recent ON ceo_interactions(created_at);

CREATE TABLE prompt_versions (
    id                  INTEGER PRIMARY KEY,
    agent               TEXT NOT NULL,
    version             INTEGER NOT NULL CHECK (version >= 1),
    prompt_text         TEXT NOT NULL,
    is_active           INTEGER NOT NULL DEFAULT 0 CHECK (is_active IN (0, 1)),
    success_rate        REAL,
    avg_confidence      REAL,
    avg_tokens          REAL,
    sample_size         INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    promoted_at         INTEGER,
    notes               TEXT,
    UNIQUE (agent, version)
);
CREATE UNIQUE INDEX prompt_versions_one_active ON prompt_versions(agent) WHERE is_active = 1;

CREATE TABLE routing_rules (
    id                  INTEGER PRIMARY KEY,
    agent               TEXT NOT NULL,
    task_pattern        TEXT NOT NULL,
    pool                TEXT NOT NULL,
    pipeline            TEXT NOT NULL DEFAULT 'direct'
                        CHECK (pipeline IN ('direct','verification_chain','horse_race','cisc','cross_validation')),
    success_rate        REAL,
    sample_size         INTEGER NOT NULL DEFAULT 0,
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);

-- Recurring jobs: the next run lives here so restarts never double-run.
CREATE TABLE schedules (
    name                TEXT PRIMARY KEY,
    cron                TEXT NOT NULL,
    timezone            TEXT NOT NULL DEFAULT 'UTC',
    agent               TEXT,
    enabled             INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    next_run_at         INTEGER NOT NULL,
    last_run_at         INTEGER,
    updated_at          INTEGER NOT NULL
);

CREATE TABLE admin_audit (
    id                  INTEGER PRIMARY KEY,
    actor               TEXT NOT NULL,
    actor_role          TEXT NOT NULL CHECK (actor_role IN ('ceo','team','system','unknown')),
    action              TEXT NOT NULL,
    target_kind         TEXT,
    target_id           TEXT,
    details             TEXT NOT NULL DEFAULT '{}',
    created_at          INTEGER NOT NULL
);
CREATE INDEX admin_audit_created ON admin_audit(created_at);

-- Dialogue states of the Telegram bot, one per chat.
CREATE TABLE dialogues (
    chat_id             INTEGER PRIMARY KEY,
    state               TEXT NOT NULL,
    updated_at          INTEGER NOT NULL
);
