//! Incremental UTF-8 decoding: bytes arrive in token-sized pieces that may end in the middle
//! of a code point, so the decoder keeps what it has of the current sequence between calls and
//! can say which code points could still complete it. Only well-formed UTF-8 (no overlong
//! forms, no surrogates, nothing past U+10FFFF) is decoded.

/// A decoder part-way through (or between) UTF-8 sequences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Utf8 {
    /// The bits of the current code point read so far.
    bits: u32,
    /// Continuation bytes still needed; 0 between sequences.
    need: u8,
    /// The range the next continuation byte must fall in (narrower than 0x80..=0xBF right
    /// after some lead bytes, which is how overlong forms and surrogates are refused).
    lo: u8,
    hi: u8,
}

/// What one byte did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fed {
    /// It completed this code point.
    Char(u32),
    /// It started or continued a sequence that is not complete yet.
    More,
    /// It cannot appear here in well-formed UTF-8.
    Invalid,
}

impl Utf8 {
    /// Whether no sequence is under way.
    pub(super) fn is_idle(&self) -> bool {
        self.need == 0
    }

    /// Takes one byte. After `Invalid` the decoder is in an unspecified state: callers work on
    /// a copy and drop it.
    pub(super) fn feed(&mut self, byte: u8) -> Fed {
        if self.need == 0 {
            let (bits, need, lo, hi) = match byte {
                0x00..=0x7F => return Fed::Char(u32::from(byte)),
                0xC2..=0xDF => (byte & 0x1F, 1, 0x80, 0xBF),
                0xE0 => (0, 2, 0xA0, 0xBF),
                0xE1..=0xEC | 0xEE..=0xEF => (byte & 0x0F, 2, 0x80, 0xBF),
                0xED => (0x0D, 2, 0x80, 0x9F),
                0xF0 => (0, 3, 0x90, 0xBF),
                0xF1..=0xF3 => (byte & 0x07, 3, 0x80, 0xBF),
                0xF4 => (0x04, 3, 0x80, 0x8F),
                _ => return Fed::Invalid,
            };
            *self = Utf8 {
                bits: u32::from(bits),
                need,
                lo,
                hi,
            };
            return Fed::More;
        }
        if byte < self.lo || byte > self.hi {
            return Fed::Invalid;
        }
        self.bits = (self.bits << 6) | u32::from(byte & 0x3F);
        self.need -= 1;
        self.lo = 0x80;
        self.hi = 0xBF;
        if self.need == 0 {
            let c = self.bits;
            self.bits = 0;
            Fed::Char(c)
        } else {
            Fed::More
        }
    }

    /// The code points that could complete the sequence under way (a contiguous range), or
    /// `None` between sequences.
    pub(super) fn pending_range(&self) -> Option<(u32, u32)> {
        if self.need == 0 {
            return None;
        }
        let rest = 6 * u32::from(self.need - 1);
        let lo = ((self.bits << 6) | u32::from(self.lo & 0x3F)) << rest;
        let hi = (((self.bits << 6) | u32::from(self.hi & 0x3F)) << rest) | ((1 << rest) - 1);
        Some((lo, hi))
    }

    /// The bytes that may come next inside the sequence under way, or `None` between sequences.
    pub(super) fn next_byte_range(&self) -> Option<(u8, u8)> {
        (self.need != 0).then_some((self.lo, self.hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> (Vec<u32>, Utf8, bool) {
        let mut d = Utf8::default();
        let mut out = Vec::new();
        for &b in bytes {
            match d.feed(b) {
                Fed::Char(c) => out.push(c),
                Fed::More => {}
                Fed::Invalid => return (out, d, false),
            }
        }
        (out, d, true)
    }

    #[test]
    fn well_formed_text_decodes_to_its_code_points() {
        let text = "aé€😀";
        let (chars, d, ok) = decode(text.as_bytes());
        assert!(ok && d.is_idle());
        assert_eq!(chars, text.chars().map(u32::from).collect::<Vec<_>>());
    }

    #[test]
    fn overlong_forms_surrogates_and_stray_bytes_are_invalid() {
        for bad in [
            &[0xC0, 0x80][..],
            &[0xE0, 0x80, 0x80],
            &[0xED, 0xA0, 0x80],
            &[0xF4, 0x90],
            &[0x80],
            &[0xFF],
        ] {
            assert!(!decode(bad).2, "{bad:?}");
        }
    }

    #[test]
    fn a_partial_sequence_knows_which_code_points_could_complete_it() {
        assert_eq!(decode(&[0xE2]).1.pending_range(), Some((0x2000, 0x2FFF)));
        assert_eq!(decode(&[0xED]).1.pending_range(), Some((0xD000, 0xD7FF)));
        assert_eq!(
            decode(&[0xF0, 0x9F]).1.pending_range(),
            Some((0x1F000, 0x1FFFF))
        );
        assert_eq!(decode(&[0xC3]).1.pending_range(), Some((0xC0, 0xFF)));
        assert_eq!(decode(b"a").1.pending_range(), None);
    }
}
