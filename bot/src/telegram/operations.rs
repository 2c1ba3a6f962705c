//! The CEO's operations from the chat: `/takeover` and `/prereport` run
//! the Scanner's pre-report on a candidate (its answer comes back as the
//! objective's answer, and `/takeover` then asks Start / Drop); `/ops` and
//! `/op` show them; `/pause`, `/resume` and `/stop` act on one (stopping
//! asks first, with buttons); `/bind` in a community group ties the group
//! to an operation. Nothing here starts an operation: only the CEO's Start
//! does, through the engine's decision path.

use chrono::{DateTime, Utc};
use ulias_agents::engine::Applied;
use ulias_agents::operations::{Candidate, PrereportPurpose, request_prereport};
use ulias_core::domain::{
    DecisionKind, DecisionOption, NewDecision, ObjectiveId, Operation, OperationId,
    OperationStatus, Task, TaskStatus, Urgency, ValidationStatus,
};
use ulias_core::settings::BudgetSettings;
use ulias_core::store::StoreError;

use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};
use ulias_agents::schemas::{Interpretation, TakeoverAsk};

use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::{Common, Work};
use crate::i18n::{Texts, arg};

/// The chains a takeover can read (EVM: a `0x` contract address).
const EVM_CHAINS: [&str; 3] = ["base", "ethereum", "bsc"];
/// Chains named but not read yet.
const UNSUPPORTED_CHAINS: [&str; 1] = ["solana"];
/// The most steps `/op` lists.
const TIMELINE_STEPS: usize = 20;

/// `/takeover <chain> <address> [name]` or `/prereport <chain> <address>`,
/// answered in `chat`: the report comes back as a reply to this answer
/// (the objective's progress message), and `/takeover`'s Start / Drop
/// after it.
pub async fn ask_prereport(
    common: &Common,
    work: &Work,
    chat: i64,
    args: &str,
    purpose: PrereportPurpose,
) -> Result<Option<ObjectiveId>, HandlerError> {
    let (text, objective) = prereport(common, work, args, purpose).await?;
    let sent = common.bot.send_message(ChatId(chat), clip(&text)).await?;
    if let Some(objective) = objective {
        common
            .store
            .set_progress_message(objective, chat, i64::from(sent.id.0))
            .await?;
    }
    Ok(objective)
}

/// A takeover asked in words: confirmed with buttons, never started on a
/// guess (the Interpreter's reading is kept with the interaction).
pub async fn offer_takeover(
    common: &Common,
    chat: i64,
    interaction: i64,
    ask: &TakeoverAsk,
) -> HandlerResult {
    let t = &common.texts;
    let name = ask.name.clone().unwrap_or_else(|| short(&ask.address));
    let text = t.with(
        "takeover-confirm",
        &[
            arg("name", name),
            arg("chain", &ask.chain),
            arg("address", &ask.address),
        ],
    );
    let buttons = [(true, "takeover-run"), (false, "takeover-not")].map(|(run, key)| {
        InlineKeyboardButton::callback(t.get(key), Button::Takeover { interaction, run }.data())
    });
    common
        .bot
        .send_message(ChatId(chat), clip(&text))
        .reply_markup(InlineKeyboardMarkup::new([buttons]))
        .await?;
    Ok(())
}

/// The CEO's answer to a takeover asked in words.
pub async fn on_takeover_button(
    common: &Common,
    work: &Work,
    press: &Press,
    interaction: i64,
    run: bool,
) -> Result<Option<String>, HandlerError> {
    let asked = common.store.interaction(interaction).await?;
    if asked.objective_id.is_some() || asked.feedback.is_some() {
        return Ok(Some(common.texts.get("decision-already")));
    }
    let reading = asked
        .interpreted_as
        .and_then(|v| serde_json::from_value::<Interpretation>(v).ok())
        .and_then(|r| r.takeover);
    let Some(ask) = reading else {
        return Ok(None);
    };
    if let Some((chat, message)) = press.message {
        common
            .bot
            .edit_message_reply_markup(ChatId(chat), message)
            .await?;
    }
    if !run {
        common
            .store
            .settle_interaction(interaction, None, Some("takeover declined"))
            .await?;
        return Ok(Some(common.texts.get("takeover-dropped")));
    }
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    let args = format!(
        "{} {} {}",
        ask.chain,
        ask.address,
        ask.name.unwrap_or_default()
    );
    let objective = ask_prereport(common, work, chat, &args, PrereportPurpose::OfferStart).await?;
    let note = objective.is_none().then_some("takeover refused");
    common
        .store
        .settle_interaction(interaction, objective, note)
        .await?;
    Ok(None)
}

async fn prereport(
    common: &Common,
    work: &Work,
    args: &str,
    purpose: PrereportPurpose,
) -> Result<(String, Option<ObjectiveId>), HandlerError> {
    let t = &common.texts;
    let usage = match purpose {
        PrereportPurpose::OfferStart => "takeover-usage",
        PrereportPurpose::ReportOnly => "prereport-usage",
    };
    let candidate = match parse_candidate(args) {
        Ok(candidate) => candidate,
        Err(Refusal::Usage) => return Ok((t.get(usage), None)),
        Err(Refusal::Chain(chain)) => {
            let chains = arg("chains", EVM_CHAINS.join(", "));
            return Ok((
                t.with("takeover-chain-unknown", &[arg("chain", chain), chains]),
                None,
            ));
        }
        Err(Refusal::Unsupported(chain)) => {
            return Ok((
                t.with("takeover-chain-unsupported", &[arg("chain", chain)]),
                None,
            ));
        }
        Err(Refusal::Address(address)) => {
            return Ok((
                t.with("takeover-address-invalid", &[arg("address", address)]),
                None,
            ));
        }
    };
    match request_prereport(&common.store, &candidate, purpose, common.clock.now()).await {
        Ok((objective, _)) => {
            work.wake.notify_one();
            let key = match purpose {
                PrereportPurpose::OfferStart => "takeover-prereport-queued",
                PrereportPurpose::ReportOnly => "prereport-queued",
            };
            let text = t.with(
                key,
                &[
                    arg("objective", objective.id),
                    arg("name", &candidate.name),
                    arg("chain", &candidate.chain),
                    arg("address", &candidate.address),
                ],
            );
            Ok((text, Some(objective.id)))
        }
        Err(StoreError::Taken { operation, .. }) => {
            let live = common.store.operation(OperationId::new(operation)).await?;
            Ok((taken(t, &live), None))
        }
        Err(error) => Err(error.into()),
    }
}

/// Why a `/takeover` line was not understood.
#[derive(Debug, PartialEq)]
enum Refusal {
    Usage,
    Chain(String),
    Unsupported(String),
    Address(String),
}

fn parse_candidate(args: &str) -> Result<Candidate, Refusal> {
    let mut words = args.split_whitespace();
    let (Some(chain), Some(address)) = (words.next(), words.next()) else {
        return Err(Refusal::Usage);
    };
    let chain = chain.to_lowercase();
    if UNSUPPORTED_CHAINS.contains(&chain.as_str()) {
        return Err(Refusal::Unsupported(chain));
    }
    if !EVM_CHAINS.contains(&chain.as_str()) {
        return Err(Refusal::Chain(chain));
    }
    if !is_evm_address(address) {
        return Err(Refusal::Address(address.to_owned()));
    }
    let rest: Vec<&str> = words.collect();
    let name = if rest.is_empty() {
        short(address)
    } else {
        rest.join(" ")
    };
    let ticker = rest
        .first()
        .filter(|w| w.len() <= 10 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(|w| w.to_uppercase());
    Ok(Candidate {
        chain,
        address: address.to_owned(),
        name,
        ticker,
    })
}

fn is_evm_address(text: &str) -> bool {
    text.strip_prefix("0x")
        .is_some_and(|hex| hex.len() == 40 && hex.chars().all(|c| c.is_ascii_hexdigit()))
}

/// `0x5aAe…eAed`.
fn short(address: &str) -> String {
    let head: String = address.chars().take(6).collect();
    let tail: String = address
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{head}…{tail}")
}

fn taken(t: &Texts, live: &Operation) -> String {
    t.with(
        "takeover-taken",
        &[
            arg("id", live.id),
            arg("name", &live.name),
            arg("status", live.status),
        ],
    )
}

/// `/ops`: every operation, live ones first, with where it stands.
pub async fn list(common: &Common, budgets: &BudgetSettings) -> Result<String, HandlerError> {
    let t = &common.texts;
    let now = common.clock.now();
    let mut operations = common.store.operations().await?;
    operations.sort_by_key(|o| (!is_live(o), std::cmp::Reverse(o.id)));
    if operations.is_empty() {
        return Ok(t.get("ops-empty"));
    }
    let waiting = common.store.pending_validations().await?;
    let cap = budgets.operation_cap_usd;
    let mut lines = vec![t.get("ops-title")];
    for operation in &operations {
        let tasks = common.store.tasks_of_operation(operation.id).await?;
        let next = next_step(&tasks).map_or_else(
            || t.get("ops-next-none"),
            |task| format!("{} ({})", task.title, when(task.due_at)),
        );
        let validations = waiting
            .iter()
            .filter(|v| {
                v.operation_id == Some(operation.id) && v.status == ValidationStatus::Pending
            })
            .count();
        let spent = common.store.operation_spend(operation.id).await?;
        lines.push(t.with(
            "ops-line",
            &[
                arg("id", operation.id),
                arg("name", &operation.name),
                arg("status", operation.status),
                arg("day", day_of(operation, now)),
                arg("next", next),
                arg("validations", validations),
                arg("spent", spent),
                arg("cap", format!("{cap:.2}")),
            ],
        ));
    }
    Ok(lines.join("\n"))
}

/// `/op <id>`: the operation's resources and its timeline.
pub async fn show(common: &Common, args: &str) -> Result<String, HandlerError> {
    let t = &common.texts;
    let Some(id) = operation_id(args) else {
        return Ok(t.get("op-usage"));
    };
    let operation = match common.store.operation(id).await {
        Ok(operation) => operation,
        Err(StoreError::NotFound { .. }) => return Ok(t.with("op-unknown", &[arg("id", id)])),
        Err(error) => return Err(error.into()),
    };
    let now = common.clock.now();
    let groups = common.store.groups_of_operation(id).await?;
    let accounts = common.store.accounts_of_operation(id).await?;
    let none = t.get("op-none");
    let listed = |items: Vec<String>| {
        if items.is_empty() {
            none.clone()
        } else {
            items.join(", ")
        }
    };
    let mut lines = vec![
        t.with(
            "op-header",
            &[
                arg("id", operation.id),
                arg("name", &operation.name),
                arg("ticker", operation.token_symbol.clone().unwrap_or_default()),
                arg("status", operation.status),
                arg("j0", operation.j0_at.map(when).unwrap_or_default()),
                arg("day", day_of(&operation, now)),
            ],
        ),
        t.with(
            "op-resources",
            &[
                arg("chain", operation.chain.clone().unwrap_or_default()),
                arg("addresses", listed(operation.official_addresses.clone())),
                arg(
                    "groups",
                    listed(groups.iter().map(i64::to_string).collect()),
                ),
                arg("accounts", listed(accounts)),
            ],
        ),
    ];
    if let Some(vote) = common.store.latest_vote_outcome(id).await? {
        lines.push(super::votes::op_line(common, &vote));
    }
    let mut tasks = common.store.tasks_of_operation(id).await?;
    tasks.sort_by_key(|task| (task.due_at, task.id));
    for task in tasks.iter().take(TIMELINE_STEPS) {
        lines.push(t.with(
            "op-step",
            &[
                arg("mark", mark(task.status)),
                arg("due", when(task.due_at)),
                arg("title", &task.title),
                arg("status", task.status),
            ],
        ));
    }
    if tasks.len() > TIMELINE_STEPS {
        lines.push(t.with("op-more", &[arg("count", tasks.len() - TIMELINE_STEPS)]));
    }
    Ok(lines.join("\n"))
}

/// `/pause <op>` and `/resume <op>`.
pub async fn hold(common: &Common, args: &str, pause: bool) -> Result<String, HandlerError> {
    let t = &common.texts;
    let Some(id) = operation_id(args) else {
        return Ok(t.get("op-usage"));
    };
    let to = if pause {
        OperationStatus::Paused
    } else {
        OperationStatus::Running
    };
    match common
        .store
        .set_operation_status(id, to, common.clock.now())
        .await
    {
        Ok(operation) => {
            let key = if pause { "op-paused" } else { "op-resumed" };
            Ok(t.with(key, &[arg("id", id), arg("name", &operation.name)]))
        }
        Err(StoreError::NotFound { .. }) => Ok(t.with("op-unknown", &[arg("id", id)])),
        Err(StoreError::IllegalTransition { from, .. }) => {
            Ok(t.with("op-not-now", &[arg("id", id), arg("status", from)]))
        }
        Err(error) => Err(error.into()),
    }
}

/// `/stop op<id>`: asks the CEO to confirm with buttons first.
pub async fn ask_stop(common: &Common, args: &str) -> Result<String, HandlerError> {
    let t = &common.texts;
    let Some(id) = operation_id(args) else {
        return Ok(t.get("stop-usage"));
    };
    let operation = match common.store.operation(id).await {
        Ok(operation) => operation,
        Err(StoreError::NotFound { .. }) => return Ok(t.with("op-unknown", &[arg("id", id)])),
        Err(error) => return Err(error.into()),
    };
    if !is_live(&operation) {
        return Ok(t.with(
            "op-not-now",
            &[arg("id", id), arg("status", operation.status)],
        ));
    }
    let decision = NewDecision {
        operation_id: Some(id),
        recommended: Some(DecisionOption::Keep),
        urgency: Urgency::High,
        ..NewDecision::new(DecisionKind::OperationStop {
            operation: id,
            name: operation.name.clone(),
        })
    };
    let asked = common
        .store
        .create_decision(&decision, common.clock.now())
        .await?;
    Ok(t.with("op-stop-asked", &[arg("id", id), arg("decision", asked.id)]))
}

/// Tells `chat` what carrying out an answer did, when it says something.
pub async fn tell_applied(common: &Common, chat: i64, applied: Option<&Applied>) -> HandlerResult {
    let told = applied.and_then(|a| applied_text(&common.texts, a, common.clock.now()));
    if let Some(text) = told {
        common.bot.send_message(ChatId(chat), clip(&text)).await?;
    }
    Ok(())
}

/// What the CEO reads once an answer was carried out, if anything.
pub fn applied_text(t: &Texts, applied: &Applied, now: DateTime<Utc>) -> Option<String> {
    match applied {
        Applied::OperationStarted(started) => Some(t.with(
            "operation-started",
            &[
                arg("id", started.operation.id),
                arg("name", &started.operation.name),
                arg(
                    "j0",
                    started.operation.j0_at.map_or_else(|| when(now), when),
                ),
                arg("steps", started.tasks.len()),
            ],
        )),
        Applied::AlreadyRunning(live) => Some(taken(t, live)),
        Applied::OperationStopped(operation) => Some(t.with(
            "operation-stopped",
            &[arg("id", operation.id), arg("name", &operation.name)],
        )),
        Applied::ValidationOff(operation) => Some(t.with(
            "validation-toggled",
            &[
                arg("id", operation.id),
                arg("state", t.get("validation-state-off")),
            ],
        )),
        _ => None,
    }
}

/// `op3`, `#3` or `3`.
pub fn operation_id(args: &str) -> Option<OperationId> {
    let word = args.split_whitespace().collect::<String>().to_lowercase();
    let digits = word.trim_start_matches("op").trim_start_matches('#');
    digits.parse::<i64>().ok().map(OperationId::new)
}

fn is_live(operation: &Operation) -> bool {
    matches!(
        operation.status,
        OperationStatus::Planned | OperationStatus::Running | OperationStatus::Paused
    )
}

fn next_step(tasks: &[Task]) -> Option<&Task> {
    tasks
        .iter()
        .filter(|t| matches!(t.status, TaskStatus::Pending | TaskStatus::Queued))
        .min_by_key(|t| (t.due_at, t.id))
}

fn day_of(operation: &Operation, now: DateTime<Utc>) -> i64 {
    operation.j0_at.map_or(0, |j0| (now - j0).num_days().max(0))
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn mark(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Completed => "✓",
        TaskStatus::Failed => "✗",
        TaskStatus::Cancelled => "⏹",
        TaskStatus::Running => "▶",
        TaskStatus::Blocked => "⏸",
        _ => "·",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADDRESS: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

    #[test]
    fn a_takeover_line_names_its_chain_contract_and_name() {
        let candidate = parse_candidate(&format!("Base {ADDRESS} PEP2")).unwrap();
        assert_eq!(
            candidate,
            Candidate {
                chain: "base".into(),
                address: ADDRESS.into(),
                name: "PEP2".into(),
                ticker: Some("PEP2".into()),
            }
        );
        let unnamed = parse_candidate(&format!("bsc {ADDRESS}")).unwrap();
        assert_eq!(unnamed.name, "0x5aAe…eAed");
        assert_eq!(unnamed.ticker, None);
    }

    #[test]
    fn a_bad_takeover_line_says_what_is_wrong() {
        let cases = [
            ("", Refusal::Usage),
            ("base", Refusal::Usage),
            (
                &format!("tron {ADDRESS}") as &str,
                Refusal::Chain("tron".into()),
            ),
            (
                &format!("solana {ADDRESS}"),
                Refusal::Unsupported("solana".into()),
            ),
            ("base 0x1234", Refusal::Address("0x1234".into())),
        ];
        for (line, refusal) in cases {
            assert_eq!(parse_candidate(line), Err(refusal), "{line}");
        }
    }

    #[test]
    fn an_operation_is_named_by_its_number_with_or_without_op() {
        for text in ["3", "#3", "op3", "op 3", "OP3"] {
            assert_eq!(operation_id(text), Some(OperationId::new(3)), "{text}");
        }
        assert_eq!(operation_id("three"), None);
    }
}
