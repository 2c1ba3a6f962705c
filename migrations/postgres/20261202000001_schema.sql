-- Ulias schema, PostgreSQL flavour. Keep in step with ../sqlite/.
--
-- Conventions (both backends):
--   * every *_at column is Unix time in milliseconds, UTC (portable, exact, ordered);
--   * money is integer micro-dollars (*_micros), so sums are exact;
--   * statuses and other fixed vocabularies are text with a CHECK listing the
--     Rust enum's variants (ulias_core::domain); a store test checks they agree;
--   * JSON is JSONB here and TEXT on SQLite.

CREATE TABLE operations (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                TEXT NOT NULL,
    token_symbol        TEXT,
    chain               TEXT,
    official_address    TEXT,
    j0_at               BIGINT,
    status              TEXT NOT NULL DEFAULT 'planned'
                        CHECK (status IN ('planned','running','paused','stopped','completed')),
    validation_required BOOLEAN NOT NULL DEFAULT TRUE,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);

CREATE TABLE objectives (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title               TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    priority            BIGINT NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','planning','in_progress','blocked','completed','failed','cancelled')),
    source              TEXT NOT NULL DEFAULT 'ceo'
                        CHECK (source IN ('ceo','strategist','scheduler','incident','anticipator','playbook')),
    source_agent        TEXT,
    team                TEXT,
    tags                JSONB NOT NULL DEFAULT '[]',
    parent_objective_id BIGINT REFERENCES objectives(id),
    operation_id        BIGINT REFERENCES operations(id),
    budget_micros       BIGINT,
    progress_chat_id    BIGINT,
    progress_message_id BIGINT,
    created_at          BIGINT NOT NULL,
    started_at          BIGINT,
    completed_at        BIGINT,
    result              JSONB,
    error               TEXT
);
CREATE INDEX objectives_status ON objectives(status);

CREATE TABLE tasks (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    objective_id        BIGINT REFERENCES objectives(id) ON DELETE CASCADE,
    operation_id        BIGINT REFERENCES operations(id),
    step_key            TEXT,
    parent_task_id      BIGINT REFERENCES tasks(id),
    agent               TEXT NOT NULL,
    team                TEXT NOT NULL,
    kind                TEXT,
    title               TEXT NOT NULL,
    input               JSONB NOT NULL DEFAULT '{}',
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','queued','running','blocked','completed','failed','cancelled')),
    pipeline            TEXT NOT NULL DEFAULT 'direct'
                        CHECK (pipeline IN ('direct','verification_chain','horse_race','cisc','cross_validation')),
    priority            BIGINT NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
    due_at              BIGINT NOT NULL,
    attempts            BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts        BIGINT NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    lease_owner         TEXT,
    lease_expires_at    BIGINT,
    requires_validation BOOLEAN NOT NULL DEFAULT FALSE,
    result              JSONB,
    error               TEXT,
    confidence          DOUBLE PRECISION CHECK (confidence BETWEEN 0 AND 1),
    model               TEXT,
    tokens_in           BIGINT NOT NULL DEFAULT 0,
    tokens_out          BIGINT NOT NULL DEFAULT 0,
    cost_micros         BIGINT NOT NULL DEFAULT 0,
    cloud_equiv_micros  BIGINT NOT NULL DEFAULT 0,
    iterations          BIGINT NOT NULL DEFAULT 0,
    duration_ms         BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL,
    started_at          BIGINT,
    completed_at        BIGINT,
    -- A running task holds a lease; nothing else does.
    CHECK ((status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
);
CREATE INDEX tasks_ready ON tasks(status, priority DESC, due_at, id);
CREATE INDEX tasks_lease ON tasks(status, lease_expires_at);
CREATE INDEX tasks_objective ON tasks(objective_id);
CREATE UNIQUE INDEX tasks_operation_step ON tasks(operation_id, step_key)
    WHERE operation_id IS NOT NULL AND step_key IS NOT NULL;

CREATE TABLE task_dependencies (
    task_id             BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    depends_on_id       BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    PRIMARY KEY (task_id, depends_on_id),
    CHECK (task_id <> depends_on_id)
);
CREATE INDEX task_dependencies_reverse ON task_dependencies(depends_on_id);

-- Every model exchange, so a run can be replayed.
CREATE TABLE messages (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id             BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    turn                BIGINT NOT NULL,
    role                TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
    content             TEXT,
    tool_calls          JSONB,
    tool_call_id        TEXT,
    model               TEXT,
    tokens_in           BIGINT NOT NULL DEFAULT 0,
    tokens_out          BIGINT NOT NULL DEFAULT 0,
    usage_estimated     BOOLEAN NOT NULL DEFAULT FALSE,
    created_at          BIGINT NOT NULL
);
CREATE INDEX messages_task ON messages(task_id, turn);

CREATE TABLE decisions (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    objective_id        BIGINT REFERENCES objectives(id) ON DELETE SET NULL,
    question            TEXT NOT NULL,
    context_summary     TEXT NOT NULL DEFAULT '',
    options             JSONB NOT NULL DEFAULT '[]',
    recommended         BIGINT,
    urgency             TEXT NOT NULL DEFAULT 'normal'
                        CHECK (urgency IN ('low','normal','high','critical')),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','answered','timed_out','cancelled')),
    response            BIGINT,
    responded_by        TEXT,
    responded_at        BIGINT,
    timeout_at          BIGINT,
    auto_decision       BIGINT,
    notified_via        JSONB NOT NULL DEFAULT '[]',
    chat_id             BIGINT,
    message_id          BIGINT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX decisions_pending ON decisions(status, timeout_at);

CREATE TABLE validations (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    operation_id        BIGINT REFERENCES operations(id),
    kind                TEXT NOT NULL
                        CHECK (kind IN ('post','thread','album','site','pinned','poll','profile','dossier','utility')),
    target              TEXT NOT NULL CHECK (target IN ('telegram','x','site','manual')),
    account             TEXT,
    payload             JSONB NOT NULL,
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','approved','rejected','cancelled')),
    decided_by          TEXT,
    decided_at          BIGINT,
    rejection_reason    TEXT,
    chat_id             BIGINT,
    message_id          BIGINT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX validations_pending ON validations(status, created_at);

-- The outbox: one job per approved output (or per direct publication).
CREATE TABLE publications (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    validation_id       BIGINT UNIQUE REFERENCES validations(id),
    operation_id        BIGINT REFERENCES operations(id),
    target              TEXT NOT NULL CHECK (target IN ('telegram','x','site','manual')),
    account             TEXT,
    payload             JSONB NOT NULL,
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending','sending','sent','unknown','failed','cancelled')),
    attempts            BIGINT NOT NULL DEFAULT 0,
    not_before          BIGINT NOT NULL,
    external_id         TEXT,
    error               TEXT,
    sending_since       BIGINT,
    sent_at             BIGINT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX publications_due ON publications(status, not_before);

CREATE TABLE log_entries (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id        BIGINT REFERENCES operations(id),
    objective_id        BIGINT REFERENCES objectives(id) ON DELETE SET NULL,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    agent               TEXT,
    kind                TEXT NOT NULL
                        CHECK (kind IN ('model_call','tool_call','tool_refused','publication','moderation','alert','system')),
    summary             TEXT NOT NULL,
    model               TEXT,
    tokens_in           BIGINT NOT NULL DEFAULT 0,
    tokens_out          BIGINT NOT NULL DEFAULT 0,
    cost_micros         BIGINT NOT NULL DEFAULT 0,
    cloud_equiv_micros  BIGINT NOT NULL DEFAULT 0,
    is_public           BOOLEAN NOT NULL DEFAULT FALSE,
    posted_at           BIGINT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX log_entries_task ON log_entries(task_id);
CREATE INDEX log_entries_unposted ON log_entries(is_public, posted_at);
CREATE INDEX log_entries_created ON log_entries(created_at);

-- An operation's file: versioned, one section per agent. operation_id is
-- NULL for pre-reports on candidates.
CREATE TABLE operation_files (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id        BIGINT REFERENCES operations(id),
    subject             TEXT,
    section             TEXT NOT NULL,
    version             BIGINT NOT NULL CHECK (version >= 1),
    content             JSONB NOT NULL,
    author_agent        TEXT NOT NULL,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    created_at          BIGINT NOT NULL,
    UNIQUE (operation_id, section, version)
);

CREATE TABLE assets (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id        BIGINT REFERENCES operations(id),
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    kind                TEXT NOT NULL,
    path                TEXT NOT NULL,
    mime                TEXT NOT NULL,
    width               BIGINT,
    height              BIGINT,
    bytes               BIGINT NOT NULL DEFAULT 0,
    sha256              TEXT,
    created_at          BIGINT NOT NULL
);

CREATE TABLE metrics (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent               TEXT NOT NULL,
    team                TEXT NOT NULL,
    metric_type         TEXT NOT NULL,
    value               DOUBLE PRECISION NOT NULL,
    period              TEXT NOT NULL CHECK (period IN ('daily','weekly')),
    period_start        BIGINT NOT NULL,
    metadata            JSONB NOT NULL DEFAULT '{}',
    created_at          BIGINT NOT NULL
);
CREATE INDEX metrics_agent ON metrics(agent, metric_type, period_start);

CREATE TABLE lessons (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    objective_id        BIGINT REFERENCES objectives(id) ON DELETE SET NULL,
    task_id             BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    agent               TEXT,
    team                TEXT,
    category            TEXT NOT NULL DEFAULT 'pattern'
                        CHECK (category IN ('bug','pattern','convention','pitfall','optimization')),
    lesson              TEXT NOT NULL,
    services            JSONB NOT NULL DEFAULT '[]',
    -- little-endian f32s (pgvector is not assumed); cosine similarity is computed in Rust
    embedding           BYTEA,
    embedding_dims      BIGINT,
    importance          DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    created_at          BIGINT NOT NULL
);
CREATE INDEX lessons_agent ON lessons(agent);

CREATE TABLE ceo_profile (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    profile_type        TEXT NOT NULL CHECK (profile_type IN ('vocabulary','preference','pattern','habit','style','priority')),
    key                 TEXT NOT NULL,
    value               JSONB NOT NULL,
    confidence          DOUBLE PRECISION NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0 AND 1),
    learned_from        BIGINT REFERENCES objectives(id) ON DELETE SET NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    UNIQUE (profile_type, key)
);

CREATE TABLE ceo_interactions (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id             BIGINT,
    message_id          BIGINT,
    raw_message         TEXT NOT NULL,
    interpreted_as      TEXT,
    confidence          DOUBLE PRECISION,
    objective_id        BIGINT REFERENCES objectives(id) ON DELETE SET NULL,
    feedback            TEXT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX ceo_interactions_recent ON ceo_interactions(created_at);

CREATE TABLE prompt_versions (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent               TEXT NOT NULL,
    version             BIGINT NOT NULL CHECK (version >= 1),
    prompt_text         TEXT NOT NULL,
    is_active           BOOLEAN NOT NULL DEFAULT FALSE,
    success_rate        DOUBLE PRECISION,
    avg_confidence      DOUBLE PRECISION,
    avg_tokens          DOUBLE PRECISION,
    sample_size         BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL,
    promoted_at         BIGINT,
    notes               TEXT,
    UNIQUE (agent, version)
);
CREATE UNIQUE INDEX prompt_versions_one_active ON prompt_versions(agent) WHERE is_active;

CREATE TABLE routing_rules (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent               TEXT NOT NULL,
    task_pattern        TEXT NOT NULL,
    pool                TEXT NOT NULL,
    pipeline            TEXT NOT NULL DEFAULT 'direct'
                        CHECK (pipeline IN ('direct','verification_chain','horse_race','cisc','cross_validation')),
    success_rate        DOUBLE PRECISION,
    sample_size         BIGINT NOT NULL DEFAULT 0,
    is_active           BOOLEAN NOT NULL DEFAULT TRUE,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);

-- Recurring jobs: the next run lives here so restarts never double-run.
CREATE TABLE schedules (
    name                TEXT PRIMARY KEY,
    cron                TEXT NOT NULL,
    timezone            TEXT NOT NULL DEFAULT 'UTC',
    agent               TEXT,
    enabled             BOOLEAN NOT NULL DEFAULT TRUE,
    next_run_at         BIGINT NOT NULL,
    last_run_at         BIGINT,
    updated_at          BIGINT NOT NULL
);

CREATE TABLE admin_audit (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    actor               TEXT NOT NULL,
    actor_role          TEXT NOT NULL CHECK (actor_role IN ('ceo','team','system','unknown')),
    action              TEXT NOT NULL,
    target_kind         TEXT,
    target_id           TEXT,
    details             JSONB NOT NULL DEFAULT '{}',
    created_at          BIGINT NOT NULL
);
CREATE INDEX admin_audit_created ON admin_audit(created_at);

-- Dialogue states of the Telegram bot, one per chat.
CREATE TABLE dialogues (
    chat_id             BIGINT PRIMARY KEY,
    state               JSONB NOT NULL,
    updated_at          BIGINT NOT NULL
);
