//! splitmix64's finaliser: spreads a 64-bit value's bits so that neighbouring inputs land far
//! apart. The guard's hashes (the recent-observation maps' keys, SimHash's shingles) end with it.

/// `h` with its bits mixed by splitmix64's finaliser (a bijection on `u64`).
pub(crate) fn mix64(mut h: u64) -> u64 {
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::mix64;

    #[test]
    fn mixes_as_splitmix64_does() {
        // splitmix64's first output from seed 0 is the finaliser of its increment.
        assert_eq!(mix64(0x9e37_79b9_7f4a_7c15), 0xe220_a839_7b1d_cdaf);
        assert_eq!(mix64(0), 0);
    }
}
