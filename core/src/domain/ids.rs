//! Id newtypes. Ids are small integers so people can type them (`/stop 42`)
//! and so they fit Telegram's 64-byte button payloads.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

macro_rules! id_newtype {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(i64);

        impl $name {
            /// Wraps a raw id as read from the store.
            pub const fn new(raw: i64) -> Self {
                Self(raw)
            }

            /// The raw id, as stored.
            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl FromStr for $name {
            type Err = std::num::ParseIntError;

            /// Accepts `42` and `#42`, as people write them.
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                text.trim().trim_start_matches('#').parse().map(Self)
            }
        }
    };
}

id_newtype!(
    /// An objective's id.
    ObjectiveId
);
id_newtype!(
    /// A task's id.
    TaskId
);
id_newtype!(
    /// A CEO decision's id.
    DecisionId
);
id_newtype!(
    /// A validation's id (one public output awaiting the team).
    ValidationId
);
id_newtype!(
    /// A publication job's id (the outbox).
    PublicationId
);
id_newtype!(
    /// A playbook operation's id (one token takeover).
    OperationId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_as_people_type_them() {
        assert_eq!("#42".parse::<TaskId>(), Ok(TaskId::new(42)));
        assert_eq!(" 7 ".parse::<DecisionId>(), Ok(DecisionId::new(7)));
        assert!("forty-two".parse::<TaskId>().is_err());
    }
}
id_newtype!(
    /// A proposal's id (an objective the organisation suggests).
    ProposalId
);
id_newtype!(
    /// A CEO profile entry's id.
    ProfileEntryId
);
