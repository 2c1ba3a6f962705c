//! NFKC, read from a table for the alphabets nearly every message is
//! written in, and computed only around the characters that need it.

use std::sync::OnceLock;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

use super::{TABLE_RANGES, table_index};

/// Whether `text` is in NFKC already: read from a table where every
/// character is in [`TABLE_RANGES`], by the Unicode quick check otherwise.
pub(super) fn is_nfkc(text: &str) -> bool {
    let table = nfkc_table();
    let in_table = |c: char| table_index(c).and_then(|at| table.get(at)).copied();
    text.chars().all(|c| in_table(c) == Some(true))
        || is_nfkc_quick(text.chars()) == IsNormalized::Yes
}

/// For each character of [`TABLE_RANGES`], whether any text made of such
/// characters is in NFKC: a starter (no combining mark to reorder) whose
/// quick check answers yes.
fn nfkc_table() -> &'static [bool] {
    static TABLE: OnceLock<Vec<bool>> = OnceLock::new();
    TABLE.get_or_init(|| {
        TABLE_RANGES
            .iter()
            .flat_map(|(start, end)| *start..*end)
            .map(|code| {
                char::from_u32(code).is_some_and(|c| {
                    canonical_combining_class(c) == 0
                        && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes
                })
            })
            .collect()
    })
}

/// `text` in NFKC: only the stretches holding a character outside the
/// table are normalised. A character the table answers yes for (a starter
/// that never composes with what precedes it) is a boundary before which
/// normalisation can be split: the rest is copied as it is.
pub(super) fn to_nfkc(text: &str) -> String {
    let table = nfkc_table();
    let safe = |c: char| table_index(c).and_then(|at| table.get(at)).copied() == Some(true);
    let mut out = String::with_capacity(text.len());
    // Copied up to `copied`; the last boundary; where a stretch to
    // normalise starts.
    let (mut copied, mut boundary, mut dirty) = (0, 0, None);
    for (at, c) in text.char_indices() {
        if !safe(c) {
            dirty.get_or_insert(boundary);
            continue;
        }
        if let Some(from) = dirty.take() {
            out.push_str(text.get(copied..from).unwrap_or_default());
            out.extend(text.get(from..at).unwrap_or_default().nfkc());
            copied = at;
        }
        boundary = at;
    }
    if let Some(from) = dirty {
        out.push_str(text.get(copied..from).unwrap_or_default());
        out.extend(text.get(from..).unwrap_or_default().nfkc());
    } else {
        out.push_str(text.get(copied..).unwrap_or_default());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_around_the_table_agrees_with_normalising_it_all() {
        for text in [
            "ｃｌａｉｍ your airdrop",
            "e\u{0301}tait ﬁn ㈱ 한국어 가\u{11A8} x²",
            "\u{0301}start with a mark, ℌ𝔢𝔩𝔩𝔬 𝐰𝐨𝐫𝐥𝐝 ① ½",
            "Ｆｒｅｅ ＵＳＤＴ 👉 ｔ.ｍｅ/ｘ ﾊﾝｶｸ ｶﾀｶﾅ",
            "plain text with no change",
            "𝓼𝓮𝓷𝓭 1 ETH, А\u{0306}Б, ё\u{0308}, 漢字かな",
        ] {
            assert_eq!(to_nfkc(text), text.nfkc().collect::<String>(), "{text}");
        }
    }
}
