//! Who may do what, from the settings: the CEO, the team, and everyone else.

use ulias_core::settings::TelegramSettings;

/// A person's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Commands by message, answers decisions (and may do what the team does).
    Ceo,
    /// Approves or rejects public outputs.
    Team,
    /// Anyone else: refused politely, audited.
    Stranger,
}

/// The roles and chats of the settings.
#[derive(Debug, Clone)]
pub struct Roles {
    ceo: Vec<i64>,
    team: Vec<i64>,
    pub ceo_chat: Option<i64>,
    pub team_chat: Option<i64>,
    pub log_channel: Option<i64>,
    pub groups: Vec<i64>,
}

impl Roles {
    pub fn from_settings(telegram: &TelegramSettings) -> Self {
        Self {
            ceo: telegram.users.ceo.clone(),
            team: telegram.users.team.clone(),
            ceo_chat: telegram
                .chats
                .ceo
                .or_else(|| telegram.users.ceo.first().copied()),
            team_chat: telegram.chats.team,
            log_channel: telegram.chats.log_channel,
            groups: telegram.groups.iter().map(|g| g.chat_id).collect(),
        }
    }

    /// The role of the user `id`.
    pub fn of(&self, id: i64) -> Role {
        if self.ceo.contains(&id) {
            Role::Ceo
        } else if self.team.contains(&id) {
            Role::Team
        } else {
            Role::Stranger
        }
    }

    /// Whether `id` may approve or reject public outputs.
    pub fn may_review(&self, id: i64) -> bool {
        matches!(self.of(id), Role::Ceo | Role::Team)
    }

    /// Whether `id` may answer the CEO's decisions and questions.
    pub fn may_decide(&self, id: i64) -> bool {
        self.of(id) == Role::Ceo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceo_and_the_team_are_known_everyone_else_is_a_stranger() {
        let mut settings = TelegramSettings::default();
        settings.users.ceo = vec![1];
        settings.users.team = vec![2];
        let roles = Roles::from_settings(&settings);
        assert_eq!(roles.of(1), Role::Ceo);
        assert_eq!(roles.of(2), Role::Team);
        assert_eq!(roles.of(3), Role::Stranger);
        assert!(roles.may_review(1) && roles.may_review(2) && !roles.may_review(3));
        assert!(roles.may_decide(1) && !roles.may_decide(2));
        assert_eq!(roles.ceo_chat, Some(1), "the CEO's private chat by default");
    }
}
