//! Near-duplicate detection for observations: 64-bit SimHashes of the normalised text. Why
//! SimHash: it is one `u64` per observation (the guard's memory stays fixed), comparing two is
//! one XOR and a popcount, and texts that share nearly all their features land within a few
//! bits of each other, while unrelated texts sit near 32 bits apart (two texts whose feature
//! vectors are at angle θ differ in about 64·θ/π bits).
//!
//! Results are hashed over three-word shingles ([`shape`]): a page of a log shares nearly all
//! its *characters* with the next page (the same paths, names and field labels in the same
//! shape), but almost none of its word triples, since nearly every line carries values of its
//! own; the same output printed again shares nearly all of them. They must be within 3 bits (a
//! cosine near 0.99) to be the same observation, and short results are compared exactly.
//! Errors are hashed over 4-character shingles ([`simhash`]) and are the same error within 6
//! bits (a cosine near 0.95: the message with another name in it).

use crate::core::mix64::mix64;

/// Bits two results may differ by and still count as the same observation.
pub const NEAR_BITS: u32 = 3;

/// Bits two errors of one tool may differ by and still count as the same error.
pub const ERROR_NEAR_BITS: u32 = 6;

/// Results shorter than this (in characters, normalised) are compared exactly: with few
/// shingles a changed number moves only a few of them, and the bits a SimHash flips for it
/// vary so much that "contents 17" and "contents 18" can land within [`NEAR_BITS`].
pub const MIN_SIMILAR_CHARS: usize = 200;

/// What a successful result is remembered by, and how many bits another may differ by and
/// still be the same observation: the SimHash of a long text, an exact hash of a short one
/// (a random 64-bit value, so it is never within a few bits of a long text's SimHash).
pub fn shape(text: &str) -> (u64, u32) {
    // A text of fewer bytes than that has fewer characters too: no need to count them.
    if text.len() >= MIN_SIMILAR_CHARS && text.chars().count() >= MIN_SIMILAR_CHARS {
        (word_simhash(text), NEAR_BITS)
    } else {
        (shingle_hash(text.chars()), 0)
    }
}

/// The SimHash of `text` (already normalised) over its three-word shingles, each hashed as
/// its words joined by single spaces.
fn word_simhash(text: &str) -> u64 {
    let words: Vec<&str> = text.split_whitespace().collect();
    let hashes = words.windows(3.min(words.len()).max(1)).map(|triple| {
        let joined = triple
            .iter()
            .enumerate()
            .flat_map(|(i, word)| (i > 0).then_some(' ').into_iter().chain(word.chars()));
        shingle_hash(joined)
    });
    fold(hashes)
}

/// Shingle width in characters.
const SHINGLE: usize = 4;

/// The SimHash of `text` (already normalised) over its 4-character shingles.
pub fn simhash(text: &str) -> u64 {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= SHINGLE {
        return fold(std::iter::once(shingle_hash(chars.iter().copied())));
    }
    fold(
        chars
            .windows(SHINGLE)
            .map(|piece| shingle_hash(piece.iter().copied())),
    )
}

/// SimHash of feature hashes: each bit set where more features have it set than not.
fn fold(hashes: impl Iterator<Item = u64>) -> u64 {
    let mut features = 0u32;
    let mut ones = [0u32; 64];
    for h in hashes {
        features += 1;
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += (h >> bit & 1) as u32;
        }
    }
    ones.iter().enumerate().fold(0u64, |acc, (bit, ones)| {
        if 2 * ones > features {
            acc | 1 << bit
        } else {
            acc
        }
    })
}

/// Whether two errors' SimHashes are near enough to be the same error.
pub fn near_error(a: u64, b: u64) -> bool {
    (a ^ b).count_ones() <= ERROR_NEAR_BITS
}

/// FNV-1a over the shingle's characters, then a finaliser so neighbouring shingles spread.
fn shingle_hash(piece: impl Iterator<Item = char>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for c in piece {
        h ^= u64::from(c);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    mix64(h)
}

#[cfg(test)]
mod tests {
    use super::{near_error, shape, simhash};

    #[test]
    fn identical_texts_hash_alike_and_unrelated_ones_far_apart() {
        let a = simhash("error: test_parse failed: expected 3 got 4 in src/parse.rs");
        assert_eq!(
            a,
            simhash("error: test_parse failed: expected 3 got 4 in src/parse.rs")
        );
        let b = simhash("wrote 120 bytes to /notes.txt");
        assert!((a ^ b).count_ones() > 16, "{}", (a ^ b).count_ones());
        assert!(!near_error(a, b));
    }

    #[test]
    fn an_error_with_another_count_in_it_stays_near() {
        let base = "assertion failed at tests/integration.rs: left == right, left: `Some(\"header\")`, right: `None`; 14 passed; 1 failed; finished";
        let changed = base.replace("14 passed", "15 passed");
        assert!(near_error(simhash(base), simhash(&changed)));
    }

    #[test]
    fn a_short_result_is_compared_exactly_and_a_long_one_by_similarity() {
        assert_eq!(shape("contents 17").1, 0);
        assert_ne!(shape("contents 17").0, shape("contents 18").0);
        let long: String = (1..=48)
            .map(|n| format!("test parser::tests::case_{n} ... ok\n"))
            .collect();
        let (a, bits) = shape(&format!("seed 48213\n{long}"));
        assert_eq!(bits, super::NEAR_BITS);
        let (b, _) = shape(&format!("seed 99120\n{long}"));
        assert!((a ^ b).count_ones() <= bits, "{}", (a ^ b).count_ones());
    }
}
