//! Normalisation: what a message says once its disguises are removed.
//! Invisible characters go, NFKC folds compatibility forms (full-width
//! letters, ligatures, styled maths letters), everything is lowercased, and
//! matching happens on the Unicode confusables skeleton (UTS #39), so a
//! Cyrillic "а" in "claim" or a "0" for an "o" no longer hides a word. A
//! word mixing alphabets is reported: it is a signal of its own.

use unicode_normalization::UnicodeNormalization;
use unicode_security::{MixedScript, skeleton};

/// A message, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// Invisible characters removed, NFKC, lowercase: for display and URLs.
    pub text: String,
    /// The confusables skeleton of `text`: for matching phrases.
    pub skeleton: String,
    /// Words written in more than one alphabet (`pаypal` with a Cyrillic а).
    pub mixed_script_words: Vec<String>,
    /// How many invisible characters were removed.
    pub invisible: usize,
}

/// Zero-width and bidirectional-control characters, soft hyphens, and other
/// format characters spammers insert to break up words.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
    )
}

/// Normalises `text`.
pub fn normalize(text: &str) -> Normalized {
    let invisible = text.chars().filter(|c| is_invisible(*c)).count();
    let visible: String = text.chars().filter(|c| !is_invisible(*c)).collect();
    let text: String = visible.nfkc().collect::<String>().to_lowercase();
    let skeleton = skeleton_of(&text);
    let mixed_script_words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| is_disguised(word))
        .map(str::to_owned)
        .collect();
    Normalized {
        text,
        skeleton,
        mixed_script_words,
        invisible,
    }
}

/// A word of one alphabet with one or two letters of another swapped in
/// (`pаypal`). Words that merely run two languages together (a URL glued
/// to a Russian word) are not disguises.
fn is_disguised(word: &str) -> bool {
    if word.chars().count() < 4 || word.is_single_script() {
        return false;
    }
    let letters = word.chars().filter(|c| c.is_alphabetic());
    let (ascii, other): (Vec<char>, Vec<char>) = letters.partition(char::is_ascii);
    (1..=2).contains(&ascii.len().min(other.len()))
}

/// The confusables skeleton of already lowercased text.
pub fn skeleton_of(text: &str) -> String {
    skeleton(text).collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disguised_words_match_their_plain_spelling() {
        let plain = normalize("claim your airdrop");
        let cyrillic_a = normalize("cl\u{0430}im your \u{0430}irdrop");
        let zero_width = normalize("cl\u{200B}aim your air\u{200D}drop");
        let full_width = normalize("ｃｌａｉｍ your airdrop");
        assert_eq!(cyrillic_a.skeleton, plain.skeleton);
        assert_eq!(zero_width.skeleton, plain.skeleton);
        assert_eq!(full_width.skeleton, plain.skeleton);
        assert_eq!(zero_width.invisible, 2);
    }

    #[test]
    fn a_word_mixing_alphabets_is_reported_and_plain_russian_is_not() {
        let mixed = normalize("Official p\u{0430}ypal support");
        assert_eq!(mixed.mixed_script_words, ["p\u{0430}ypal"]);
        let russian = normalize("Привет всем, как дела?");
        assert!(russian.mixed_script_words.is_empty());
    }
}
