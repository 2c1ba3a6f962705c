//! `faq_lookup`: the entries of the operation's FAQ (the `faq` section the
//! CM keeps, `{"entries": [{"question", "answer"}]}`) that share the most
//! words with a question. Read-only; the operation is the task's own.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Effect, ToolContext, ToolError, TypedTool};

/// The section the FAQ lives in.
pub const FAQ_SECTION: &str = "faq";
/// The most entries one lookup returns.
const MOST: usize = 3;

/// Looks a question up in the operation's FAQ.
pub struct FaqLookup;

/// Arguments of `faq_lookup`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FaqArgs {
    /// The question, in the asker's words.
    pub question: String,
}

/// One entry of the FAQ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FaqEntry {
    pub question: String,
    pub answer: String,
}

/// The FAQ section as the CM writes it.
#[derive(Debug, Default, Deserialize)]
struct FaqSection {
    #[serde(default)]
    entries: Vec<FaqEntry>,
}

/// What the lookup found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FaqFound {
    /// The section to cite as a source (`faq`), with its version.
    pub section: String,
    /// 0 when the FAQ was never written.
    pub version: u32,
    /// The closest entries, best first (none when nothing matches).
    pub entries: Vec<FaqEntry>,
}

#[async_trait]
impl TypedTool for FaqLookup {
    const NAME: &'static str = "faq_lookup";
    const DESCRIPTION: &'static str =
        "Find the entries of the operation's FAQ closest to a question.";
    const EFFECT: Effect = Effect::Read;
    type Args = FaqArgs;
    type Output = FaqFound;

    async fn call(&self, ctx: &ToolContext, args: FaqArgs) -> Result<FaqFound, ToolError> {
        let latest = ctx
            .store
            .latest_section(ctx.task.operation_id, FAQ_SECTION)
            .await?;
        let (version, entries) = match latest {
            Some(file) => (file.version, entries_of(&file.content)),
            None => (0, Vec::new()),
        };
        Ok(FaqFound {
            section: FAQ_SECTION.to_owned(),
            version,
            entries: closest(&args.question, entries),
        })
    }
}

/// The entries of a FAQ section: `{"entries": [...]}` or the list itself.
fn entries_of(content: &Value) -> Vec<FaqEntry> {
    if let Ok(list) = serde_json::from_value::<Vec<FaqEntry>>(content.clone()) {
        return list;
    }
    serde_json::from_value::<FaqSection>(content.clone())
        .map(|s| s.entries)
        .unwrap_or_default()
}

/// The entries sharing words with the question, most shared first.
fn closest(question: &str, entries: Vec<FaqEntry>) -> Vec<FaqEntry> {
    let asked = words(question);
    let mut scored: Vec<(usize, FaqEntry)> = entries
        .into_iter()
        .map(|entry| {
            let known = words(&format!("{} {}", entry.question, entry.answer));
            (asked.iter().filter(|w| known.contains(w)).count(), entry)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().take(MOST).map(|(_, e)| e).collect()
}

/// Lowercase words of 3 letters or more.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_closest_entries_come_first_and_unrelated_ones_not_at_all() {
        let content = json!({"entries": [
            {"question": "What is the contract address?", "answer": "See the pinned message."},
            {"question": "Is there a tax?", "answer": "No buy or sell tax."},
            {"question": "Who runs the project?", "answer": "The community, since the takeover."},
        ]});
        let found = closest("what is the token's contract address", entries_of(&content));
        assert_eq!(found[0].question, "What is the contract address?");
        assert!(found.iter().all(|e| e.question != "Is there a tax?"));
        assert!(closest("wen lambo", entries_of(&content)).is_empty());
    }

    #[test]
    fn a_faq_written_as_a_bare_list_is_read_too() {
        let content = json!([{"question": "Tax?", "answer": "None at all."}]);
        assert_eq!(entries_of(&content).len(), 1);
        assert!(entries_of(&json!("free text")).is_empty());
    }
}
