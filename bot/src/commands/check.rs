//! `ulias check`: the settings (valid, or the load already failed naming
//! the key) summarised on one screen.

use std::collections::BTreeSet;
use std::io::Write;

use secrecy::ExposeSecret;
use ulias_agents::scheduler::Scheduler;
use ulias_agents::schemas::OutputSchemas;
use ulias_agents::spec::{Catalogue, MAX_PROMPT_TOKENS, MAX_TOOLS};
use ulias_agents::tools::{Effect, ToolRegistry, Toolbox};
use ulias_core::settings::{Settings, SettingsSource, TelegramSettings};
use ulias_core::store::{BackendKind, redact_url};

use super::Outcome;

/// Prints the summary.
pub fn run(
    settings: &Settings,
    source: &SettingsSource,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    let tools = registry(settings)?;
    let catalogue = Catalogue::load(&settings.prompts_dir, &tools, &OutputSchemas::build()?)?;
    let scheduler = Scheduler::load(&settings.prompts_dir, &catalogue)?;
    refuse_idle_jobs(&scheduler, &catalogue, &tools)?;
    for line in summary(settings, source) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "{}", catalogue_line(settings, &catalogue))?;
    for line in tools_lines(&catalogue, &tools) {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "schedule   {} recurring jobs in {}",
        scheduler.schedule.jobs.len(),
        scheduler.schedule.timezone.name()
    )?;
    Ok(Outcome::Done)
}

/// Loads and lints the agent files named by the settings.
pub fn load_catalogue(settings: &Settings) -> anyhow::Result<Catalogue> {
    let schemas = OutputSchemas::build()?;
    Ok(Catalogue::load(
        &settings.prompts_dir,
        &registry(settings)?,
        &schemas,
    )?)
}

/// Every tool, as the settings build them.
fn registry(settings: &Settings) -> anyhow::Result<ToolRegistry> {
    Ok(ToolRegistry::standard(&Toolbox::from_settings(settings)?))
}

/// Whether a call of `name` does what it says: a built tool, or a publish
/// tool (its call becomes a validation, sent by the publishers once
/// approved).
fn works(tools: &ToolRegistry, name: &str) -> bool {
    tools.built(name).is_some()
        || tools
            .spec(name)
            .is_some_and(|spec| matches!(spec.effect, Effect::Publish { .. }))
}

/// A recurring job whose agent holds no tool that works would run a model
/// every time to report on what it cannot see: refused.
fn refuse_idle_jobs(
    scheduler: &Scheduler,
    catalogue: &Catalogue,
    tools: &ToolRegistry,
) -> anyhow::Result<()> {
    for job in &scheduler.schedule.jobs {
        let Some(agent) = catalogue.get(job.agent.as_str()) else {
            continue;
        };
        if !agent.tools.iter().any(|name| works(tools, name)) {
            anyhow::bail!(
                "schedule.toml: job `{}` runs {} every time, but none of its tools is built ({}): \
                 remove the job or give the agent a tool that works",
                job.name,
                agent.name,
                agent.tools.join(", ")
            );
        }
    }
    Ok(())
}

/// How many of the tools the agent files name work, and which agents hold
/// tools that are not built yet (their calls say so at run time).
fn tools_lines(catalogue: &Catalogue, tools: &ToolRegistry) -> Vec<String> {
    let named: BTreeSet<&str> = catalogue
        .agents()
        .flat_map(|agent| agent.tools.iter().map(String::as_str))
        .collect();
    let built = named.iter().filter(|name| works(tools, name)).count();
    let mut lines = vec![format!(
        "tools      {built} built, {} not built yet (of the {} the agent files name)",
        named.len() - built,
        named.len()
    )];
    let waiting: Vec<String> = catalogue
        .agents()
        .filter_map(|agent| {
            let missing: Vec<&str> = agent
                .tools
                .iter()
                .map(String::as_str)
                .filter(|name| !works(tools, name))
                .collect();
            (!missing.is_empty()).then(|| format!("{} ({})", agent.name, missing.join(", ")))
        })
        .collect();
    if !waiting.is_empty() {
        lines.push(format!(
            "           not built, by agent: {}",
            waiting.join("; ")
        ));
    }
    lines
}

fn catalogue_line(settings: &Settings, catalogue: &Catalogue) -> String {
    let teams: BTreeSet<&str> = catalogue.agents().map(|a| a.team.as_str()).collect();
    format!(
        "prompts    {} agents in {} teams from {}: each has 1–{MAX_TOOLS} known tools, a known \
         output schema and a prompt of at most {MAX_PROMPT_TOKENS} tokens",
        catalogue.len(),
        teams.len(),
        settings.prompts_dir.display()
    )
}

/// The summary, one line per section.
pub fn summary(settings: &Settings, source: &SettingsSource) -> Vec<String> {
    let url = settings.database.url.expose_secret();
    let backend = match BackendKind::of_url(url) {
        BackendKind::Sqlite => "SQLite",
        BackendKind::Postgres => "PostgreSQL",
    };
    let mut lines = vec![
        format!("settings   {source}: valid"),
        format!("locale     {}", settings.locale),
        format!(
            "database   {backend} at {} (up to {} connections)",
            redact_url(url),
            settings.database.max_connections
        ),
    ];
    lines.extend(telegram_lines(&settings.telegram));
    lines.push(format!(
        "models     {} pool(s)",
        settings.models.pools.len()
    ));
    for pool in &settings.models.pools {
        lines.push(format!(
            "  {:<9}{} at {} — {}, {} slot(s), {} protocol, ${}/${} per 1k tokens",
            pool.name,
            pool.model,
            pool.base_url,
            pool.tier,
            pool.slots,
            pool.protocol,
            pool.price_in_per_1k,
            pool.price_out_per_1k
        ));
    }
    let budgets = &settings.budgets;
    let thresholds: Vec<String> = budgets
        .alert_thresholds_usd
        .iter()
        .map(|t| format!("${t:.2}"))
        .collect();
    lines.push(format!(
        "budgets    run ${:.2}, objective ${:.2}, operation ${:.2}, cloud ${:.2}/month, alerts at {}",
        budgets.default_run_usd,
        budgets.objective_cap_usd,
        budgets.operation_cap_usd,
        budgets.monthly_cloud_cap_usd,
        if thresholds.is_empty() {
            "none".to_owned()
        } else {
            thresholds.join(", ")
        }
    ));
    let ntfy = &settings.ntfy;
    lines.push(if ntfy.enabled() {
        format!(
            "ntfy       topic `{}` on {}, answers on `{}`{}{}",
            ntfy.topic,
            ntfy.server,
            ntfy.reply_topic,
            if ntfy.token.is_some() {
                ", token set"
            } else {
                ", no token"
            },
            if ntfy.signing_key.is_some() {
                ", answers signed"
            } else {
                ", no signing key: no A/B/C buttons"
            }
        )
    } else {
        "ntfy       off (no topic)".to_owned()
    });
    lines
}

fn telegram_lines(telegram: &TelegramSettings) -> Vec<String> {
    let Some(_) = &telegram.token else {
        return vec!["telegram   off (no token): `ulias run` will refuse to start".to_owned()];
    };
    let chat = |id: Option<i64>| id.map_or("—".to_owned(), |id| id.to_string());
    let mut lines = vec![
        format!(
            "telegram   {} via {}; {} CEO, {} team member(s)",
            telegram.mode,
            telegram.api_url,
            telegram.users.ceo.len(),
            telegram.users.team.len()
        ),
        format!(
            "  chats    ceo {}, team {}, log channel {}",
            chat(telegram.chats.ceo),
            chat(telegram.chats.team),
            chat(telegram.chats.log_channel)
        ),
    ];
    for group in &telegram.groups {
        lines.push(format!(
            "  group    {} ({}): {}, captcha {}, {} official address(es)",
            group.name,
            group.chat_id,
            group.mode,
            if group.captcha { "on" } else { "off" },
            group.official_addresses.len()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_never_shows_a_database_password() {
        let settings = Settings::from_toml(
            "[database]\nurl = \"postgres://ulias:hunter2@db/ulias\"\n",
            "test",
            [],
        )
        .unwrap();
        let text = summary(&settings, &SettingsSource::Defaults).join("\n");
        assert!(
            text.contains("PostgreSQL at postgres://ulias:***@db/ulias"),
            "{text}"
        );
        assert!(!text.contains("hunter2"));
    }
}
