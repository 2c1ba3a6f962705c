//! Lowercase and capitals, answered without Unicode tables for ASCII and
//! the Russian alphabet, where nearly every message is written.

/// `str::to_lowercase`: the same text, ASCII and Cyrillic (U+0400 to
/// U+042F) mapped directly, the rest by `char::to_lowercase`. A text with
/// a capital sigma, whose lowercase depends on its place in a word, goes
/// to the standard library whole.
pub(super) fn lowercase(text: &str) -> String {
    if text.contains('Σ') {
        return text.to_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if c.is_ascii() => out.push(c.to_ascii_lowercase()),
            'А'..='Я' => out.push(shifted(c, 0x20)),
            'Ѐ'..='Џ' => out.push(shifted(c, 0x50)),
            'а'..='џ' => out.push(c),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// `char::is_uppercase`, the same way.
pub(super) fn is_upper(c: char) -> bool {
    match c {
        c if c.is_ascii() => c.is_ascii_uppercase(),
        'Ѐ'..='Я' => true,
        'а'..='џ' => false,
        c => c.is_uppercase(),
    }
}

fn shifted(c: char, by: u32) -> char {
    char::from_u32(c as u32 + by).unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_case_mappings_agree_with_the_standard_library() {
        let mut all = String::new();
        for c in (0..0x3_0000).filter_map(char::from_u32) {
            assert_eq!(is_upper(c), c.is_uppercase(), "{c:?}");
            all.push(c);
            all.push(' ');
        }
        assert_eq!(lowercase(&all), all.to_lowercase());
        for text in ["ΟΔΟΣ Σ", "Привет ЁЖ Її", "MIXED Ѐ Џ"] {
            assert_eq!(lowercase(text), text.to_lowercase(), "{text}");
        }
    }
}
