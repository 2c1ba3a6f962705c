//! Content rules: what a message says, judged on its normalised form.

use aho_corasick::{AhoCorasick, AhoCorasickKind};

mod families;

use crate::address::{Address, find_addresses};
use crate::normalize::{Normalized, skeleton_of};
use crate::verdict::{Rule, Verdict};
use families::FAMILIES;

/// The compiled phrase families.
pub struct Phrases {
    matcher: AhoCorasick,
    rules: Vec<Rule>,
    phrases: Vec<String>,
}

impl Phrases {
    /// Compiles the families plus a group's own stop phrases.
    pub fn new(stop_phrases: &[String]) -> Result<Self, aho_corasick::BuildError> {
        let mut rules = Vec::new();
        let mut phrases = Vec::new();
        for (rule, family) in FAMILIES {
            for phrase in *family {
                rules.push(*rule);
                phrases.push(skeleton_of(&phrase.to_lowercase()));
            }
        }
        for phrase in stop_phrases.iter().filter(|p| !p.trim().is_empty()) {
            rules.push(Rule::StopPhrase);
            phrases.push(skeleton_of(&phrase.to_lowercase()));
        }
        let matcher = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(&phrases)?;
        Ok(Self {
            matcher,
            rules,
            phrases,
        })
    }

    /// Adds a hit per family (and for stop phrases) found in the message:
    /// 1 for a family (1.5 for "DM me" scams), plus 0.5 for each further
    /// phrase of it; 3 for a group's own stop phrase.
    pub fn judge(&self, text: &Normalized, trusted: bool, verdict: &mut Verdict) {
        let mut found: Vec<(Rule, Vec<usize>)> = Vec::new();
        for hit in self.matcher.find_overlapping_iter(&text.skeleton) {
            let index = hit.pattern().as_usize();
            let rule = self.rules[index];
            if trusted && rule != Rule::StopPhrase {
                continue;
            }
            match found.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, phrases)) if !phrases.contains(&index) => phrases.push(index),
                Some(_) => {}
                None => found.push((rule, vec![index])),
            }
        }
        for (rule, phrases) in found {
            let base = match rule {
                Rule::StopPhrase => 3.0,
                Rule::DmScam => 1.5,
                _ => 1.0,
            };
            let score = base + 0.5 * (phrases.len() - 1) as f32;
            let quoted: Vec<String> = phrases
                .iter()
                .map(|i| format!("\"{}\"", self.phrases[*i]))
                .collect();
            verdict.hit(rule, score, quoted.join(", "));
        }
    }
}

/// "@mike yeah DM me, see you at the meetup": a message that names first
/// the one it answers, and no one else. Its "DM me" is said to them, and
/// the account is not where it sends people.
pub(crate) fn answers_by_name(text: &str) -> bool {
    text.split_whitespace()
        .next()
        .is_some_and(|word| word.starts_with('@') && word.len() > 1)
        && text.matches('@').count() == 1
}

/// Links, mentions, forwards, emoji, disguises.
pub fn judge_form(
    text: &Normalized,
    forwarded: bool,
    allowed_domains: &[String],
    max_emoji: usize,
    verdict: &mut Verdict,
) {
    let words: Vec<&str> = text.text.split_whitespace().collect();
    let links: Vec<&str> = words.iter().copied().filter(|w| is_link(w)).collect();
    let mentions = words
        .iter()
        .filter(|w| w.starts_with('@') && w.len() > 1)
        .count();
    let phrase = verdict.hits.iter().any(|hit| hit.rule.is_phrase());
    for link in &links {
        let host = host_of(link);
        if !allowed_domains
            .iter()
            .any(|d| host == *d || host.ends_with(&format!(".{d}")))
        {
            // A link is bait when it invites to another Telegram group, or
            // comes with a scam phrase; alone, people share links all day.
            let invite = matches!(host.as_str(), "t.me" | "telegram.me");
            let score = if invite || phrase { 1.0 } else { 0.5 };
            verdict.hit(Rule::ForeignLink, score, format!("link to {host}"));
            break;
        }
    }
    let substance = words.len() - links.len() - mentions;
    if !links.is_empty() && substance == 0 {
        verdict.hit(Rule::OnlyLink, 0.5, "the message is only a link");
    } else if mentions > 0 && substance == 0 && links.is_empty() {
        verdict.hit(Rule::OnlyMention, 1.0, "the message is only a mention");
    }
    let is_bot = |account: &str| {
        account
            .trim_end_matches(|c: char| !c.is_alphanumeric())
            .ends_with("bot")
    };
    let answers_someone = answers_by_name(&text.text);
    if let Some(account) = words
        .iter()
        .find(|w| w.starts_with('@') && w.len() > 1 && (phrase || is_bot(w)))
        .filter(|w| is_bot(w) || !answers_someone)
    {
        verdict.hit(Rule::Contact, 0.5, format!("sends people to {account}"));
    }
    if text.shouting {
        verdict.hit(Rule::Shouting, 1.0, "mostly capitals");
    }
    if forwarded {
        verdict.hit(Rule::Forward, 0.5, "forwarded from elsewhere");
    }
    let emoji = text.text.chars().filter(|c| is_emoji(*c)).count();
    if emoji > max_emoji {
        verdict.hit(Rule::Emoji, 1.0, format!("{emoji} emoji"));
    }
    if let Some(word) = text.mixed_script_words.first() {
        // One such word may be a typo; several are a disguise.
        let count = text.mixed_script_words.len();
        verdict.hit(
            Rule::MixedScript,
            count.min(3) as f32,
            format!("{count} word(s) mixing alphabets, such as \"{word}\""),
        );
    }
    if text.invisible >= 3 {
        verdict.hit(
            Rule::Invisible,
            1.0,
            format!("{} invisible characters", text.invisible),
        );
    }
}

/// Addresses in the message that are not the operation's official ones.
pub fn foreign_addresses(raw: &str, official: &[String]) -> Vec<Address> {
    // Addresses are case-sensitive (checksums, base58): read the raw text.
    let mut found = find_addresses(raw);
    if found.is_empty() {
        return found;
    }
    let official: Vec<String> = official
        .iter()
        .filter_map(|a| crate::address::parse_address(a.trim()))
        .map(|a| a.canonical)
        .collect();
    found.retain(|address| !official.contains(&address.canonical));
    found
}

/// "Is this the right pair? https://dexscreener.com/bsc/0x6Afb…": a
/// question about a page of an explorer or a chart, whose link holds the
/// address: no address given to send to or buy.
pub fn asks_about_its_page(raw: &str, address: &Address) -> bool {
    raw.contains(['?', '¿', '？'])
        && raw
            .split_whitespace()
            .any(|word| word.contains(&address.text) && crate::scam::is_well_known_link(word))
}

pub(crate) fn is_link(word: &str) -> bool {
    let word = word.trim_matches(is_wrapping);
    // Every link has a dot or starts with a scheme: most words have neither.
    if !word.contains('.') && !word.starts_with("http") && !word.starts_with("hxxp") {
        return false;
    }
    // "hxxps://" is a link written so that no filter reads it.
    let schemes = ["http://", "https://", "hxxp://", "hxxps://", "www."];
    if schemes.iter().any(|scheme| word.starts_with(scheme)) {
        return true;
    }
    if word.starts_with("t.me/") || word.starts_with("telegram.me/") {
        return true;
    }
    // A bare domain with a path or a common spam TLD, read without
    // allocating: most words have no dot and stop at the first test.
    let host = word.split('/').next().unwrap_or_default();
    if !host.contains('.') {
        return false;
    }
    let mut labels = 0;
    let mut last = "";
    for label in host.split('.') {
        if label.is_empty() || !label.chars().all(|c| c.is_alphanumeric() || c == '-') {
            return false;
        }
        if labels == 0 && label.chars().all(|c| c.is_ascii_digit()) {
            return false;
        }
        labels += 1;
        last = label;
    }
    labels >= 2 && (2..=10).contains(&last.len()) && last.chars().all(|c| c.is_ascii_alphabetic())
}

/// Punctuation that wraps a word in a sentence: `(`, `"`, a final `.`.
pub(crate) fn is_wrapping(c: char) -> bool {
    matches!(
        c,
        '(' | ')' | '[' | ']' | '<' | '>' | ',' | '.' | '!' | '?' | '"' | '\''
    )
}

/// The host of a link, lowercase, without `www.`.
pub fn host_of(link: &str) -> String {
    let link = link.trim_matches(is_wrapping);
    let rest = link.split_once("://").map_or(link, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit('@').next().unwrap_or(host);
    let host = host.split(':').next().unwrap_or(host);
    host.trim_start_matches("www.").to_lowercase()
}

pub(crate) fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0x1F000..=0x1F2FF | 0x2B00..=0x2BFF)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn rules_of(text: &str) -> Vec<&'static str> {
        let mut verdict = Verdict::default();
        let normalized = normalize(text);
        Phrases::new(&["send me 1 eth".to_owned()]).unwrap().judge(
            &normalized,
            false,
            &mut verdict,
        );
        judge_form(
            &normalized,
            false,
            &["example.org".to_owned()],
            8,
            &mut verdict,
        );
        verdict.rules()
    }

    #[test]
    fn each_phrase_family_fires_in_each_language() {
        let table: &[(&str, &[&str])] = &[
            ("DM me for the whitelist", &["dm_scam"]),
            ("Écrivez-moi en privé pour le bonus", &["dm_scam"]),
            ("Пишите в лс, быстро", &["dm_scam"]),
            ("Passive income, I earn money from home", &["easy_money"]),
            ("Заработок без вложений", &["easy_money"]),
            (
                "I made $5600 on this investment platform, no scam",
                &["easy_money"],
            ),
            ("Join our VIP signals group", &["promotion"]),
            ("Rejoignez notre groupe VIP", &["promotion"]),
            ("Если интересно, напиши мне", &["dm_scam"]),
            ("info in my profile, link in bio", &["dm_scam"]),
            ("just send me 1 ETH and get 2 back", &["stop_phrase"]),
        ];
        for (text, expected) in table {
            assert_eq!(rules_of(text), *expected, "{text}");
        }
    }

    #[test]
    fn disguised_spellings_still_fire() {
        assert_eq!(
            rules_of("j\u{043E}in \u{043E}ur vip gr\u{043E}up"),
            ["promotion", "mixed_script"]
        );
        assert_eq!(rules_of("d\u{200B}m me now"), ["dm_scam"]);
    }

    #[test]
    fn one_word_mixing_alphabets_may_be_a_typo_several_are_a_disguise() {
        let score = |text: &str| {
            let mut verdict = Verdict::default();
            judge_form(&normalize(text), false, &[], 8, &mut verdict);
            verdict.score()
        };
        // "iPadе" with a Cyrillic е: a Russian ending, or a disguise.
        assert_eq!(score("у меня на iPadе всё работает"), 1.0);
        assert_eq!(score("Xopoший дoxoд каждый день"), 2.0);
        assert_eq!(score("у меня на iPad всё работает"), 0.0);
    }

    #[test]
    fn links_mentions_and_emoji() {
        assert_eq!(
            rules_of("https://claim-rewards.xyz/x"),
            ["foreign_link", "only_link"]
        );
        assert_eq!(
            rules_of("read https://docs.example.org/faq first"),
            Vec::<&str>::new()
        );
        assert_eq!(rules_of("@someone"), ["only_mention"]);
        assert_eq!(
            rules_of("https://t.me/+Zq9xWv3kLm"),
            ["foreign_link", "only_link"]
        );
        assert_eq!(
            rules_of("DM me or ask @helper_desk"),
            ["dm_scam", "contact"]
        );
        assert_eq!(
            rules_of("ask @alice or try @prices_bot for charts"),
            ["contact"]
        );
        assert_eq!(rules_of("ask @alice about the charts"), Vec::<&str>::new());
        assert_eq!(
            rules_of("СРОЧНО ПОКУПАЙ ТОКЕН, ОСТАЛОСЬ МАЛО МЕСТ"),
            ["shouting"]
        );
        assert_eq!(rules_of("🚀🚀🚀🚀🚀🚀🚀🚀🚀 moon"), ["emoji"]);
        assert_eq!(
            rules_of("the chart looks fine today, thanks"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn hosts_drop_scheme_www_credentials_and_port() {
        assert_eq!(host_of("https://www.Example.org:8443/a?b"), "example.org");
        assert_eq!(host_of("http://user@evil.io/x"), "evil.io");
    }
}
