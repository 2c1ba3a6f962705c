//! Prompt versions of an agent (`prompt_versions`, with the figures the
//! learning loop keeps on each) and the A/B tests between two of them: at
//! most one running test per agent, enforced by a unique index.

use chrono::{DateTime, Utc};

use super::time::{count, from_ms, from_opt_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::TaskId;

/// One prompt version of an agent and its recorded figures.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptVersion {
    pub agent: String,
    pub version: u32,
    pub is_active: bool,
    pub success_rate: Option<f64>,
    pub avg_confidence: Option<f64>,
    pub avg_tokens: Option<f64>,
    pub sample_size: u64,
}

/// An A/B test between two prompt versions of one agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AbTest {
    pub id: i64,
    pub agent: String,
    pub version_a: u32,
    pub version_b: u32,
    /// The agent that started it.
    pub started_by: String,
    pub task_id: Option<TaskId>,
    pub started_at: DateTime<Utc>,
    /// `None` while it runs.
    pub stopped_at: Option<DateTime<Utc>>,
}

#[derive(sqlx::FromRow)]
struct VersionRow {
    agent: String,
    version: i64,
    is_active: bool,
    success_rate: Option<f64>,
    avg_confidence: Option<f64>,
    avg_tokens: Option<f64>,
    sample_size: i64,
}

#[derive(sqlx::FromRow)]
struct TestRow {
    id: i64,
    agent: String,
    version_a: i64,
    version_b: i64,
    started_by: String,
    task_id: Option<i64>,
    started_at: i64,
    stopped_at: Option<i64>,
}

impl TryFrom<TestRow> for AbTest {
    type Error = StoreError;

    fn try_from(row: TestRow) -> Result<Self, StoreError> {
        Ok(Self {
            id: row.id,
            agent: row.agent,
            version_a: count("version", row.version_a)?,
            version_b: count("version", row.version_b)?,
            started_by: row.started_by,
            task_id: row.task_id.map(TaskId::new),
            started_at: from_ms(row.started_at)?,
            stopped_at: from_opt_ms(row.stopped_at)?,
        })
    }
}

const TEST_COLUMNS: &str =
    "id, agent, version_a, version_b, started_by, task_id, started_at, stopped_at";

impl Store {
    /// Keeps a prompt version of `agent` (inactive); refused when that
    /// version number exists.
    pub async fn insert_prompt_version(
        &self,
        agent: &str,
        version: u32,
        prompt: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let known = self.prompt_versions(agent).await?;
        if known.iter().any(|v| v.version == version) {
            return Err(StoreError::Invalid(format!(
                "{agent} already has a prompt version {version}"
            )));
        }
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO prompt_versions (agent, version, prompt_text, created_at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(agent)
            .bind(i64::from(version))
            .bind(prompt)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|_| ())
        })?;
        Ok(())
    }

    /// Every prompt version of `agent`, oldest first.
    pub async fn prompt_versions(&self, agent: &str) -> Result<Vec<PromptVersion>, StoreError> {
        let rows: Vec<VersionRow> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT agent, version, is_active, success_rate, avg_confidence, avg_tokens, \
                 sample_size FROM prompt_versions WHERE agent = $1 ORDER BY version",
            )
            .bind(agent)
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|row| {
                Ok(PromptVersion {
                    agent: row.agent,
                    version: count("prompt version", row.version)?,
                    is_active: row.is_active,
                    success_rate: row.success_rate,
                    avg_confidence: row.avg_confidence,
                    avg_tokens: row.avg_tokens,
                    sample_size: count("sample size", row.sample_size)?,
                })
            })
            .collect()
    }

    /// Starts a test of `agent`'s versions `a` and `b`. Refused when either
    /// version does not exist, they are the same, or a test of `agent` runs.
    pub async fn start_ab_test(
        &self,
        agent: &str,
        (a, b): (u32, u32),
        started_by: &str,
        task_id: Option<TaskId>,
        now: DateTime<Utc>,
    ) -> Result<AbTest, StoreError> {
        if a == b {
            return Err(StoreError::Invalid(
                "an A/B test needs two different versions".into(),
            ));
        }
        let known: Vec<u32> = self
            .prompt_versions(agent)
            .await?
            .into_iter()
            .map(|v| v.version)
            .collect();
        if let Some(missing) = [a, b].into_iter().find(|v| !known.contains(v)) {
            return Err(StoreError::Invalid(format!(
                "{agent} has no prompt version {missing} (versions: {known:?})"
            )));
        }
        if let Some(running) = self.running_ab_test(agent).await? {
            return Err(StoreError::Invalid(format!(
                "A/B test #{} of {agent} is already running",
                running.id
            )));
        }
        let sql = format!(
            "INSERT INTO ab_tests (agent, version_a, version_b, started_by, task_id, started_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING {TEST_COLUMNS}"
        );
        let row: TestRow = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(agent)
                .bind(i64::from(a))
                .bind(i64::from(b))
                .bind(started_by)
                .bind(task_id.map(TaskId::get))
                .bind(to_ms(now))
                .fetch_one(pool)
                .await
        })?;
        row.try_into()
    }

    /// The test of `agent` that runs, if any.
    pub async fn running_ab_test(&self, agent: &str) -> Result<Option<AbTest>, StoreError> {
        let sql =
            format!("SELECT {TEST_COLUMNS} FROM ab_tests WHERE agent = $1 AND stopped_at IS NULL");
        let row: Option<TestRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(agent)
                .fetch_optional(pool)
                .await
        })?;
        row.map(AbTest::try_from).transpose()
    }

    /// Stops the running test of `agent`; returns it, or `None` when none ran.
    pub async fn stop_ab_test(
        &self,
        agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<AbTest>, StoreError> {
        let sql = format!(
            "UPDATE ab_tests SET stopped_at = $1 WHERE agent = $2 AND stopped_at IS NULL \
             RETURNING {TEST_COLUMNS}"
        );
        let row: Option<TestRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(to_ms(now))
                .bind(agent)
                .fetch_optional(pool)
                .await
        })?;
        row.map(AbTest::try_from).transpose()
    }
}
