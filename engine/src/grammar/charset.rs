//! Sets of code points, the one kind of terminal a grammar has: a literal's character, a
//! class like `[^"\\]`, or `.`. Each set is kept as sorted disjoint ranges plus two lookup
//! tables built once: a bitmap of its ASCII members (most text is ASCII) and a bitmap of the
//! bytes its members' UTF-8 encodings can start with (to reject a token by its first byte).

/// The largest Unicode code point.
pub(super) const MAX_CHAR: u32 = 0x10_FFFF;

/// A set of code points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CharSet {
    ascii: u128,
    ranges: Vec<(u32, u32)>,
    first_bytes: [u64; 4],
}

impl CharSet {
    /// The set of the given inclusive ranges (in any order, possibly overlapping, each with
    /// start <= end), or of everything else when `negated`.
    pub(super) fn new(ranges: &[(u32, u32)], negated: bool) -> CharSet {
        let ranges = if negated {
            complement(&normalize(ranges))
        } else {
            normalize(ranges)
        };
        let mut ascii = 0u128;
        let mut first_bytes = [0u64; 4];
        for &(lo, hi) in &ranges {
            for c in lo..=hi.min(0x7F) {
                ascii |= 1 << c;
            }
            for (b_lo, b_hi) in lead_bytes(lo, hi) {
                for b in b_lo..=b_hi {
                    first_bytes[usize::from(b >> 6)] |= 1 << (b & 63);
                }
            }
        }
        CharSet {
            ascii,
            ranges,
            first_bytes,
        }
    }

    /// The sorted, disjoint, non-adjacent ranges (what identifies the set).
    pub(super) fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// Whether `c` is in the set.
    #[inline]
    pub(super) fn contains(&self, c: u32) -> bool {
        if c < 128 {
            return (self.ascii >> c) & 1 == 1;
        }
        let i = self.ranges.partition_point(|&(_, hi)| hi < c);
        self.ranges.get(i).is_some_and(|&(lo, _)| lo <= c)
    }

    /// Whether any code point in `lo..=hi` is in the set.
    pub(super) fn intersects(&self, lo: u32, hi: u32) -> bool {
        let i = self.ranges.partition_point(|&(_, end)| end < lo);
        self.ranges.get(i).is_some_and(|&(start, _)| start <= hi)
    }

    /// A bitmap of the bytes the UTF-8 encoding of a member may start with (a superset: it
    /// does not leave out surrogates).
    pub(super) fn first_bytes(&self) -> &[u64; 4] {
        &self.first_bytes
    }
}

/// Sorts the ranges, clamps them to Unicode and merges overlapping or adjacent ones.
fn normalize(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut sorted: Vec<(u32, u32)> = ranges
        .iter()
        .filter(|&&(lo, hi)| lo <= hi && lo <= MAX_CHAR)
        .map(|&(lo, hi)| (lo, hi.min(MAX_CHAR)))
        .collect();
    sorted.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(sorted.len());
    for (lo, hi) in sorted {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    merged
}

/// Everything in `0..=MAX_CHAR` outside the (normalized) ranges.
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut next = 0u32;
    for &(lo, hi) in ranges {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi.saturating_add(1);
    }
    if next <= MAX_CHAR {
        out.push((next, MAX_CHAR));
    }
    out
}

/// The ranges of first bytes of the UTF-8 encodings of `lo..=hi`, one per encoded length.
fn lead_bytes(lo: u32, hi: u32) -> impl Iterator<Item = (u8, u8)> {
    // (first code point, last code point, lead-byte marker, shift) for each encoded length.
    const BANDS: [(u32, u32, u32, u32); 4] = [
        (0, 0x7F, 0, 0),
        (0x80, 0x7FF, 0xC0, 6),
        (0x800, 0xFFFF, 0xE0, 12),
        (0x1_0000, MAX_CHAR, 0xF0, 18),
    ];
    BANDS
        .into_iter()
        .filter_map(move |(b_lo, b_hi, mark, shift)| {
            let (a, b) = (lo.max(b_lo), hi.min(b_hi));
            let byte = |c: u32| u8::try_from(mark | (c >> shift)).unwrap_or(0xFF);
            (a <= b).then(|| (byte(a), byte(b)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negated_class_holds_everything_but_its_members() {
        let set = CharSet::new(&[(u32::from('"'), u32::from('"')), (0, 0x1F)], true);
        assert_eq!(set.ranges(), &[(0x20, 0x21), (0x23, MAX_CHAR)]);
        assert!(set.contains(u32::from('a')) && set.contains(0x1F600));
        assert!(!set.contains(u32::from('"')) && !set.contains(u32::from('\n')));
    }

    #[test]
    fn first_bytes_cover_every_encoding_length_of_a_range() {
        let set = CharSet::new(&[(u32::from('a'), 0x20AC)], false);
        let has = |b: u8| (set.first_bytes()[usize::from(b >> 6)] >> (b & 63)) & 1 == 1;
        assert!(has(b'a') && has(0xC2) && has(0xDF) && has(0xE0) && has(0xE2));
        assert!(!has(b'`') && !has(0xE3) && !has(0xF0));
    }
}
