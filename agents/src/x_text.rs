//! X's weighted length (twitter-text, config v3): a post holds 280 units;
//! a URL counts 23 whatever its length; characters in the Latin and
//! general-punctuation ranges count 1, the rest (CJK, emoji, …) count 2; an
//! emoji sequence (joined with ZWJ, skin tones, variation selectors) counts
//! once. Checked when a post becomes a validation, so the team never
//! approves a post X will refuse.

/// The most units one post may weigh.
pub const MAX_WEIGHT: usize = 280;
/// What any URL weighs (X shortens every link to t.co).
const URL_WEIGHT: usize = 23;

/// Code point ranges that weigh 1 (twitter-text v3 `ranges`).
const LIGHT: [(u32, u32); 4] = [(0, 4351), (8192, 8205), (8208, 8223), (8242, 8247)];

/// The weighted length of `text`.
pub fn weighted_length(text: &str) -> usize {
    text.split_inclusive(char::is_whitespace)
        .map(|word| match url_len(word.trim_end()) {
            Some(len) => URL_WEIGHT + weigh(&word[len..]),
            None => weigh(word),
        })
        .sum()
}

/// Whether a post's text fits.
pub fn fits(text: &str) -> bool {
    weighted_length(text) <= MAX_WEIGHT
}

/// The length in bytes of the URL `word` is, without the punctuation
/// that ends a sentence after it; `None` when it is no URL.
fn url_len(word: &str) -> Option<usize> {
    let url = word.trim_end_matches(['.', ',', '!', '?', ')', ';', ':']);
    let lower = url.to_ascii_lowercase();
    let host_and_path = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .or_else(|| lower.starts_with("www.").then_some(lower.as_str()))?;
    let host = host_and_path.split('/').next().unwrap_or_default();
    (host.contains('.') && host.len() > 3).then_some(url.len())
}

fn weigh(text: &str) -> usize {
    let mut total = 0;
    let mut joined = false;
    for c in text.chars() {
        let code = u32::from(c);
        if is_emoji_modifier(code) {
            continue;
        }
        if code == 0x200D {
            joined = true;
            continue;
        }
        if std::mem::take(&mut joined) && !is_light(code) {
            // The second half of a ZWJ sequence: the sequence counted once.
            continue;
        }
        total += if is_light(code) { 1 } else { 2 };
    }
    total
}

fn is_light(code: u32) -> bool {
    LIGHT
        .iter()
        .any(|&(low, high)| (low..=high).contains(&code))
}

/// Variation selectors and skin tones: part of the emoji before them.
fn is_emoji_modifier(code: u32) -> bool {
    (0xFE00..=0xFE0F).contains(&code) || (0x1F3FB..=0x1F3FF).contains(&code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_emoji_and_cjk_weigh_as_x_counts_them() {
        let cases: &[(&str, usize)] = &[
            ("hello", 5),
            ("héllo wörld", 11),
            ("https://example.org/a/very/long/path/that/goes/on", 23),
            ("see https://example.org.", 4 + 23 + 1),
            ("www.example.org rocks", 23 + 6),
            ("日本語", 6),
            ("🚀", 2),
            ("👍🏽", 2),
            ("👨‍👩‍👧", 2),
            ("❤️", 2),
            ("a — b", 5),
        ];
        for (text, weight) in cases {
            assert_eq!(weighted_length(text), *weight, "{text:?}");
        }
        assert!(fits(&"a".repeat(280)));
        assert!(!fits(&"a".repeat(281)));
        assert!(!fits(&"🚀".repeat(141)), "141 emoji weigh 282");
        assert!(fits(&format!(
            "{} https://x.org/{}",
            "a".repeat(256),
            "p".repeat(300)
        )));
    }
}
