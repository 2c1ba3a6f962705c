//! Statuses and their legal transitions, in one place each.

/// A status with a fixed set of legal transitions.
pub trait Status: Copy + Eq + std::fmt::Display + 'static {
    /// Every status.
    const ALL: &'static [Self];

    /// Whether a record in `self` may move to `next`.
    fn can_become(self, next: Self) -> bool;

    /// Whether no transition leaves this status.
    fn is_terminal(self) -> bool {
        !Self::ALL.iter().any(|&next| self.can_become(next))
    }

    /// The statuses from which `next` may be reached.
    fn predecessors(next: Self) -> Vec<Self> {
        Self::ALL
            .iter()
            .copied()
            .filter(|from| from.can_become(next))
            .collect()
    }
}

text_enum! {
    /// Where an objective stands.
    pub enum ObjectiveStatus as "objective status" {
        /// Created, not yet planned.
        Pending => "pending",
        /// The Director is decomposing it into tasks.
        Planning => "planning",
        /// Its tasks are running.
        InProgress => "in_progress",
        /// Waiting for a CEO decision.
        Blocked => "blocked",
        /// Every task finished well.
        Completed => "completed",
        /// Given up; see its error.
        Failed => "failed",
        /// Stopped by the CEO.
        Cancelled => "cancelled",
    }
}

impl Status for ObjectiveStatus {
    const ALL: &'static [Self] = ObjectiveStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use ObjectiveStatus::*;
        matches!(
            (self, next),
            (Pending, Planning | InProgress | Failed | Cancelled)
                | (Planning, InProgress | Blocked | Failed | Cancelled)
                | (InProgress, Blocked | Completed | Failed | Cancelled)
                | (Blocked, Planning | InProgress | Failed | Cancelled)
        )
    }
}

text_enum! {
    /// Where a task stands in the engine.
    pub enum TaskStatus as "task status" {
        /// Waiting for its due time or its dependencies.
        Pending => "pending",
        /// Ready; a worker may claim it.
        Queued => "queued",
        /// Claimed by a worker holding a lease.
        Running => "running",
        /// Waiting for a validation or a CEO decision.
        Blocked => "blocked",
        /// Finished with a result.
        Completed => "completed",
        /// Finished without a result, retries spent.
        Failed => "failed",
        /// Stopped before it finished.
        Cancelled => "cancelled",
    }
}

impl Status for TaskStatus {
    const ALL: &'static [Self] = TaskStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use TaskStatus::*;
        matches!(
            (self, next),
            (Pending, Queued | Cancelled)
                | (Queued, Running | Cancelled)
                // Running → Queued: a lease that expired; → Pending: a retry
                // waiting for its backoff.
                | (Running, Pending | Queued | Blocked | Completed | Failed | Cancelled)
                | (Blocked, Queued | Completed | Failed | Cancelled)
        )
    }
}

text_enum! {
    /// Where a CEO decision stands.
    pub enum DecisionStatus as "decision status" {
        /// Waiting for the CEO.
        Pending => "pending",
        /// The CEO chose an option.
        Answered => "answered",
        /// The timeout passed and the auto-decision applied.
        TimedOut => "timed_out",
        /// No longer needed.
        Cancelled => "cancelled",
    }
}

impl Status for DecisionStatus {
    const ALL: &'static [Self] = DecisionStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use DecisionStatus::*;
        matches!((self, next), (Pending, Answered | TimedOut | Cancelled))
    }
}

text_enum! {
    /// Where a public output stands in the team's validation queue.
    pub enum ValidationStatus as "validation status" {
        /// Waiting for the team's buttons.
        Pending => "pending",
        /// Approved: a publication job exists for it.
        Approved => "approved",
        /// Rejected with a reason; the step re-runs.
        Rejected => "rejected",
        /// Withdrawn (its operation stopped).
        Cancelled => "cancelled",
    }
}

impl Status for ValidationStatus {
    const ALL: &'static [Self] = ValidationStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use ValidationStatus::*;
        matches!((self, next), (Pending, Approved | Rejected | Cancelled))
    }
}

text_enum! {
    /// Where a playbook operation stands.
    pub enum OperationStatus as "operation status" {
        /// Created, its steps not yet laid out.
        Planned => "planned",
        /// Its steps run on their schedule.
        Running => "running",
        /// Held by the team: no new step starts.
        Paused => "paused",
        /// Stopped for good (a no-go, or the team); its open steps are cancelled.
        Stopped => "stopped",
        /// Every step finished.
        Completed => "completed",
    }
}

impl Status for OperationStatus {
    const ALL: &'static [Self] = OperationStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use OperationStatus::*;
        matches!(
            (self, next),
            (Planned, Running | Stopped)
                | (Running, Paused | Stopped | Completed)
                | (Paused, Running | Stopped)
        )
    }
}

text_enum! {
    /// Where a publication job (the outbox) stands.
    pub enum PublicationStatus as "publication status" {
        /// Waiting for a publisher (perhaps for a rate-limit window).
        Pending => "pending",
        /// A publisher took it and is sending.
        Sending => "sending",
        /// Published; the external id is stored.
        Sent => "sent",
        /// Found mid-send after a crash: never re-sent without the team.
        Unknown => "unknown",
        /// The publisher gave up; see the error.
        Failed => "failed",
        /// The team chose not to send it.
        Cancelled => "cancelled",
    }
}

impl Status for PublicationStatus {
    const ALL: &'static [Self] = PublicationStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use PublicationStatus::*;
        matches!(
            (self, next),
            (Pending, Sending | Cancelled)
                // A posting rule (one X post per 30 minutes) delays it.
                | (Sending, Sent | Unknown | Failed | Pending)
                // The team's "send again" button.
                | (Unknown | Failed, Pending | Cancelled)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terminal<S: Status>() -> Vec<S> {
        S::ALL.iter().copied().filter(|s| s.is_terminal()).collect()
    }

    #[test]
    fn finished_records_never_move_again() {
        use TaskStatus::*;
        assert_eq!(terminal::<TaskStatus>(), vec![Completed, Failed, Cancelled]);
        assert_eq!(
            terminal::<ObjectiveStatus>(),
            vec![
                ObjectiveStatus::Completed,
                ObjectiveStatus::Failed,
                ObjectiveStatus::Cancelled
            ]
        );
        assert_eq!(
            terminal::<PublicationStatus>(),
            vec![PublicationStatus::Sent, PublicationStatus::Cancelled]
        );
    }

    #[test]
    fn a_task_reaches_running_only_from_the_queue() {
        assert_eq!(
            TaskStatus::predecessors(TaskStatus::Running),
            vec![TaskStatus::Queued]
        );
        assert!(!TaskStatus::Pending.can_become(TaskStatus::Running));
    }

    #[test]
    fn statuses_parse_back_from_their_stored_text() {
        for &status in TaskStatus::ALL {
            assert_eq!(status.as_str().parse::<TaskStatus>(), Ok(status));
        }
        let err = "done".parse::<TaskStatus>().err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "`done` is not a task status (expected one of: pending, queued, running, \
                 blocked, completed, failed, cancelled)"
            )
        );
    }
}
