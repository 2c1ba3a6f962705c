//! One read-only `SELECT` written by an agent (the Analyst's and the
//! Strategist's `sql_query`), run with four locks:
//!
//! 1. [`check_select`] refuses, by its words, anything but a single
//!    `SELECT`/`WITH` statement: no `;` but a trailing one, no comment, no
//!    word that writes, attaches, sets, or reaches files or the catalog,
//!    and no name of a table or column that holds secrets ([`SECRET_NAMES`]);
//! 2. the statement runs inside a read-only transaction (PostgreSQL:
//!    `SET TRANSACTION READ ONLY`; SQLite: `PRAGMA query_only` on that
//!    connection, reset before it goes back to the pool), rolled back;
//! 3. a time limit (PostgreSQL: `statement_timeout`; SQLite: a progress
//!    handler that interrupts the statement);
//! 4. a row cap, applied by wrapping the statement (`LIMIT cap + 1`).

use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::{Column, Connection, Row, TypeInfo, ValueRef};

use super::{Backend, Store, StoreError};

/// Tables and columns that hold secrets (the X accounts' encrypted tokens,
/// open captchas' answers): a statement naming one is refused.
pub const SECRET_NAMES: &[&str] = &[
    "x_accounts",
    "token_nonce",
    "token_ciphertext",
    "refresh_nonce",
    "refresh_ciphertext",
    "group_captchas",
];

/// Words a read-only statement never needs: writes, schema changes,
/// transaction control, settings, and functions that read files, run
/// other SQL or dump the database (`query_to_xml`, `pg_read_file`).
const FORBIDDEN_WORDS: &[&str] = &[
    "insert",
    "update",
    "delete",
    "merge",
    "upsert",
    "into",
    "drop",
    "create",
    "alter",
    "truncate",
    "attach",
    "detach",
    "vacuum",
    "reindex",
    "analyze",
    "grant",
    "revoke",
    "copy",
    "begin",
    "commit",
    "rollback",
    "savepoint",
    "release",
    "set",
    "reset",
    "lock",
    "listen",
    "notify",
    "call",
    "do",
    "execute",
    "prepare",
    "deallocate",
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fts3_tokenizer",
    "dblink",
    "current_setting",
    "set_config",
];

/// Prefixes of names refused for the same reasons (`pragma_table_info`,
/// `pg_read_file`, `lo_import`, `database_to_xml`, `sqlite_…`).
const FORBIDDEN_PREFIXES: &[&str] = &["pragma", "pg_", "lo_", "sqlite_"];
const FORBIDDEN_INFIXES: &[&str] = &["xml"];

/// Why a statement is not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// What a read-only query returned.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRows {
    /// The column names (empty when no row came back).
    pub columns: Vec<String>,
    /// The rows, each with one value per column (blobs as `"<N bytes>"`).
    pub rows: Vec<Vec<Value>>,
    /// More rows matched than the cap.
    pub truncated: bool,
}

/// The statement without its trailing `;` when it is one read-only
/// `SELECT` or `WITH` statement that names no secret, else why not.
pub fn check_select(sql: &str) -> Result<&str, Refused> {
    let statement = sql.trim().trim_end_matches(';').trim_end();
    if statement.is_empty() {
        return Err(Refused("the query is empty".into()));
    }
    if statement.contains(';') {
        return Err(Refused("one statement only: no `;` inside".into()));
    }
    if statement.contains("--") || statement.contains("/*") {
        return Err(Refused("no comments in the query".into()));
    }
    // PostgreSQL's U&"…" names can spell any word with escapes.
    if statement.contains("&\"") || statement.contains("&'") || statement.contains('\\') {
        return Err(Refused("no escaped names or strings".into()));
    }
    let words: Vec<String> = statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    match words.first().map(String::as_str) {
        Some("select" | "with") => {}
        _ => return Err(Refused("only a SELECT (or WITH … SELECT) may run".into())),
    }
    for word in &words {
        if SECRET_NAMES.contains(&word.as_str()) {
            return Err(Refused(format!(
                "`{word}` holds secrets and cannot be read"
            )));
        }
        let forbidden = FORBIDDEN_WORDS.contains(&word.as_str())
            || FORBIDDEN_PREFIXES.iter().any(|p| word.starts_with(p))
            || FORBIDDEN_INFIXES.iter().any(|i| word.contains(i));
        if forbidden {
            return Err(Refused(format!(
                "`{word}` is not allowed in a read-only query \
                 (words are checked everywhere, strings included)"
            )));
        }
    }
    Ok(statement)
}

impl Store {
    /// Runs `sql` read-only (see the module's locks), returning at most
    /// `max_rows` rows. A refused statement, an SQL error or the time limit
    /// is [`StoreError::Invalid`] with the reason.
    pub async fn read_only_query(
        &self,
        sql: &str,
        max_rows: usize,
        limit: Duration,
    ) -> Result<QueryRows, StoreError> {
        let statement = check_select(sql).map_err(|e| StoreError::Invalid(e.0))?;
        match &self.backend {
            Backend::Sqlite(pool) => sqlite_query(pool, statement, max_rows, limit).await,
            Backend::Postgres(pool) => postgres_query(pool, statement, max_rows, limit).await,
        }
    }
}

fn timed_out(limit: Duration) -> StoreError {
    StoreError::Invalid(format!(
        "the query ran past {} s and was stopped",
        limit.as_secs_f64()
    ))
}

/// An error of the agent's statement, told back with the database's words.
fn sql_error(error: sqlx::Error, limit: Duration) -> StoreError {
    let text = match &error {
        sqlx::Error::Database(db) => db.message().to_owned(),
        other => other.to_string(),
    };
    if text.contains("interrupted") || text.contains("statement timeout") {
        return timed_out(limit);
    }
    StoreError::Invalid(format!("the query failed: {text}"))
}

fn capped(sql: &str, max_rows: usize) -> String {
    format!("SELECT * FROM ({sql}) AS q LIMIT {}", max_rows + 1)
}

async fn sqlite_query(
    pool: &sqlx::SqlitePool,
    statement: &str,
    max_rows: usize,
    limit: Duration,
) -> Result<QueryRows, StoreError> {
    let mut conn = pool.acquire().await?;
    sqlx::query("PRAGMA query_only = ON")
        .execute(&mut *conn)
        .await?;
    let deadline = Instant::now() + limit;
    conn.lock_handle()
        .await?
        .set_progress_handler(1000, move || Instant::now() < deadline);
    let result = async {
        let mut tx = conn.begin().await?;
        let rows = sqlx::query(sqlx::AssertSqlSafe(capped(statement, max_rows)))
            .fetch_all(&mut *tx)
            .await;
        tx.rollback().await?;
        Ok::<_, sqlx::Error>(rows)
    }
    .await;
    let restored = async {
        conn.lock_handle().await?.remove_progress_handler();
        sqlx::query("PRAGMA query_only = OFF")
            .execute(&mut *conn)
            .await?;
        Ok::<(), sqlx::Error>(())
    }
    .await;
    if restored.is_err() {
        // Never hand a read-only (or interrupting) connection back to the pool.
        drop(conn.detach());
    }
    let rows = result?.map_err(|e| sql_error(e, limit))?;
    let columns = rows
        .first()
        .map(|row| row.columns().iter().map(|c| c.name().to_owned()).collect())
        .unwrap_or_default();
    let mut values = Vec::with_capacity(rows.len());
    for row in rows.iter().take(max_rows) {
        let mut cells = Vec::with_capacity(row.len());
        for i in 0..row.len() {
            cells.push(sqlite_value(row, i)?);
        }
        values.push(cells);
    }
    Ok(QueryRows {
        columns,
        truncated: rows.len() > max_rows,
        rows: values,
    })
}

/// One SQLite value as JSON, by the value's own type (SQLite's columns
/// have none of their own).
fn sqlite_value(row: &sqlx::sqlite::SqliteRow, i: usize) -> Result<Value, StoreError> {
    let raw = row.try_get_raw(i)?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let kind = raw.type_info().name().to_owned();
    Ok(match kind.as_str() {
        "INTEGER" => Value::from(row.try_get_unchecked::<i64, _>(i)?),
        "REAL" => Value::from(row.try_get_unchecked::<f64, _>(i)?),
        "BLOB" => {
            let bytes: Vec<u8> = row.try_get_unchecked(i)?;
            Value::from(format!("<{} bytes>", bytes.len()))
        }
        _ => Value::from(row.try_get_unchecked::<String, _>(i)?),
    })
}

async fn postgres_query(
    pool: &sqlx::PgPool,
    statement: &str,
    max_rows: usize,
    limit: Duration,
) -> Result<QueryRows, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION READ ONLY")
        .execute(&mut *tx)
        .await?;
    let millis = limit.as_millis().max(1);
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SET LOCAL statement_timeout = {millis}"
    )))
    .execute(&mut *tx)
    .await?;
    // PostgreSQL renders every type as JSON itself; the other columns only
    // give their names, in order.
    let sql = format!(
        "SELECT row_to_json(q)::text AS ulias_row, q.* FROM ({statement}) AS q LIMIT {}",
        max_rows + 1
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .fetch_all(&mut *tx)
        .await;
    tx.rollback().await?;
    let rows = rows.map_err(|e| sql_error(e, limit))?;
    let columns: Vec<String> = rows
        .first()
        .map(|row| {
            row.columns()
                .iter()
                .skip(1)
                .map(|c| c.name().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut values = Vec::with_capacity(rows.len());
    for row in rows.iter().take(max_rows) {
        let text: String = row.try_get(0)?;
        let object: serde_json::Map<String, Value> = serde_json::from_str(&text)
            .map_err(|e| StoreError::Invalid(format!("unreadable row: {e}")))?;
        let cells = columns
            .iter()
            .map(|c| object.get(c).cloned().unwrap_or(Value::Null))
            .collect();
        values.push(cells);
    }
    Ok(QueryRows {
        columns,
        truncated: rows.len() > max_rows,
        rows: values,
    })
}

#[cfg(test)]
mod tests {
    use super::check_select;

    #[test]
    fn only_one_select_that_names_no_secret_passes() {
        for ok in [
            "SELECT agent, COUNT(*) FROM tasks GROUP BY agent",
            "  with t AS (SELECT 1 AS x) SELECT x FROM t;  ",
            "SELECT replace(title, 'a', 'b') FROM objectives",
        ] {
            assert!(check_select(ok).is_ok(), "{ok}");
        }
        for refused in [
            "UPDATE tasks SET status = 'failed'",
            "SELECT 1; SELECT 2",
            "SELECT 1; DROP TABLE tasks",
            "PRAGMA table_info(tasks)",
            "SELECT * FROM pragma_table_info('tasks')",
            "SELECT token_ciphertext FROM x_accounts",
            "SELECT * FROM \"X_ACCOUNTS\"",
            "SELECT * FROM U&\"x\\005faccounts\"",
            "WITH d AS (DELETE FROM tasks RETURNING id) SELECT * FROM d",
            "SELECT * INTO copy FROM tasks",
            "SELECT pg_read_file('/etc/passwd')",
            "SELECT query_to_xml('select 1', true, true, '')",
            "SELECT 1 -- hidden",
            "ATTACH DATABASE 'x.db' AS x",
            "",
        ] {
            assert!(check_select(refused).is_err(), "{refused}");
        }
    }
}
