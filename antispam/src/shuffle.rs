//! A shuffle fixed by its seed: evaluations and training give the same
//! figures on every machine and every run.

/// A permutation of `0..n` from a xorshift generator: the same for the same seed.
pub(crate) fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    // Spread the seed over all bits (splitmix64's constant); never zero.
    let mut state = seed.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = (state % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shuffle_is_a_permutation_fixed_by_its_seed() {
        let a = shuffled(50, 42);
        assert_eq!(a, shuffled(50, 42));
        assert_ne!(a, shuffled(50, 43));
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    }
}
