//! A small fast hash for the tokenizer's own tables (merge pairs, token texts): the
//! multiply-rotate hash rustc uses (FxHash). Not DoS-resistant, which does not matter here:
//! the keys come from the model file, never from the text being tokenized.

use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// FxHash over whatever is written to it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        // The length keeps "ab" and "ab\0" apart.
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the high bits well mixed and the low ones not; tables index
        // with the low bits, so bring the high ones down.
        self.hash.rotate_left(26)
    }
}

/// Builds [`FxHasher`]s for `HashMap`.
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

/// The hash of a byte string, for tables that store their keys elsewhere.
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}
