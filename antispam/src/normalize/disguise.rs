//! Words disguised in another alphabet: `pаypal` with a Cyrillic а.

use std::collections::HashSet;
use std::sync::OnceLock;

use unicode_script::{Script, UnicodeScript};
use unicode_security::MixedScript;

use super::{TABLE_RANGES, is_letter, is_letter_or_digit, skeleton_of, table_index};

/// The words of a text that may be disguised, also split where a
/// lowercase letter runs into a capital: sentences glued together
/// ("fine.nДавно", "fineThanks") are two words, not one mixing alphabets.
/// A run of ASCII or of one alphabet block holds no disguise, whatever its
/// case, and is skipped before the (slower) case split.
pub(super) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_letter_or_digit(c))
        .filter(|word| !word.is_ascii() && !in_one_alphabet_block(word))
        .flat_map(|word| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest.is_empty() {
                    return None;
                }
                let mut previous: Option<char> = None;
                let cut = rest.char_indices().find_map(|(at, c)| {
                    let boundary = previous.is_some_and(char::is_lowercase) && c.is_uppercase();
                    previous = Some(c);
                    boundary.then_some(at)
                });
                let (word, after) = rest.split_at(cut.unwrap_or(rest.len()));
                rest = after;
                Some(word)
            })
        })
}

/// A word of one alphabet with letters of another that look like its own
/// swapped in: `pаypal` with a Cyrillic а, `Здpaвcтвyйтe` with Latin p, a,
/// c, y, e, `Пᴏддᴇᴧьнᴀя` with small capitals. A word that merely runs two
/// languages together is not a disguise: its minority letters have no twin
/// in the main alphabet.
pub(super) fn is_disguised(word: &str) -> bool {
    if word.is_ascii() || word.chars().nth(3).is_none() {
        return false;
    }
    // A word of the Latin and Cyrillic blocks alone holds letters of both
    // (or it would be in one): no need to ask whether it is one script.
    let mut two_blocks = true;
    for c in word.chars() {
        if is_decorative(c) {
            return true;
        }
        two_blocks &=
            c.is_ascii() || matches!(c, '\u{00C0}'..='\u{024F}' | '\u{0400}'..='\u{052F}');
    }
    if in_one_alphabet_block(word) || (!two_blocks && word.is_single_script()) {
        return false;
    }
    // Its alphabets, each once (a word has two or three).
    let mut scripts: Vec<Script> = Vec::with_capacity(4);
    for script in word.chars().filter(|c| is_letter(*c)).map(script_of) {
        if !scripts.contains(&script) {
            scripts.push(script);
        }
    }
    // Disguised when, for one of its alphabets, every other letter passes
    // for a letter of it: "pаypal" for Latin, "дoxoд" for Cyrillic.
    scripts.iter().any(|main| passes_for(word, *main))
}

/// Whether every letter of `word` is in the Latin blocks (up to U+024F)
/// or every one in the Cyrillic blocks: one alphabet for sure, without the
/// script tables.
fn in_one_alphabet_block(word: &str) -> bool {
    let (mut latin, mut cyrillic) = (false, false);
    for c in word.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '\u{00C0}'..='\u{024F}' if c.is_alphabetic() => latin = true,
            '\u{0400}'..='\u{052F}' => cyrillic = true,
            c if c.is_ascii() => {}
            _ => return false,
        }
    }
    !(latin && cyrillic)
}

/// Whether every letter of `word` outside `main` has a twin in `main`.
fn passes_for(word: &str, main: Script) -> bool {
    let mut strays = word
        .chars()
        .filter(|c| is_letter(*c) && script_of(*c) != main)
        .peekable();
    if strays.peek().is_none() {
        return false;
    }
    match twins_of(main) {
        Some((twins, table)) => strays.all(|c| match table_index(c).and_then(|at| table.get(at)) {
            Some(passes) => *passes,
            None => is_twin(c, twins),
        }),
        // An alphabet we hold no twins for: one or two strays are a disguise.
        None => (1..=2).contains(&strays.count()),
    }
}

/// The script of a letter: Latin and Cyrillic answered by their blocks,
/// the rest from the Unicode tables.
fn script_of(letter: char) -> Script {
    match letter {
        'a'..='z' | 'A'..='Z' | '\u{00C0}'..='\u{024F}' => Script::Latin,
        '\u{0400}'..='\u{0482}' | '\u{048A}'..='\u{052F}' => Script::Cyrillic,
        c => c.script(),
    }
}

/// Letters no language writes its words with, that pass for ordinary ones:
/// small capitals and other phonetic letters, Cherokee.
fn is_decorative(c: char) -> bool {
    matches!(c, '\u{0250}'..='\u{02AF}' | '\u{1D00}'..='\u{1DBF}' | '\u{13A0}'..='\u{13FF}')
}

/// Whether `c` has the skeleton of one of `twins`.
fn is_twin(c: char, twins: &HashSet<String>) -> bool {
    twins.contains(&skeleton_of(&c.to_lowercase().to_string()))
}

/// The skeletons of the letters of an alphabet (a letter of another
/// alphabet with one of these skeletons passes for one of its letters),
/// and the answer for each character of [`TABLE_RANGES`], read without
/// computing a skeleton.
type Twins = (HashSet<String>, Vec<bool>);

fn twins_of(script: Script) -> Option<&'static Twins> {
    static LATIN: OnceLock<Twins> = OnceLock::new();
    static CYRILLIC: OnceLock<Twins> = OnceLock::new();
    let (cell, letters) = match script {
        Script::Latin => (&LATIN, "abcdefghijklmnopqrstuvwxyz"),
        Script::Cyrillic => (&CYRILLIC, "абвгдежзийклмнопрстуфхцчшщъыьэюяёіїєґ"),
        _ => return None,
    };
    Some(cell.get_or_init(|| {
        let twins: HashSet<String> = letters
            .chars()
            .map(|c| skeleton_of(&c.to_string()))
            .collect();
        let table = TABLE_RANGES
            .iter()
            .flat_map(|(start, end)| *start..*end)
            .map(|code| char::from_u32(code).is_some_and(|c| is_twin(c, &twins)))
            .collect();
        (twins, table)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_of_latin_and_cyrillic_letters_agree_with_unicode() {
        for c in (0..0x0530)
            .filter_map(char::from_u32)
            .filter(|c| is_letter(*c))
        {
            assert_eq!(script_of(c), c.script(), "{c:?}");
        }
    }
}
