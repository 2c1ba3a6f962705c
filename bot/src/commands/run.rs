//! `ulias run`: the long-running process. Not built yet: it says so.

use ulias_core::settings::Settings;

use super::Outcome;

/// Refuses to start, naming what is missing, after checking the settings
/// (already validated at load).
pub fn run(_settings: &Settings) -> anyhow::Result<Outcome> {
    Ok(Outcome::NotBuilt(
        "`ulias run` needs the Telegram surface and the task engine, which are not built \
         yet; the settings are valid (`ulias check` prints them)"
            .to_owned(),
    ))
}
