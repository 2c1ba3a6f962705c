//! What a Telegram handler or loop may fail with (logged by the
//! dispatcher or the loop); one enum, so callers that care (the outbox
//! asking whether a failed send may still have been delivered) match on it.

use ulias_core::store::StoreError;

/// A handler's or a loop's failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The Bot API refused, or could not be reached.
    #[error(transparent)]
    Telegram(#[from] teloxide::RequestError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A chat's dialogue state could not be read or kept.
    #[error(transparent)]
    Dialogue(#[from] super::storage::DialogueError),
    /// The engine could not apply an answer.
    #[error(transparent)]
    Apply(#[from] ulias_agents::engine::ApplyError),
    /// X refused, or could not be reached.
    #[error(transparent)]
    X(#[from] crate::x::XError),
    /// An ntfy request failed.
    #[error(transparent)]
    Ntfy(#[from] crate::ntfy::NtfyError),
    /// An HTTP stream broke off (the ntfy replies).
    #[error(transparent)]
    Http(#[from] reqwest::Error),
    /// A summary or a chart could not be made.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// A group's anti-spam policy does not compile.
    #[error(transparent)]
    Policy(#[from] ulias_antispam::PolicyError),
    /// Work handed to a blocking thread did not come back.
    #[error(transparent)]
    Join(#[from] tokio::task::JoinError),
    /// A number did not fit the type Telegram or the store wants.
    #[error(transparent)]
    Conversion(#[from] std::num::TryFromIntError),
    /// Anything else, said in words.
    #[error("{0}")]
    Message(String),
}

/// A handler's result.
pub type HandlerResult = Result<(), HandlerError>;

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        Self::Message(message)
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        Self::Message(message.to_owned())
    }
}
