//! The agent runtime wired for tests: a fresh SQLite store, the shipped
//! prompts, a scripted model server over real HTTP, a manual clock and an
//! alerter that keeps what it was sent.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use serde_json::Value;
use ulias_agents::alerts::RecordingAlerter;
use ulias_agents::chain::ChainReader;
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_agents::ledger::Ledger;
use ulias_agents::model::{OpenAiClient, ScriptedClient, Timeouts};
use ulias_agents::pools::{ModelPool, Pools};
use ulias_agents::runner::{Runner, RunnerConfig};
use ulias_agents::sandbox::Sandbox;
use ulias_agents::schemas::OutputSchemas;
use ulias_agents::spec::Catalogue;
use ulias_agents::tools::{Checks, ReadLog, ToolContext, ToolRegistry, Toolbox, Workspace};
use ulias_core::clock::{Clock, ManualClock};
use ulias_core::domain::{NewTask, Task};
use ulias_core::settings::{BudgetSettings, PoolSettings, Settings, Tier, ToolProtocol};

use crate::db::TestDb;
use crate::fake_chain::offline_reader;
use crate::fake_llm::FakeLlm;

/// The shipped prompts folder.
pub fn prompts_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../prompts"))
}

/// How to build a harness.
#[derive(Clone)]
pub struct Options {
    pub protocol: ToolProtocol,
    /// Real price per 1k input and output tokens of the local pool.
    pub prices: (f64, f64),
    pub budgets: BudgetSettings,
    /// A cloud pool playing these turns, when set.
    pub cloud_turns: Option<Vec<Value>>,
    /// What the chain tools and the Scanner's checks read; none: nothing
    /// can be read (see [`offline_reader`]).
    pub chain: Option<ChainReader>,
    /// Where the code and git tools may look; none: every path is refused.
    pub workspace: Option<Workspace>,
    /// Where `bash` and `run_tests` run; none: the default limits.
    pub sandbox: Option<Sandbox>,
    /// The services and hosts the operations tools reach; none: nothing.
    pub checks: Option<Checks>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            protocol: ToolProtocol::Tools,
            prices: (0.01, 0.03),
            budgets: BudgetSettings::default(),
            cloud_turns: None,
            chain: None,
            workspace: None,
            sandbox: None,
            checks: None,
        }
    }
}

/// A runner against a scripted model.
pub struct Harness {
    pub db: TestDb,
    pub llm: FakeLlm,
    pub cloud: Option<FakeLlm>,
    pub runner: Runner,
    pub alerts: Arc<RecordingAlerter>,
    pub clock: Arc<ManualClock>,
}

impl Harness {
    /// A harness whose local pool plays `turns`, with default options.
    pub async fn new(turns: Vec<Value>) -> Self {
        Self::with(Options::default(), turns).await
    }

    /// A harness built with `options`.
    pub async fn with(options: Options, turns: Vec<Value>) -> Self {
        let db = TestDb::sqlite().await;
        db.migrated().await;
        let llm = FakeLlm::start(turns).await;
        let mut pools = vec![pool("local", Tier::Thinker, &llm, &options)];
        let cloud = match &options.cloud_turns {
            Some(turns) => {
                let cloud = FakeLlm::start(turns.clone()).await;
                pools.push(pool("cloud", Tier::Cloud, &cloud, &options));
                Some(cloud)
            }
            None => None,
        };
        let clock = Arc::new(ManualClock::new(start()));
        let alerts = Arc::new(RecordingAlerter::default());
        let chain = options.chain.clone().unwrap_or_else(offline_reader);
        let mut runner = assemble(&db, pools, &clock, &alerts, &options.budgets, chain.clone());
        if options.workspace.is_some() || options.sandbox.is_some() || options.checks.is_some() {
            let mut toolbox = Toolbox::offline(chain);
            if let Some(workspace) = &options.workspace {
                toolbox = toolbox.with_workspace(workspace.clone());
            }
            if let Some(sandbox) = &options.sandbox {
                toolbox = toolbox.with_sandbox(sandbox.clone());
            }
            if let Some(checks) = &options.checks {
                toolbox = toolbox.with_checks(checks.clone());
            }
            runner.tools = Arc::new(ToolRegistry::standard(&toolbox));
        }
        Self {
            db,
            llm,
            cloud,
            runner,
            alerts,
            clock,
        }
    }

    /// An engine on this harness's runner, working as `worker-1`.
    pub fn engine(&self) -> Engine {
        Engine {
            runner: self.runner.clone(),
            config: EngineConfig::default(),
        }
    }

    /// What a tool sees when `agent` calls it in `task`, as the runner
    /// builds it, with a read log of its own.
    pub fn tool_context(&self, task: &Task, agent: &str) -> ToolContext {
        ToolContext {
            store: self.db.store.clone(),
            clock: self.runner.clock.clone(),
            task: task.clone(),
            agent: agent.to_owned(),
            embedder: self.runner.embedder.clone(),
            alerter: self.runner.alerter.clone(),
            reads: ReadLog::default(),
            catalogue: self.runner.catalogue.clone(),
        }
    }

    /// Creates a task for `agent` with `input`, queues and claims it as `worker-1`.
    pub async fn claimed_task(&self, agent: &str, input: Value) -> Task {
        let store = &self.db.store;
        let now = self.clock.now();
        let team = self.runner.catalogue.get(agent).unwrap().team;
        let mut task = NewTask::new(agent.parse().unwrap(), team, format!("{agent} task"), now);
        task.input = input;
        let task = store.create_task(&task, now).await.unwrap();
        store.promote_ready_tasks(now).await.unwrap();
        let claimed = store
            .claim_next_task("worker-1", now, TimeDelta::minutes(10))
            .await
            .unwrap();
        assert_eq!(claimed.as_ref().map(|t| t.id), Some(task.id));
        claimed.unwrap()
    }
}

/// When every harness's clock starts.
pub fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 9, 0, 0).unwrap()
}

/// The runtime on `db` with these pools, the shipped prompts, `clock`,
/// `alerts`, `chain` for the chain tools and the database's own folder for
/// made files.
pub fn assemble(
    db: &TestDb,
    pools: Vec<ModelPool>,
    clock: &Arc<ManualClock>,
    alerts: &Arc<RecordingAlerter>,
    budgets: &BudgetSettings,
    chain: ChainReader,
) -> Runner {
    let toolbox = Toolbox::offline(chain).with_data_dir(db.files().to_owned());
    let tools = Arc::new(ToolRegistry::standard(&toolbox));
    let schemas = Arc::new(OutputSchemas::build().unwrap());
    let catalogue = Arc::new(Catalogue::load(prompts_dir(), &tools, &schemas).unwrap());
    let ledger = Ledger::new(
        db.store.clone(),
        clock.clone(),
        alerts.clone(),
        budgets.clone(),
    );
    let embedder = pools[0].client.clone();
    Runner {
        store: db.store.clone(),
        clock: clock.clone(),
        catalogue,
        tools,
        schemas,
        pools: Pools::new(pools),
        ledger,
        alerter: alerts.clone(),
        embedder,
        config: RunnerConfig::default(),
    }
}

/// The recorded answers `ulias simulate` plays.
pub fn simulation_answers() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/simulation/answers.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A pool answering from `script` (the format of `fixtures/simulation/answers.json`)
/// in the JSON protocol, at the default settings' prices.
pub fn scripted_pool(script: &Value) -> ModelPool {
    let mut settings: PoolSettings = Settings::default().models.pools[0].clone();
    settings.name = "scripted".to_owned();
    settings.protocol = ToolProtocol::Json;
    settings.slots = 2;
    let client = ScriptedClient::from_json(&script.to_string()).unwrap();
    ModelPool::new(settings, Arc::new(client))
}

fn pool(name: &str, tier: Tier, llm: &FakeLlm, options: &Options) -> ModelPool {
    let mut settings: PoolSettings = Settings::default().models.pools[0].clone();
    settings.name = name.to_owned();
    settings.tier = tier;
    settings.base_url = llm.base_url.parse().unwrap();
    settings.protocol = options.protocol;
    settings.slots = 1;
    (settings.price_in_per_1k, settings.price_out_per_1k) = options.prices;
    let client = OpenAiClient::new(
        &llm.base_url,
        None,
        &settings.model,
        Timeouts {
            connect: Duration::from_secs(5),
            total: Duration::from_secs(10),
        },
    )
    .unwrap();
    ModelPool::new(settings, Arc::new(client))
}
