//! Decisions put to the CEO: answered by button or ntfy, or decided
//! automatically at their timeout. A decision is stored as its kind's name
//! and values (`kind`, `args`), its options as their names; an answer is
//! an index into them. Carrying an answer out is recorded (`applied_at`):
//! the engine applies every answered or timed-out decision not applied yet,
//! each on its own, so a crash between the answer and its effect, or one
//! failing decision among several, is applied again at the next tick.

use chrono::{DateTime, Utc};
use sqlx::types::Json;

use super::time::{count, from_ms, from_opt_ms, parse_text, to_ms};
use super::{Store, StoreError, with_pool};
use serde_json::Value;

use crate::domain::{
    Decision, DecisionAnswer, DecisionId, DecisionKind, DecisionOption, DecisionStatus,
    NewDecision, ObjectiveId, OperationId, TaskId,
};

macro_rules! decision_columns {
    () => {
        "id, kind, args, task_id, objective_id, operation_id, question, context_summary, options, \
         recommended, urgency, status, timeout_at, auto_decision, response, responded_by, \
         responded_at, applied_at, created_at"
    };
}

const SELECT_DECISION: &str = concat!(
    "SELECT ",
    decision_columns!(),
    " FROM decisions WHERE id = $1"
);

const TIME_OUT_DUE: &str = concat!(
    "UPDATE decisions SET status = $1, response = auto_decision, responded_by = $2, \
     responded_at = $3 WHERE status = $4 AND timeout_at <= $3 RETURNING ",
    decision_columns!()
);

/// Who answered a decision that timed out.
pub const TIMEOUT_RESPONDER: &str = "timeout";

#[derive(sqlx::FromRow)]
struct DecisionRow {
    id: i64,
    kind: String,
    args: Option<Json<Value>>,
    task_id: Option<i64>,
    objective_id: Option<i64>,
    operation_id: Option<i64>,
    question: String,
    context_summary: String,
    options: Json<Vec<String>>,
    recommended: Option<i64>,
    urgency: String,
    status: String,
    timeout_at: Option<i64>,
    auto_decision: Option<i64>,
    response: Option<i64>,
    responded_by: Option<String>,
    responded_at: Option<i64>,
    applied_at: Option<i64>,
    created_at: i64,
}

impl TryFrom<DecisionRow> for Decision {
    type Error = StoreError;

    fn try_from(row: DecisionRow) -> Result<Self, StoreError> {
        let index = |value: Option<i64>| value.map(|v| count("decision option", v)).transpose();
        let kind = match row.args {
            Some(Json(args)) => serde_json::from_value::<DecisionKind>(args)
                .map_err(|e| StoreError::corrupt("decision kind", e))?,
            None => DecisionKind::Legacy {
                question: row.question,
                options: row.options.0,
            },
        };
        if kind.name() != row.kind {
            return Err(StoreError::corrupt(
                "decision kind",
                format!("column says {}, values say {}", row.kind, kind.name()),
            ));
        }
        Ok(Decision {
            id: DecisionId::new(row.id),
            kind,
            task_id: row.task_id.map(TaskId::new),
            objective_id: row.objective_id.map(ObjectiveId::new),
            operation_id: row.operation_id.map(OperationId::new),
            context_summary: row.context_summary,
            recommended: index(row.recommended)?,
            urgency: parse_text("decision urgency", &row.urgency)?,
            status: parse_text("decision status", &row.status)?,
            timeout_at: from_opt_ms(row.timeout_at)?,
            auto_decision: index(row.auto_decision)?,
            response: index(row.response)?,
            responded_by: row.responded_by,
            responded_at: from_opt_ms(row.responded_at)?,
            applied_at: from_opt_ms(row.applied_at)?,
            created_at: from_ms(row.created_at)?,
        })
    }
}

impl Store {
    /// Records a `pending` decision. Options are checked: at least two, and
    /// the recommended and automatic choices must name one of them.
    pub async fn create_decision(
        &self,
        new: &NewDecision,
        now: DateTime<Utc>,
    ) -> Result<Decision, StoreError> {
        check_options(new)?;
        let index = |option: Option<DecisionOption>| {
            option
                .and_then(|o| new.kind.index_of(o))
                .map(super::time::stored)
        };
        let options: Vec<&str> = new.kind.options().iter().map(|o| o.as_str()).collect();
        let args = serde_json::to_value(&new.kind)
            .map_err(|e| StoreError::Invalid(format!("decision values: {e}")))?;
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO decisions (kind, args, task_id, objective_id, operation_id, question, \
                 context_summary, options, recommended, urgency, status, timeout_at, \
                 auto_decision, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
            )
            .bind(new.kind.name())
            .bind(Json(&args))
            .bind(new.task_id.map(TaskId::get))
            .bind(new.objective_id.map(ObjectiveId::get))
            .bind(new.operation_id.map(OperationId::get))
            .bind(new.kind.locale_key())
            .bind(new.context_summary.as_str())
            .bind(Json(&options))
            .bind(index(new.recommended))
            .bind(new.urgency.as_str())
            .bind(DecisionStatus::Pending.as_str())
            .bind(new.timeout_at.map(to_ms))
            .bind(index(new.auto_decision))
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        self.decision(DecisionId::new(id)).await
    }

    /// The decision with this id.
    pub async fn decision(&self, id: DecisionId) -> Result<Decision, StoreError> {
        let row: Option<DecisionRow> = with_pool!(self, |pool| {
            sqlx::query_as(SELECT_DECISION)
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "decision",
            id: id.get(),
        })?
        .try_into()
    }

    /// Records the CEO's answer. Only a pending decision can be answered:
    /// a second tap, or a tap after the timeout, is refused.
    pub async fn answer_decision(
        &self,
        id: DecisionId,
        answer: &DecisionAnswer,
        now: DateTime<Utc>,
    ) -> Result<Decision, StoreError> {
        let current = self.decision(id).await?;
        if answer.option >= current.kind.option_count() {
            return Err(StoreError::Invalid(format!(
                "decision #{id} has {} options; option {} does not exist",
                current.kind.option_count(),
                answer.option + 1
            )));
        }
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE decisions SET status = $1, response = $2, responded_by = $3, \
                 responded_at = $4 WHERE id = $5 AND status = $6",
            )
            .bind(DecisionStatus::Answered.as_str())
            .bind(super::time::stored(answer.option))
            .bind(answer.by.as_str())
            .bind(to_ms(now))
            .bind(id.get())
            .bind(DecisionStatus::Pending.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            let current = self.decision(id).await?;
            return Err(StoreError::illegal(
                "decision",
                id.get(),
                current.status,
                DecisionStatus::Answered,
            ));
        }
        self.decision(id).await
    }

    /// Applies the automatic choice of every pending decision whose timeout
    /// has passed, and returns them so the CEO can be told.
    pub async fn time_out_due_decisions(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<Decision>, StoreError> {
        let rows: Vec<DecisionRow> = with_pool!(self, |pool| {
            sqlx::query_as(TIME_OUT_DUE)
                .bind(DecisionStatus::TimedOut.as_str())
                .bind(TIMEOUT_RESPONDER)
                .bind(to_ms(now))
                .bind(DecisionStatus::Pending.as_str())
                .fetch_all(pool)
                .await
        })?;
        let mut decisions = rows
            .into_iter()
            .map(Decision::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        decisions.sort_by_key(|d| d.id);
        Ok(decisions)
    }
}

impl Store {
    /// Pending decisions not shown to the CEO yet (no message), oldest first.
    pub async fn unposted_decisions(&self) -> Result<Vec<Decision>, StoreError> {
        self.decisions_where(
            concat!(
                "SELECT ",
                decision_columns!(),
                " FROM decisions WHERE status = $1 AND message_id IS NULL ORDER BY id"
            ),
            DecisionStatus::Pending.as_str(),
        )
        .await
    }

    /// Answered or timed-out decisions whose answer is not carried out
    /// yet, oldest first.
    pub async fn unapplied_decisions(&self) -> Result<Vec<Decision>, StoreError> {
        let rows: Vec<DecisionRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                decision_columns!(),
                " FROM decisions WHERE status IN ($1, $2) AND applied_at IS NULL ORDER BY id"
            ))
            .bind(DecisionStatus::Answered.as_str())
            .bind(DecisionStatus::TimedOut.as_str())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Decision::try_from).collect()
    }

    /// Records that a decision's answer was carried out. False when it
    /// already was (another worker, or an earlier pass).
    pub async fn mark_decision_applied(
        &self,
        id: DecisionId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query("UPDATE decisions SET applied_at = $1 WHERE id = $2 AND applied_at IS NULL")
                .bind(to_ms(now))
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(updated == 1)
    }

    /// The decisions of one kind asked about a task, oldest first.
    pub async fn decisions_of_task(
        &self,
        task: TaskId,
        kind: &str,
    ) -> Result<Vec<Decision>, StoreError> {
        let rows: Vec<DecisionRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                decision_columns!(),
                " FROM decisions WHERE task_id = $1 AND kind = $2 ORDER BY id"
            ))
            .bind(task.get())
            .bind(kind)
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Decision::try_from).collect()
    }

    /// Pending decisions, oldest first.
    pub async fn pending_decisions(&self) -> Result<Vec<Decision>, StoreError> {
        self.decisions_where(
            concat!(
                "SELECT ",
                decision_columns!(),
                " FROM decisions WHERE status = $1 ORDER BY id"
            ),
            DecisionStatus::Pending.as_str(),
        )
        .await
    }

    /// Decisions that timed out and were shown in a chat, oldest first.
    pub async fn timed_out_shown_decisions(&self) -> Result<Vec<(Decision, i64, i64)>, StoreError> {
        let rows: Vec<(i64, i64, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, chat_id, message_id FROM decisions \
                 WHERE status = $1 AND message_id IS NOT NULL ORDER BY id",
            )
            .bind(DecisionStatus::TimedOut.as_str())
            .fetch_all(pool)
            .await
        })?;
        let mut shown = Vec::with_capacity(rows.len());
        for (id, chat, message) in rows {
            shown.push((self.decision(DecisionId::new(id)).await?, chat, message));
        }
        Ok(shown)
    }

    /// The pending decision shown as message `message_id` in `chat_id`, if
    /// any (the CEO replied to it).
    pub async fn pending_decision_at(
        &self,
        chat_id: i64,
        message_id: i64,
    ) -> Result<Option<Decision>, StoreError> {
        let row: Option<DecisionRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                decision_columns!(),
                " FROM decisions WHERE chat_id = $1 AND message_id = $2 AND status = $3"
            ))
            .bind(chat_id)
            .bind(message_id)
            .bind(DecisionStatus::Pending.as_str())
            .fetch_optional(pool)
            .await
        })?;
        row.map(Decision::try_from).transpose()
    }

    /// Where a decision was shown, if it was.
    pub async fn decision_message(&self, id: DecisionId) -> Result<Option<(i64, i64)>, StoreError> {
        self.shown_at(
            "SELECT chat_id, message_id FROM decisions WHERE id = $1",
            id.get(),
        )
        .await
    }

    /// Records where a decision was shown.
    pub async fn set_decision_message(
        &self,
        id: DecisionId,
        chat_id: i64,
        message_id: i64,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE decisions SET chat_id = $1, message_id = $2 WHERE id = $3")
                .bind(chat_id)
                .bind(message_id)
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    async fn decisions_where(
        &self,
        sql: &'static str,
        status: &str,
    ) -> Result<Vec<Decision>, StoreError> {
        let rows: Vec<DecisionRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql).bind(status).fetch_all(pool).await
        })?;
        rows.into_iter().map(Decision::try_from).collect()
    }
}

fn check_options(new: &NewDecision) -> Result<(), StoreError> {
    let offered = new.kind.options();
    if offered.len() < 2 {
        return Err(StoreError::Invalid(format!(
            "a {} decision cannot be created",
            new.kind.name()
        )));
    }
    let foreign = |option: Option<DecisionOption>| option.is_some_and(|o| !offered.contains(&o));
    if foreign(new.recommended) || foreign(new.auto_decision) {
        return Err(StoreError::Invalid(
            "the recommended and automatic choices must be among the options".into(),
        ));
    }
    if new.timeout_at.is_some() && new.auto_decision.is_none() {
        return Err(StoreError::Invalid(
            "a decision with a timeout needs an automatic choice".into(),
        ));
    }
    Ok(())
}
