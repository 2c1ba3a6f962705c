//! Token estimates, for prompt limits and cost estimates before a call.
//! No tokenizer is bundled: the estimate is deliberately pessimistic.

/// Estimated tokens in `text`: the larger of one token per 4 bytes and
/// four tokens per 3 words, which over-counts English and French prose
/// slightly compared with common BPE tokenizers.
pub fn estimate_tokens(text: &str) -> u64 {
    let by_bytes = text.len().div_ceil(4);
    let words = text.split_whitespace().count();
    let by_words = (words * 4).div_ceil(3);
    u64::try_from(by_bytes.max(by_words)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_grow_with_text_and_never_undercount_words() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("one two three"), 4);
        let prose = "word ".repeat(300);
        assert!(estimate_tokens(&prose) >= 400);
    }
}
