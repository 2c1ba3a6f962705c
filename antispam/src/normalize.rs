//! Normalisation: what a message says once its disguises are removed.
//! Invisible characters go, NFKC folds compatibility forms (full-width
//! letters, ligatures, styled maths letters), everything is lowercased, and
//! matching happens on the Unicode confusables skeleton (UTS #39), so a
//! Cyrillic "а" in "claim" or a "0" for an "o" no longer hides a word. A
//! word mixing alphabets is reported: it is a signal of its own.

mod case;
mod disguise;
mod nfkc;

use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::canonical_combining_class;
use unicode_security::skeleton;

use case::{is_upper, lowercase};
use disguise::{is_disguised, words};
use nfkc::{is_nfkc, to_nfkc};

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
    /// Whether the message is mostly capitals (a long enough one).
    pub shouting: bool,
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

/// Characters of a long message that are judged: its beginning and its
/// end, where spam says what it wants and where it leaves its contact, cut
/// between words. The cost of a check grows with length; crypto addresses
/// are still looked for in the whole raw text, and the links and accounts
/// of the part left out are kept (see [`clipped`]).
pub const JUDGED_HEAD: usize = 400;
pub const JUDGED_TAIL: usize = 150;
/// Links and accounts kept from the middle of a long message.
const KEPT_FROM_THE_MIDDLE: usize = 8;

/// A long message's beginning and end, with the links and accounts of
/// its middle between them: a testimonial that names its "manager" in
/// its fifth sentence is read with the manager's account.
fn clipped(text: &str) -> Option<String> {
    text.char_indices().nth(JUDGED_HEAD + JUDGED_TAIL)?;
    let head_end = text.char_indices().nth(JUDGED_HEAD).map_or(0, |(at, _)| at);
    // Back to the space before a word cut in two, forward past one.
    let head_end = match text[..head_end].rfind(char::is_whitespace) {
        Some(space) if !text[head_end..].starts_with(char::is_whitespace) => space,
        _ => head_end,
    };
    let tail_start = text
        .char_indices()
        .rev()
        .nth(JUDGED_TAIL - 1)
        .map_or(head_end, |(at, _)| at.max(head_end));
    let tail_start = match text[..tail_start].ends_with(char::is_whitespace) {
        true => tail_start,
        false => text[tail_start..]
            .find(char::is_whitespace)
            .map_or(text.len(), |space| tail_start + space),
    };
    let mut out = String::with_capacity(head_end + text.len() - tail_start + 64);
    out.push_str(&text[..head_end]);
    for word in leads_in(&text[head_end..tail_start]).take(KEPT_FROM_THE_MIDDLE) {
        out.push(' ');
        out.push_str(word);
    }
    out.push(' ');
    out.push_str(&text[tail_start..]);
    Some(out)
}

/// The words of `text` that may be links or accounts, found from their
/// "@", "." or ":" (a long message's middle is not read word by word).
fn leads_in(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut read_to = 0;
    memchr::memchr3_iter(b'@', b'.', b':', bytes).filter_map(move |at| {
        if at < read_to {
            return None;
        }
        // Cut at ASCII spaces: both ends are character boundaries.
        let start = bytes[..at]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(0, |space| space + 1);
        let end = bytes[at..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |space| at + space);
        read_to = end;
        let word = text.get(start..end)?;
        leads_somewhere(word).then_some(word)
    })
}

/// A word that may be a link or an account: "@name", "https://…",
/// "site-name.net" (a dot between a letter or digit and a letter).
fn leads_somewhere(word: &str) -> bool {
    let bytes = word.as_bytes();
    word.contains("://")
        || bytes
            .windows(2)
            .any(|pair| pair[0] == b'@' && pair[1] != b'@')
        || bytes.windows(3).any(|three| {
            three[1] == b'.' && three[0].is_ascii_alphanumeric() && three[2].is_ascii_alphabetic()
        })
}

/// Normalises `text` (the beginning and the end of a long one).
pub fn normalize(text: &str) -> Normalized {
    let clipped = clipped(text);
    let text = clipped.as_deref().unwrap_or(text);
    let invisible = text.chars().filter(|c| is_invisible(*c)).count();
    let visible: String = match invisible {
        0 => text.to_owned(),
        _ => text.chars().filter(|c| !is_invisible(*c)).collect(),
    };
    let nfkc: String = if is_nfkc(&visible) {
        visible
    } else {
        to_nfkc(&visible)
    };
    let mixed_script_words = words(&nfkc)
        .filter(|word| !word.is_ascii() && is_disguised(word))
        .map(str::to_lowercase)
        .collect();
    let shouting = is_shouting(&nfkc);
    let mut text = lowercase(&nfkc);
    // A Turkish capital İ lowercases to "i" and a combining dot, which no
    // term is written with ("İçeriden" is "içeriden").
    if text.contains('\u{307}') {
        text = text.replace("i\u{307}", "i");
    }
    // "s33d", "pr1vate": digits inside a word are read as the letters
    // they stand for (before the skeleton reads a "1" as an "l"), and
    // "з а р а б о т о к" as the word it spells, and "D M  me" with
    // single spaces (after the spelt-out words, which wider gaps part).
    // An emoji inside a word ("D🔥M") and Spanish opening marks ("¡" reads
    // as an "i") are read as the word without them.
    let skeleton = skeleton_of(&single_spaced(&letters_joined(&unleet(&words_unbroken(
        &text,
    )))));
    Normalized {
        text,
        skeleton,
        mixed_script_words,
        invisible,
        shouting,
    }
}

/// `char::is_alphabetic`, with ASCII and the Cyrillic alphabet answered
/// before anything else, and the rest of the first two planes read from a
/// table built once (the Unicode tables are slow on emoji and symbols).
#[inline]
pub fn is_letter(c: char) -> bool {
    match c {
        'a'..='z' | 'A'..='Z' | 'а'..='я' | 'А'..='Я' | 'ё' | 'Ё' => true,
        c if c.is_ascii() => false,
        c => classes(c).map_or_else(|| c.is_alphabetic(), |class| class & LETTER != 0),
    }
}

/// `char::is_alphanumeric`, the same way.
#[inline]
pub fn is_letter_or_digit(c: char) -> bool {
    match c {
        '0'..='9' => true,
        c if c.is_ascii() => is_letter(c),
        c => classes(c).map_or_else(|| c.is_alphanumeric(), |class| class != 0),
    }
}

const LETTER: u8 = 1;
const NUMBER: u8 = 2;
/// Characters whose classes are kept in the table.
const CLASSED: u32 = 0x2_0000;

/// Whether `c` is a letter ([`LETTER`]) or a number ([`NUMBER`]), for the
/// first two planes.
fn classes(c: char) -> Option<u8> {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..CLASSED)
            .map(|code| {
                char::from_u32(code).map_or(0, |c| {
                    (if c.is_alphabetic() { LETTER } else { 0 })
                        | (if c.is_numeric() { NUMBER } else { 0 })
                })
            })
            .collect()
    });
    table.get(c as usize).copied()
}

/// Letters from which a message can be said to shout.
const SHOUTING_LETTERS: usize = 15;

/// At least three letters in five are capitals.
fn is_shouting(text: &str) -> bool {
    let (mut letters, mut capitals) = (0, 0);
    for c in text.chars().filter(|c| is_letter(*c)) {
        letters += 1;
        capitals += usize::from(is_upper(c));
    }
    letters >= SHOUTING_LETTERS && capitals * 5 >= letters * 3
}

/// The confusables skeleton of already lowercased text.
pub fn skeleton_of(text: &str) -> String {
    let table = skeleton_table();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() && table.ascii_unchanged[c as usize] {
            out.push(c);
            continue;
        }
        match table_index(c).and_then(|at| table.piece(at)) {
            Some(piece) => out.push_str(piece),
            // A letter outside the table: the whole text the slow way.
            None => return slow_skeleton_of(text),
        }
    }
    out
}

/// The confusables skeleton, as UTS #39 computes it over the whole text.
fn slow_skeleton_of(text: &str) -> String {
    skeleton(text).collect::<String>().to_lowercase()
}

/// Characters whose skeletons are looked up rather than computed: ASCII,
/// Latin, Greek and Cyrillic, where nearly every message is written, then
/// punctuation, symbols and arrows, then emoji.
const TABLE_RANGES: [(u32, u32); 3] = [(0, 0x0530), (0x2000, 0x2C00), (0x1_F000, 0x1_FB00)];

/// Where `c` sits in the table, if it is in one of [`TABLE_RANGES`].
fn table_index(c: char) -> Option<usize> {
    let code = c as u32;
    let mut offset = 0;
    for (start, end) in TABLE_RANGES {
        if (start..end).contains(&code) {
            return Some((offset + code - start) as usize);
        }
        offset += end - start;
    }
    None
}

/// The lowercased skeleton of each character of [`TABLE_RANGES`], where
/// the skeleton of a text is the skeletons of its characters put end to
/// end: the character and its skeleton start with a base character (no
/// combining mark reorders across them) and hold no sigma (whose lowercase
/// depends on what follows). `None` where that does not hold.
fn skeleton_table() -> &'static SkeletonTable {
    static TABLE: OnceLock<SkeletonTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = SkeletonTable {
            pieces: String::new(),
            spans: Vec::new(),
            ascii_unchanged: [false; 128],
        };
        for code in TABLE_RANGES.iter().flat_map(|(start, end)| *start..*end) {
            let piece = char::from_u32(code).and_then(table_piece);
            let span = piece.map_or((u32::MAX, 0), |piece| {
                let at = table.pieces.len() as u32;
                table.pieces.push_str(&piece);
                (at, piece.len() as u32)
            });
            table.spans.push(span);
        }
        for byte in 0..128u8 {
            let c = char::from(byte);
            table.ascii_unchanged[usize::from(byte)] = table_index(c)
                .and_then(|at| table.piece(at))
                .is_some_and(|piece| piece.len() == 1 && piece.starts_with(c));
        }
        table
    })
}

/// The skeletons of [`TABLE_RANGES`] in one string (a character's piece is
/// a span of it), and which ASCII characters are their own skeleton.
struct SkeletonTable {
    pieces: String,
    /// Start and length in `pieces`; a start of `u32::MAX` for none.
    spans: Vec<(u32, u32)>,
    ascii_unchanged: [bool; 128],
}

impl SkeletonTable {
    fn piece(&self, at: usize) -> Option<&str> {
        let (start, len) = *self.spans.get(at)?;
        if start == u32::MAX {
            return None;
        }
        self.pieces
            .get(start as usize..start as usize + len as usize)
    }
}

/// The skeleton of `c` alone, where it is the same wherever `c` stands.
fn table_piece(c: char) -> Option<String> {
    let piece = slow_skeleton_of(c.encode_utf8(&mut [0; 4]));
    let starts_with_base = |text: &str| {
        text.nfd()
            .next()
            .is_none_or(|first| canonical_combining_class(first) == 0)
    };
    let sigma = |text: &str| text.chars().any(|c| matches!(c, 'σ' | 'ς' | 'Σ'));
    (canonical_combining_class(c) == 0
        && starts_with_base(c.encode_utf8(&mut [0; 4]))
        && starts_with_base(&piece)
        && !sigma(&piece)
        && !sigma(c.encode_utf8(&mut [0; 4])))
    .then_some(piece)
}

/// The letters digits stand for inside a word ("s33d", "pr1vate",
/// "w4llet"): a run of one or two digits between letters. Numbers, "x10",
/// "web3", "erc20" and addresses ("0x…") stay as they are. Most messages
/// have none: they are read without a copy.
pub(crate) fn unleet(skeleton: &str) -> std::borrow::Cow<'_, str> {
    let bytes = skeleton.as_bytes();
    let mut out: Option<String> = None;
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        if !bytes[at].is_ascii_digit() {
            at += 1;
            continue;
        }
        // ASCII digits: `at` and `end` are character boundaries.
        let run = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = at + run;
        let flanked = run <= 2
            && skeleton[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphabetic)
            && skeleton[end..]
                .chars()
                .next()
                .is_some_and(char::is_alphabetic);
        if flanked
            && !in_address(skeleton, at)
            && let Some(letters) = letters_for(&skeleton[at..end])
        {
            let text = out.get_or_insert_with(|| String::with_capacity(skeleton.len()));
            text.push_str(&skeleton[copied..at]);
            text.push_str(&letters);
            copied = end;
        }
        at = end;
    }
    match out {
        Some(mut text) => {
            text.push_str(&skeleton[copied..]);
            std::borrow::Cow::Owned(text)
        }
        None => std::borrow::Cow::Borrowed(skeleton),
    }
}

/// The letters a run of digits stands for, if each stands for one.
fn letters_for(digits: &str) -> Option<String> {
    digits
        .chars()
        .map(|c| match c {
            '0' => Some('o'),
            '1' => Some('i'),
            '3' => Some('e'),
            '4' => Some('a'),
            '5' => Some('s'),
            '7' => Some('t'),
            '8' => Some('b'),
            _ => None,
        })
        .collect()
}

/// Whether the word around byte `at` is an address or a link ("0x5aaeb…",
/// "https://…/0x4b2f…"), whose digits are digits.
fn in_address(text: &str, at: usize) -> bool {
    let start = text[..at].rfind(char::is_whitespace).map_or(0, |space| {
        space + text[space..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &text[start..at];
    text[start..].starts_with("0x")
        || word.contains("0x")
        || word.contains('/')
        || word.contains('.')
}

/// The fewest single letters in a row read as one spelt-out word.
const SPELT_OUT: usize = 4;

/// Whether [`SPELT_OUT`] single letters follow each other between single
/// spaces: one pass over the bytes, as most messages have none.
fn has_spelt_out_word(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run = 0;
    let mut start = 0;
    // Each word between spaces: one character (1 to 4 bytes, a letter)?
    // A wider gap ("d m  m e") does not end the run.
    for (at, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b' ') {
        let word = &text[start..at];
        run = if word.is_empty() {
            run
        } else if word.len() <= 4 && is_one_letter(word) {
            run + 1
        } else {
            0
        };
        if run >= SPELT_OUT {
            return true;
        }
        start = at + 1;
    }
    run + usize::from(is_one_letter(&text[start..])) >= SPELT_OUT
}

/// One letter and the punctuation that ends a sentence's word ("é,").
fn ends_a_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_alphabetic)
        && chars
            .as_str()
            .chars()
            .all(|c| matches!(c, ',' | '.' | '!' | '?' | ';' | ':'))
        && !chars.as_str().is_empty()
}

fn is_one_letter(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_alphabetic) && chars.next().is_none()
}

/// Whether `c` is an emoji or a pictograph, or what joins or styles one.
fn is_pictograph(c: char) -> bool {
    matches!(
        u32::from(c),
        0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x1F000..=0x1FAFF | 0xFE0F | 0x200D
    )
}

/// Latin small capitals that no Cyrillic letter's skeleton shares, as the
/// letters they stand for ("sɪɢɴaux" is "signaux"); the others ("ᴛ", "ʙ")
/// already meet Cyrillic's in the skeleton.
fn small_capital(c: char) -> Option<char> {
    Some(match c {
        'ɢ' => 'g',
        'ɴ' => 'n',
        'ʀ' => 'r',
        'ʏ' => 'y',
        'ʟ' => 'l',
        'ᴅ' => 'd',
        'ꜰ' => 'f',
        'ᴊ' => 'j',
        'ꜱ' => 's',
        'ᴢ' => 'z',
        _ => return None,
    })
}

/// Latin small capitals whose skeleton is a Cyrillic letter's ("ᴍ", "ᴛ"):
/// read as Latin letters only beside one ("dᴍ", not "ᴄᴛᴀʙᴋᴀ").
fn latin_small_capital(c: char) -> Option<char> {
    Some(match c {
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴇ' => 'e',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴋ' => 'k',
        'ᴍ' => 'm',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        _ => return None,
    })
}

/// Letters in negative circles and squares ("🅜", "🅼"), as letters.
fn enclosed_letter(c: char) -> Option<char> {
    let code = u32::from(c);
    let offset = match code {
        0x1F150..=0x1F169 => code - 0x1F150,
        0x1F170..=0x1F189 => code - 0x1F170,
        _ => return None,
    };
    char::from_u32(u32::from('a') + offset)
}

/// The text with "¡" and "¿" made spaces, the emoji between two letters of
/// a word dropped ("d🔥m me" is "dm me") and small capitals read as
/// letters; most messages have none of these.
/// Whether an "@" between `before` and `after` stands for an "a": inside
/// a word of one alphabet, and not an e-mail's (whose domain has a dot:
/// "anna@mail.com").
fn at_for_a(before: Option<char>, after: &[char]) -> bool {
    let (Some(before), Some(&next)) = (before, after.first()) else {
        return false;
    };
    let letters = before.is_alphabetic() && next.is_alphabetic();
    if !letters || before.is_ascii() != next.is_ascii() {
        return false;
    }
    !before.is_ascii()
        || !after
            .iter()
            .take_while(|c| !c.is_whitespace())
            .any(|c| matches!(c, '.' | '@'))
}

fn words_unbroken(text: &str) -> std::borrow::Cow<'_, str> {
    let may_have = text
        .bytes()
        .any(|b| matches!(b, b'@' | 0xC2 | 0xF0 | 0xE2 | 0xC9 | 0xCA | 0xE1 | 0xEA));
    let mut before = ' ';
    let has = may_have
        && text.chars().any(|c| {
            let found = c == '¡'
                || c == '¿'
                || small_capital(c).is_some()
                || latin_small_capital(c).is_some()
                || enclosed_letter(c).is_some()
                || (c == '@' && before.is_alphabetic())
                || (is_pictograph(c) && before.is_alphabetic());
            before = c;
            found
        });
    if !has {
        return std::borrow::Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for (at, &c) in chars.iter().enumerate() {
        if c == '¡' || c == '¿' {
            out.push(' ');
            changed = true;
        } else if let Some(letter) = small_capital(c).or_else(|| enclosed_letter(c)) {
            out.push(letter);
            changed = true;
        } else if let Some(letter) = latin_small_capital(c).filter(|_| {
            out.chars()
                .next_back()
                .is_some_and(|b| b.is_ascii_alphabetic())
                || chars.get(at + 1).is_some_and(|n| n.is_ascii_alphabetic())
        }) {
            out.push(letter);
            changed = true;
        } else if c == '@' && at_for_a(out.chars().next_back(), &chars[at + 1..]) {
            // "З@ймы", "s@le": an "a" written as "@" inside a word.
            out.push('a');
            changed = true;
        } else if is_pictograph(c)
            && out.chars().next_back().is_some_and(char::is_alphabetic)
            && chars[at + 1..]
                .iter()
                .find(|next| !is_pictograph(**next))
                .is_some_and(|next| next.is_alphabetic())
        {
            changed = true;
        } else {
            out.push(c);
        }
    }
    if changed {
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Runs of spaces made one ("D M  me" is "d m me").
fn single_spaced(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("  ") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Words spelt out letter by letter ("з а р а б о т о к", "s e e d")
/// joined: four single letters or more in a row, between single spaces.
/// Once a message spells a word out, it hides the others too: shorter
/// runs set apart by wider gaps ("d m  m e  f o r") are words, and a
/// letter that is no word of its own between two pieces of one ("esc r
/// íbeme") glues them back.
fn letters_joined(text: &str) -> std::borrow::Cow<'_, str> {
    if !has_spelt_out_word(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let words: Vec<&str> = text.split(' ').collect();
    let gap_at = |at: usize| at >= words.len() || words[at].is_empty();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < words.len() {
        let letters = words[at..].iter().take_while(|w| is_one_letter(w)).count();
        // "p r i v é," ends on a letter and its comma.
        let run = letters
            + usize::from(letters > 0 && words.get(at + letters).is_some_and(|w| ends_a_word(w)));
        let set_apart = run >= 2 && (at == 0 || gap_at(at - 1)) && gap_at(at + run);
        if letters == 1
            && run == 1
            && at > 0
            && splits_a_word(words[at - 1], words[at], words.get(at + 1))
        {
            out.push_str(words[at]);
            out.push_str(words.get(at + 1).copied().unwrap_or_default());
            at += 2;
            continue;
        }
        if at > 0 {
            out.push(' ');
        }
        // Once a word is spelt out, three letters in a row are one too
        // ("g i b mir").
        if run >= 3 || set_apart {
            words[at..at + run].iter().for_each(|w| out.push_str(w));
            at += run;
        } else {
            out.push_str(words[at]);
            at += 1;
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Letters that are words of their own in the languages read ("a", "y",
/// "o", "в", "и"): a lone one of these is no piece of a word.
const ONE_LETTER_WORDS: &str = "aàáâeéèêiíoóôuúyxавиоуксяжб";

/// Whether `letter` is a piece of the word around it ("esc r íbeme"):
/// no word of its own, between two pieces of two letters or more.
fn splits_a_word(before: &str, letter: &str, after: Option<&&str>) -> bool {
    let piece = |word: &str| word.chars().count() >= 2 && word.chars().all(char::is_alphabetic);
    letter.chars().all(|c| !ONE_LETTER_WORDS.contains(c))
        && piece(before)
        && after.is_some_and(|after| piece(after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skeleton_table_gives_what_the_whole_text_would() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/spam");
        let mut texts: Vec<String> = std::fs::read_dir(fixtures)
            .unwrap()
            .filter_map(|entry| std::fs::read_to_string(entry.unwrap().path()).ok())
            .flat_map(|text| text.lines().map(str::to_lowercase).collect::<Vec<_>>())
            .collect();
        // Every character of the table, between letters and after itself.
        texts.extend(
            TABLE_RANGES
                .iter()
                .flat_map(|(start, end)| *start..*end)
                .filter_map(char::from_u32)
                .map(|c| format!("a{c}{c}b")),
        );
        texts.extend(["ﬁ straße ǆ ω ŉ", "x\u{0301}\u{0323}y", "mоney ∂ℓ 𝐜𝐥𝐚𝐢𝐦"].map(str::to_owned));
        for text in texts {
            assert_eq!(skeleton_of(&text), slow_skeleton_of(&text), "{text}");
        }
    }

    #[test]
    fn the_nfkc_table_agrees_with_normalising() {
        for c in TABLE_RANGES
            .iter()
            .flat_map(|(start, end)| *start..*end)
            .filter_map(char::from_u32)
        {
            let text = format!("a{c}{c}b");
            if is_nfkc(&text) {
                assert_eq!(text.nfkc().collect::<String>(), text, "{c:?}");
            }
        }
    }

    #[test]
    fn the_fast_letter_tests_agree_with_unicode() {
        for c in (0..0x3_0000).filter_map(char::from_u32) {
            assert_eq!(is_letter(c), c.is_alphabetic(), "{c:?}");
            assert_eq!(is_letter_or_digit(c), c.is_alphanumeric(), "{c:?}");
        }
    }

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

    #[test]
    fn latin_look_alikes_in_russian_words_and_small_capitals_are_disguises() {
        // Latin x, o, p, e, c, a in "хороший", "доход", "пишите", "сюда",
        // whichever alphabet has more letters in the word.
        let latin = normalize("Xopoший дoxoд, пишитe cюдa");
        assert_eq!(latin.mixed_script_words.len(), 4, "{latin:?}");
        let small_capitals = normalize("Лучшᴀя ᴄᴛᴀʙᴋᴀ");
        assert_eq!(small_capitals.mixed_script_words.len(), 2);
    }

    #[test]
    fn glued_sentences_and_brand_names_are_not_disguises() {
        // A newline flattened to "n" before a capital, model names: no
        // letter passes for another.
        for text in [
            "it works fine.nДавно пользуюсь",
            "взял клавиатуру Model-X2 и мышь ABC-Pro",
        ] {
            assert!(normalize(text).mixed_script_words.is_empty(), "{text}");
        }
    }

    #[test]
    fn a_contact_in_the_middle_of_a_long_message_is_read() {
        let head = "I was losing money for months and nobody helped me. ".repeat(9);
        let tail = " She answers fast and is patient with beginners, thank you!".repeat(3);
        let text = format!(
            "{head}Then Mrs Claire, a certified account manager, wrote to me. \
             Write to her on Telegram @ClaireDubois_Trading or visit claire-trading.net, \
             she changed my life.{tail}"
        );
        assert!(text.chars().count() > JUDGED_HEAD + JUDGED_TAIL);
        let judged = normalize(&text).text;
        assert!(judged.contains("@clairedubois_trading"), "{judged}");
        assert!(judged.contains("claire-trading.net,"), "{judged}");
        assert!(
            !judged.contains("certified"),
            "the middle's other words are left out"
        );
    }

    #[test]
    fn a_long_message_is_cut_between_words() {
        let words: String = (0..200).map(|i| format!("word{i:03} ")).collect();
        let judged = normalize(&words).text;
        for word in judged.split_whitespace() {
            assert!(
                word.len() == 7 && word.starts_with("word"),
                "{word:?} in {judged}"
            );
        }
    }

    #[test]
    fn wide_gaps_read_as_one_space_once_spelt_out_words_are_joined() {
        // The skeleton reads "m" as "rn": compare skeletons.
        let skeleton = |text| normalize(text).skeleton;
        assert_eq!(
            skeleton("D M  me for the link"),
            skeleton("d m me for the link")
        );
        assert_eq!(
            skeleton("V e r d i e n e   j e t z t"),
            skeleton("verdiene jetzt")
        );
    }

    #[test]
    fn a_message_that_spells_a_word_out_hides_its_other_words_too() {
        let skeleton = |text| normalize(text).skeleton;
        for (spelt, plain) in [
            (
                "S c h r e i b t   m i r   für Geld",
                "schreibt mir für geld",
            ),
            (
                "d m  m e  f o r  p r i v a t e  s a l e",
                "dm me for private sale",
            ),
            (
                "quiere g a n a r dinero? esc r íbeme",
                "quiere ganar dinero? escríbeme",
            ),
            ("d m  m e  for the price", "dm me for the price"),
            ("g i b mir deine S e e d", "gib mir deine seed"),
            (
                "un m e s s a g e en p r i v é, réponds",
                "un message en privé, réponds",
            ),
            // A one-letter word stays one.
            ("s e e d  y nada más", "seed y nada más"),
        ] {
            assert_eq!(skeleton(spelt), skeleton(plain), "{spelt}");
        }
        // Without a spelt-out word nothing is glued.
        assert_ne!(skeleton("esc r íbeme"), skeleton("escríbeme"));
    }

    #[test]
    fn emoji_small_capitals_and_signs_inside_a_word_read_as_its_letters() {
        let skeleton = |text| normalize(text).skeleton;
        for (broken, plain) in [
            ("D🔥M me ¡ahora!", "dm me ahora!"),
            ("sɪɢɴaux ʀapides", "signaux rapides"),
            ("check your ᴅᴍ, D🅜 me", "check your dm, dm me"),
            ("З@ймы", "Займы"),
            ("the pr1vate s@le, cl@im now", "the private sale, claim now"),
        ] {
            assert_eq!(skeleton(broken), skeleton(plain), "{broken}");
        }
        // An emoji between words, small capitals with no Latin letter
        // beside them and an e-mail's "@" are left alone.
        assert!(skeleton("gm 🔥 all").contains('🔥'));
        assert_eq!(skeleton("ᴄᴛᴀʙᴋᴀ"), skeleton_of("ᴄᴛᴀʙᴋᴀ"));
        assert_eq!(
            skeleton("mail me at anna@example.org"),
            "rnail rne at anna@exarnple.org"
        );
    }

    #[test]
    fn shouting_needs_enough_letters_mostly_in_capitals() {
        assert!(normalize("СРОЧНО ПОКУПАЙ, ОСТАЛОСЬ МАЛО").shouting);
        assert!(!normalize("GM ALL").shouting, "too short to shout");
        assert!(!normalize("The ETH and BTC charts look fine today").shouting);
    }
}
