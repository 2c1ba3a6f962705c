//! Conversions between [`DateTime<Utc>`] and the stored epoch milliseconds,
//! and between Rust values and their stored integer forms.

use std::str::FromStr;

use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::Status;

/// An instant as stored: Unix milliseconds.
pub(crate) fn to_ms(instant: DateTime<Utc>) -> i64 {
    instant.timestamp_millis()
}

/// A stored instant back as a date.
pub(crate) fn from_ms(ms: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| StoreError::corrupt("timestamp", ms))
}

/// An optional stored instant back as a date.
pub(crate) fn from_opt_ms(ms: Option<i64>) -> Result<Option<DateTime<Utc>>, StoreError> {
    ms.map(from_ms).transpose()
}

/// Parses a stored enum text.
pub(crate) fn parse_text<T: FromStr>(what: &'static str, text: &str) -> Result<T, StoreError>
where
    T::Err: std::fmt::Display,
{
    text.parse().map_err(|e| StoreError::corrupt(what, e))
}

/// A stored non-negative count as a Rust integer.
pub(crate) fn count<T: TryFrom<i64>>(what: &'static str, value: i64) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| StoreError::corrupt(what, value))
}

/// A Rust count as stored (saturating: counts never reach `i64::MAX`).
pub(crate) fn stored<T: TryInto<i64>>(value: T) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

/// `'a','b'`: an SQL list of the statuses from which `to` may be reached.
/// Safe to splice into SQL: the texts are the enum's own constants.
pub(crate) fn predecessor_list<S: Status>(to: S) -> String {
    S::predecessors(to)
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(",")
}
