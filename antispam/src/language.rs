//! Which language a message is written in, roughly: its alphabet, and for
//! Latin letters the language whose most common words it uses most. The
//! classifier keeps per-language counts with it, so that a corpus whose
//! spam and ham come from different languages does not teach it that a
//! language is spam.

/// A language, as far as the classifier needs to tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    English,
    French,
    Spanish,
    Portuguese,
    German,
    Turkish,
    /// Latin letters, none of the languages above.
    OtherLatin,
    /// Cyrillic letters (Russian, Ukrainian, …).
    Cyrillic,
    /// Any other alphabet, or no letters.
    Other,
}

impl Language {
    /// Every language, in a fixed order (an index for counts).
    pub const ALL: [Self; 9] = [
        Self::English,
        Self::French,
        Self::Spanish,
        Self::Portuguese,
        Self::German,
        Self::Turkish,
        Self::OtherLatin,
        Self::Cyrillic,
        Self::Other,
    ];

    /// Its index in [`Language::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

use std::sync::OnceLock;

/// Words read to decide: enough for a sentence or two.
const WORDS_READ: usize = 40;

/// The most common words of each Latin-script language (sorted, for binary
/// search). Words shared by several languages count for each.
const COMMON: [(Language, &[&str]); 6] = [
    (
        Language::English,
        &[
            "a", "and", "anyone", "are", "at", "be", "can", "do", "for", "from", "have", "how",
            "i", "in", "is", "it", "me", "my", "not", "of", "on", "or", "our", "the", "this", "to",
            "we", "what", "with", "you", "your",
        ],
    ),
    (
        Language::French,
        &[
            "au", "avec", "c'est", "ce", "dans", "de", "des", "du", "en", "est", "et", "il", "je",
            "la", "le", "les", "mon", "ne", "nous", "on", "pas", "pour", "qui", "sur", "un", "une",
            "vos", "votre", "vous",
        ],
    ),
    (
        Language::Spanish,
        &[
            "al", "con", "de", "del", "el", "en", "es", "la", "las", "lo", "los", "me", "mi", "no",
            "para", "por", "que", "se", "su", "tu", "un", "una", "y",
        ],
    ),
    (
        Language::Portuguese,
        &[
            "com", "da", "de", "do", "dos", "e", "em", "está", "eu", "me", "meu", "minha", "na",
            "no", "não", "o", "os", "para", "que", "se", "seu", "sua", "um", "uma", "você",
        ],
    ),
    (
        Language::German,
        &[
            "auf", "das", "dein", "deine", "der", "die", "du", "ein", "eine", "es", "hat", "ich",
            "ihr", "ihre", "ist", "mit", "nicht", "sie", "und", "wir", "zu",
        ],
    ),
    (
        Language::Turkish,
        &[
            "bana", "ben", "bir", "bu", "da", "de", "için", "mi", "mı", "ne", "siz", "var", "ve",
            "çok",
        ],
    ),
];

/// Every common word once, sorted, with the languages (bits of their
/// places in [`COMMON`]) it is common in: one search per word.
fn common_words() -> &'static [(&'static str, u8)] {
    static ALL: OnceLock<Vec<(&'static str, u8)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<(&str, u8)> = Vec::new();
        for (place, (_, words)) in COMMON.iter().enumerate() {
            all.extend(words.iter().map(|word| (*word, 1u8 << place)));
        }
        all.sort_unstable();
        all.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 |= later.1;
            }
            same
        });
        all
    })
}

/// Which bytes start a common word: a word starting otherwise (any
/// Cyrillic word) is not one, without a search.
fn common_first_bytes() -> &'static [bool; 256] {
    static FIRST: OnceLock<[bool; 256]> = OnceLock::new();
    FIRST.get_or_init(|| {
        let mut first = [false; 256];
        for (word, _) in common_words() {
            if let Some(byte) = word.bytes().next() {
                first[usize::from(byte)] = true;
            }
        }
        first
    })
}

/// The languages (bits of their places in [`COMMON`]) `word` is common in.
fn common_in(word: &str) -> u8 {
    // Common words are short: a longer one is not, without a search.
    let starts = word
        .bytes()
        .next()
        .is_some_and(|byte| common_first_bytes()[usize::from(byte)]);
    if word.len() > 8 || !starts {
        return 0;
    }
    let all = common_words();
    all.binary_search_by(|(common, _)| (*common).cmp(word))
        .ok()
        .and_then(|at| all.get(at))
        .map_or(0, |(_, languages)| *languages)
}

/// Whether `word` is one of the most common words of a language we tell
/// apart: it says which language a message is in, not what it is about.
pub fn is_common_word(word: &str) -> bool {
    common_in(word) != 0
}

/// Turkish's place in [`COMMON`].
const TURKISH: usize = 5;

/// The language of a lowercased text (links and accounts aside).
pub fn detect(text: &str) -> Language {
    let (mut latin, mut cyrillic, mut other) = (0usize, 0usize, 0usize);
    let letters = text
        .split_whitespace()
        .filter(|word| !word.contains("://") && !word.contains('/') && !word.starts_with('@'))
        .flat_map(str::chars)
        .filter(|c| crate::normalize::is_letter(*c));
    for c in letters.take(WORDS_READ * 6) {
        match c {
            'a'..='z' | '\u{00C0}'..='\u{024F}' => latin += 1,
            '\u{0400}'..='\u{04FF}' => cyrillic += 1,
            _ => other += 1,
        }
    }
    if cyrillic > latin && cyrillic >= other {
        return Language::Cyrillic;
    }
    if latin == 0 || other > latin {
        return Language::Other;
    }
    let mut votes = [0usize; COMMON.len()];
    for word in text
        .split(|c: char| !(crate::normalize::is_letter(c) || c == '\''))
        .filter(|w| !w.is_empty())
        .take(WORDS_READ)
    {
        // Dotless ı, ğ and ş are Turkish's own letters.
        if word.contains(['ı', 'ğ', 'ş']) {
            votes[TURKISH] += 2;
        }
        let languages = common_in(word);
        for (place, votes) in votes.iter_mut().enumerate() {
            *votes += usize::from(languages >> place & 1);
        }
    }
    let best = (0..COMMON.len()).max_by_key(|i| (votes[*i], std::cmp::Reverse(*i)));
    match best {
        Some(i) if votes[i] > 0 => COMMON[i].0,
        _ => Language::OtherLatin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_words_are_sorted_for_binary_search() {
        for (language, words) in COMMON {
            assert!(words.is_sorted(), "{language:?}");
        }
    }

    #[test]
    fn each_language_of_the_fixtures_is_told_apart() {
        let table = [
            (
                "what is the contract address of the token?",
                Language::English,
            ),
            (
                "est-ce que la migration vers la v2 est confirmée ?",
                Language::French,
            ),
            ("mi billetera no sincroniza con la red", Language::Spanish),
            (
                "minha carteira não mostra o saldo depois da ponte",
                Language::Portuguese,
            ),
            ("meine wallet zeigt den token nicht an", Language::German),
            (
                "cüzdanım köprüden sonra bakiyeyi göstermiyor, normal mi?",
                Language::Turkish,
            ),
            ("кошелек не показывает токены", Language::Cyrillic),
            ("gm wagmi lfg", Language::OtherLatin),
            ("🚀🚀🚀", Language::Other),
        ];
        for (text, language) in table {
            assert_eq!(detect(text), language, "{text}");
        }
    }
}
