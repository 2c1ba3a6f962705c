//! `ulias simulate`: the takeover playbook from J0 to J+30 on a simulated
//! clock, and one simulated day of the organisation (the recurring jobs and
//! three CEO messages), with recorded model answers (or a real server with
//! `--model`) and a stand-in team that answers each validation after
//! [`ANSWER_AFTER`] — and rejects one step once, to show the loop. Prints
//! each step, each validation and its outcome, then the public log with each
//! call's cost and the total cost recorded in the store. Succeeds only if
//! every step ran on schedule and every public output was validated.

use std::io::Write;
use std::sync::Arc;

use anyhow::Context;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use ulias_agents::alerts::RecordingAlerter;
use ulias_agents::engine::Applied;
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_agents::model::{OpenAiClient, ScriptedClient, SharedModelClient, Timeouts};
use ulias_agents::operations::{Candidate, PrereportPurpose, Started, request_prereport};
use ulias_agents::pools::{ModelPool, Pools};
use ulias_agents::scheduler::Scheduler;
use ulias_agents::simulation::{Rehearsal, StandInTeam};
use ulias_core::clock::{Clock, ManualClock, SystemClock};
use ulias_core::domain::{DecisionAnswer, DecisionOption};
use ulias_core::settings::{Locale, Settings, SettingsSource, ToolProtocol};
use ulias_core::store::Store;

use super::{Outcome, build_runner_with};
use crate::cli::SimulateArgs;
use crate::i18n::Texts;
use crate::standins::{ChainFixture, FakeChain};
use crate::telegram::alerter::render;

/// The recorded answers every agent replays.
const ANSWERS: &str = include_str!("../../../fixtures/simulation/answers.json");
/// The tokens the chain, market and explorer stand-in serves.
const CHAIN: &str = include_str!("../../../fixtures/simulation/chain.json");
/// The CEO's messages on the simulated day.
const CEO_MESSAGES: &str = include_str!("../../../fixtures/simulation/ceo_messages.txt");
/// When, after J0, each CEO message arrives.
const CEO_AT_MINUTES: [i64; 3] = [30, 4 * 60, 9 * 60];
/// The stand-in team answers a validation this long after it appears.
const ANSWER_AFTER: TimeDelta = TimeDelta::minutes(30);
/// The step the stand-in team rejects once.
const REJECTED_STEP: &str = "cm.comeback_thread";
/// Ticks of the organisation's day (the healthcheck runs every 5 minutes).
const DAY_TICK: TimeDelta = TimeDelta::minutes(5);
/// Ticks of the rest of the operation.
const TICK: TimeDelta = TimeDelta::minutes(15);

/// Runs the rehearsal and prints it.
pub async fn run(
    settings: &Settings,
    source: &SettingsSource,
    args: &SimulateArgs,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    let j0 = SystemClock
        .now()
        .duration_trunc(TimeDelta::hours(1))
        .context("Failed to round the start time")?;
    let clock = Arc::new(ManualClock::new(j0));
    let store = Store::connect(&args.db, 1)
        .await
        .with_context(|| format!("Failed to open the simulation database {}", args.db))?;
    store
        .migrate()
        .await
        .context("Failed to migrate the simulation database")?;
    let alerts = Arc::new(RecordingAlerter::default());
    let (pools, model) = pools(settings, args)?;
    let embedder = pools
        .all()
        .first()
        .map(|p| p.client.clone())
        .context("no pool")?;
    // The Scanner reads the demo token on a loopback stand-in, never a real chain.
    let chain = FakeChain::start(ChainFixture::from_json(CHAIN)?)
        .await
        .context("Failed to start the chain stand-in")?;
    let mut settings = settings.clone();
    chain.point(&mut settings.chains)?;
    // What the rehearsal makes (images, sites, utilities) stays apart from
    // the real files.
    settings.data_dir = settings.data_dir.join("simulation");
    let settings = &settings;
    let runner = build_runner_with(
        settings,
        store.clone(),
        pools,
        embedder,
        clock.clone(),
        alerts.clone(),
    )?;
    let playbook_path = settings.prompts_dir.join(super::TAKEOVER_PLAYBOOK);
    let playbook = super::load_takeover(settings)?;
    let scheduler = Scheduler::load(&settings.prompts_dir, &runner.catalogue)?;
    scheduler.sync(&store, j0).await?;
    let end = j0 + TimeDelta::days(i64::from(args.until) + 1) - TICK;

    writeln!(
        out,
        "Ulias simulation — J0 {j0}, until J+{} (simulated clock)",
        args.until
    )?;
    writeln!(out, "settings   {source}: valid")?;
    writeln!(out, "store      {}; model: {model}", args.db)?;
    let engine = Engine {
        runner,
        config: EngineConfig {
            worker: "simulation".to_owned(),
            takeover: Some(Arc::new(playbook)),
            ..EngineConfig::default()
        },
    };
    let started = take_over(&engine, &demo_candidate(), out).await?;
    writeln!(
        out,
        "operation  #{} {} — {} steps from {}",
        started.operation.id,
        started.operation.name,
        started.tasks.len(),
        playbook_path.display()
    )?;

    let team = StandInTeam {
        answer_after: ANSWER_AFTER,
        reject_once: Some(REJECTED_STEP.to_owned()),
        rejection_reason: "Too long, and it must say the old team left: rewrite it".to_owned(),
    };
    let mut rehearsal = Rehearsal::new(engine, clock.clone(), team);
    rehearsal.operation = Some(started.operation.id);
    rehearsal.scheduler = Some(scheduler);
    let quiet = args.quiet;
    let mut lines: Vec<String> = Vec::new();
    let mut say = |at: DateTime<Utc>, line: String| {
        if !quiet {
            lines.push(format!("{}  {line}", since_j0(j0, at)));
        }
    };
    simulate_day(&mut rehearsal, j0, &mut say).await?;
    rehearsal.scheduler = None;
    rehearsal.run_until(end, TICK, &mut say).await?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    let check = rehearsal.verify(started.operation.id, TICK).await?;
    summary(&store, started.operation.id, j0, &alerts, quiet, out).await?;
    writeln!(
        out,
        "check      {}/{} steps completed, {} late, {} flagged step(s) without an approved \
         validation, {} publication(s), {} without an approved validation",
        check.completed,
        check.steps,
        check.late.len(),
        check.unvalidated_steps.len(),
        check.publications,
        check.unvalidated_publications
    )?;
    for problem in check.late.iter().chain(&check.unvalidated_steps) {
        writeln!(out, "problem    {problem}")?;
    }
    let (total, cloud_equivalent) = store.total_spend().await?;
    writeln!(
        out,
        "total cost (recorded in the store): {total} (a cloud API would have charged {cloud_equivalent})"
    )?;
    store.close().await;
    anyhow::ensure!(
        check.passed() && (args.until < 30 || check.completed == check.steps),
        "the simulated takeover did not run as planned (see the check line)"
    );
    Ok(Outcome::Done)
}

/// The CEO's `/takeover`, rehearsed on the same path: the Scanner's
/// pre-report on the loopback chain, then the CEO's Start, carried out by
/// the engine's decision path.
async fn take_over(
    engine: &Engine,
    candidate: &Candidate,
    out: &mut impl Write,
) -> anyhow::Result<Started> {
    let store = &engine.runner.store;
    let now = engine.runner.clock.now();
    let (_, task) = request_prereport(store, candidate, PrereportPurpose::OfferStart, now).await?;
    engine.tick().await?;
    let report = store.task(task.id).await?;
    let offer = store
        .decisions_of_task(task.id, "operation_start")
        .await?
        .into_iter()
        .next()
        .with_context(|| {
            format!(
                "the pre-report did not end with Start / Drop ({}: {})",
                report.status,
                report.error.unwrap_or_default()
            )
        })?;
    let verdict = report
        .result
        .as_ref()
        .and_then(|r| r.get("verdict"))
        .cloned()
        .unwrap_or_default();
    writeln!(
        out,
        "prereport #{} on {} ({} {}): verdict {verdict}; the CEO (simulated) presses Start",
        task.id, candidate.name, candidate.chain, candidate.address
    )?;
    let start = offer
        .kind
        .index_of(DecisionOption::Start)
        .context("an operation start offers Start")?;
    let answer = DecisionAnswer {
        option: start,
        by: "ceo (simulated)".to_owned(),
    };
    let answered = store.answer_decision(offer.id, &answer, now).await?;
    match engine.apply_decision(&answered).await? {
        Applied::OperationStarted(started) => Ok(*started),
        other => anyhow::bail!("Start did not start the operation: {other:?}"),
    }
}

/// Day 0: the recurring jobs every 5 minutes and the CEO's messages.
async fn simulate_day(
    rehearsal: &mut Rehearsal,
    j0: DateTime<Utc>,
    say: &mut dyn FnMut(DateTime<Utc>, String),
) -> anyhow::Result<()> {
    let messages: Vec<&str> = CEO_MESSAGES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    for (minutes, message) in CEO_AT_MINUTES.iter().zip(messages) {
        let at = j0 + TimeDelta::minutes(*minutes);
        rehearsal.run_until(at - DAY_TICK, DAY_TICK, say).await?;
        rehearsal.ceo_message(message, say).await?;
    }
    rehearsal
        .run_until(j0 + TimeDelta::hours(24) - DAY_TICK, DAY_TICK, say)
        .await?;
    Ok(())
}

/// The public log with each call's cost, by agent.
async fn summary(
    store: &Store,
    operation: ulias_core::domain::OperationId,
    j0: DateTime<Utc>,
    alerts: &RecordingAlerter,
    quiet: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let log = store.public_log_of_operation(operation).await?;
    writeln!(out, "public log of the operation ({} rows):", log.len())?;
    if !quiet {
        for row in &log {
            writeln!(
                out,
                "  {}  {:<9} {:>8} (cloud eq. {:>8})  {}",
                since_j0(j0, row.created_at),
                row.entry.scope.agent.as_deref().unwrap_or("-"),
                row.entry.cost.to_string(),
                row.entry.cloud_equivalent_cost.to_string(),
                row.entry.summary
            )?;
        }
    }
    let spent = store.operation_spend(operation).await?;
    writeln!(out, "operation cost: {spent}")?;
    let alerts = alerts.alerts();
    // The rest of this report is English: so are its alerts.
    let texts = Texts::new(Locale::En);
    writeln!(out, "alerts     {} sent", alerts.len())?;
    if !quiet {
        for alert in alerts
            .iter()
            .filter(|a| a.level != ulias_agents::alerts::AlertLevel::Info)
        {
            let (title, body) = render(&texts, alert);
            writeln!(out, "  {:?}: {title} — {body}", alert.level)?;
        }
    }
    Ok(())
}

/// The model pools: the recorded answers, or a real server.
fn pools(settings: &Settings, args: &SimulateArgs) -> anyhow::Result<(Pools, String)> {
    let mut pool = settings
        .models
        .pools
        .first()
        .cloned()
        .context("No model pool is configured")?;
    pool.protocol = ToolProtocol::Json;
    let (client, model): (SharedModelClient, String) = match &args.model {
        Some(base_url) => {
            let timeouts = Timeouts::from_settings(&settings.models, &settings.http);
            let client = OpenAiClient::new(base_url, None, &pool.model, timeouts)?;
            (Arc::new(client), format!("{} at {base_url}", pool.model))
        }
        None => (
            Arc::new(ScriptedClient::from_json(ANSWERS)?),
            "recorded answers (fixtures/simulation/answers.json)".to_owned(),
        ),
    };
    Ok((Pools::new(vec![ModelPool::new(pool, client)]), model))
}

/// The token the rehearsal takes over.
fn demo_candidate() -> Candidate {
    Candidate {
        chain: "base".to_owned(),
        address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".to_owned(),
        name: "PEPE2 (simulated)".to_owned(),
        ticker: Some("PEP2".to_owned()),
    }
}

/// `J+3 14:15`.
fn since_j0(j0: DateTime<Utc>, at: DateTime<Utc>) -> String {
    let elapsed = at - j0;
    let minutes = elapsed.num_minutes();
    format!(
        "J+{:<2} {:02}:{:02}",
        minutes / 1440,
        (minutes % 1440) / 60,
        minutes % 60
    )
}
