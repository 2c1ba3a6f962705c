//! The publish gate of utilities and their release. A utility may be
//! proposed (a validation) and released (after approval) only when the
//! latest run of its template in the operation passed, with the very
//! config proposed: checked when the validation is created and again at
//! publish time. The release copies the run's `dist/` to its target: a
//! site sub-page (`<data_dir>/sites/operation-<id>/utilities/<template>/`)
//! or a bot command's folder (`<data_dir>/utilities/operation-<id>/commands/<command>/`,
//! served by the bot in the operation's group).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;
use ulias_core::domain::OperationId;
use ulias_core::store::{Store, StoreError, UtilityRun, UtilityRunStatus};

use super::templates::{self, PublishKind, UtilityTemplate};

/// Why a utility may not be proposed or released.
#[derive(Debug, thiserror::Error)]
pub enum NotReleasable {
    #[error("{0} is not a utility template (one of: {1})")]
    UnknownTemplate(String, String),
    #[error("a utility belongs to an operation: this task has none")]
    NoOperation,
    #[error("{0} was never built and tested: call utility_build_and_test first")]
    NeverTested(String),
    #[error(
        "the latest run of {template} {status}: only a utility whose latest run passed is published"
    )]
    NotPassed {
        template: String,
        status: UtilityRunStatus,
    },
    #[error(
        "the config proposed for {0} is not the one its passing run tested: build and test this config first"
    )]
    OtherConfig(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The passed run that makes `template` with `config` releasable.
pub async fn releasable(
    store: &Store,
    operation: Option<OperationId>,
    template: &str,
    config: &Value,
) -> Result<UtilityRun, NotReleasable> {
    if templates::get(template).is_none() {
        return Err(NotReleasable::UnknownTemplate(
            template.to_owned(),
            templates::names().join(", "),
        ));
    }
    let operation = operation.ok_or(NotReleasable::NoOperation)?;
    let run = store
        .latest_utility_run(operation, template)
        .await?
        .ok_or_else(|| NotReleasable::NeverTested(template.to_owned()))?;
    if run.status != UtilityRunStatus::Passed {
        return Err(NotReleasable::NotPassed {
            template: template.to_owned(),
            status: run.status,
        });
    }
    if &run.config != config {
        return Err(NotReleasable::OtherConfig(template.to_owned()));
    }
    Ok(run)
}

/// Where a release went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Released {
    pub template: String,
    pub description: String,
    pub kind: PublishKind,
    /// The command (`/quiz`), for a command; the folder, for a site page.
    pub to: String,
    pub folder: PathBuf,
    /// False when this run had been released already (nothing copied again).
    pub newly: bool,
}

/// Why a release failed.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error(transparent)]
    NotReleasable(#[from] NotReleasable),
    #[error("the run's dist/ cannot be copied to {0}: {1}")]
    Copy(String, std::io::Error),
}

/// Releases the approved utility: its passing run's `dist/` to its target.
pub async fn release(
    store: &Store,
    data_dir: &Path,
    operation: Option<OperationId>,
    template: &str,
    config: &Value,
    now: DateTime<Utc>,
) -> Result<Released, ReleaseError> {
    let run = releasable(store, operation, template, config).await?;
    let found = templates::get(template).ok_or_else(|| {
        NotReleasable::UnknownTemplate(template.to_owned(), templates::names().join(", "))
    })?;
    let (folder, to) = target(data_dir, run.operation_id, found);
    if let Some(to) = run.released_to.clone() {
        return Ok(released(found, to, folder, false));
    }
    let dist = run
        .dir
        .as_deref()
        .map(|dir| Path::new(dir).join("dist"))
        .unwrap_or_default();
    copy_dir(&dist, &folder)
        .await
        .map_err(|e| ReleaseError::Copy(folder.display().to_string(), e))?;
    let newly = store
        .mark_utility_released(run.id, &to, now)
        .await
        .map_err(NotReleasable::from)?;
    Ok(released(found, to, folder, newly))
}

fn released(template: &UtilityTemplate, to: String, folder: PathBuf, newly: bool) -> Released {
    Released {
        template: template.name().to_owned(),
        description: template.manifest.description.clone(),
        kind: template.manifest.publish,
        to,
        folder,
        newly,
    }
}

/// The folder a template's `dist/` goes to, and what it is released as.
pub fn target(
    data_dir: &Path,
    operation: OperationId,
    template: &UtilityTemplate,
) -> (PathBuf, String) {
    let id = operation.get();
    match (&template.manifest.publish, &template.manifest.command) {
        (PublishKind::Command, Some(command)) => (
            super::run::runs_folder(data_dir, operation)
                .join("commands")
                .join(command),
            format!("/{command}"),
        ),
        _ => {
            let folder = crate::site::page_dir(data_dir, id, template.name());
            let to = folder.display().to_string();
            (folder, to)
        }
    }
}

/// Replaces `to` with a copy of `from` (files and folders).
async fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    if tokio::fs::metadata(to).await.is_ok() {
        tokio::fs::remove_dir_all(to).await?;
    }
    let mut pending = vec![(from.to_owned(), to.to_owned())];
    while let Some((from, to)) = pending.pop() {
        tokio::fs::create_dir_all(&to).await?;
        let mut entries = tokio::fs::read_dir(&from).await?;
        while let Some(entry) = entries.next_entry().await? {
            let kind = entry.file_type().await?;
            let target = to.join(entry.file_name());
            if kind.is_dir() {
                pending.push((entry.path(), target));
            } else if kind.is_file() {
                tokio::fs::copy(entry.path(), target).await?;
            }
        }
    }
    Ok(())
}
