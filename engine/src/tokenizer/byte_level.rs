//! GPT-2's byte-to-unicode alphabet: byte-level BPE vocabularies write every byte as one
//! printable character (`Ġ` for a space, `Ċ` for a newline), so token texts in the GGUF are
//! strings over 256 characters. This maps each byte to its character and back.

/// The character GPT-2's alphabet writes for `byte`: printable Latin-1 bytes (`!`..=`~`,
/// `¡`..=`¬`, `®`..=`ÿ`) stand for themselves; the other 68 bytes, in order, become U+0100,
/// U+0101, ...
pub(crate) fn byte_char(byte: u8) -> char {
    if printable(byte) {
        return char::from(byte);
    }
    // The n-th non-printable byte (0-based) maps to U+0100 + n.
    let below = (0..byte).filter(|b| !printable(*b)).count() as u32;
    char::from_u32(0x100 + below).unwrap_or(char::REPLACEMENT_CHARACTER)
}

fn printable(byte: u8) -> bool {
    matches!(byte, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF)
}

/// Byte to character and character to byte as lookup tables, built once per tokenizer.
#[derive(Debug, Clone)]
pub(crate) struct Alphabet {
    /// UTF-8 of each byte's character (1 or 2 bytes), as (bytes, length).
    utf8: [([u8; 2], u8); 256],
    /// The byte for each character U+0000..U+0144 (the alphabet's whole range), or 0xFFFF.
    bytes: [u16; 0x144],
}

impl Alphabet {
    /// Builds the tables.
    pub(crate) fn new() -> Alphabet {
        let mut utf8 = [([0u8; 2], 0u8); 256];
        let mut bytes = [u16::MAX; 0x144];
        for byte in 0..=255u8 {
            let c = byte_char(byte);
            let mut buf = [0u8; 4];
            let len = c.encode_utf8(&mut buf).len();
            utf8[usize::from(byte)] = ([buf[0], buf[1]], len as u8);
            if let Some(slot) = bytes.get_mut(u32::from(c) as usize) {
                *slot = u16::from(byte);
            }
        }
        Alphabet { utf8, bytes }
    }

    /// Appends the UTF-8 of `byte`'s character to `out`.
    pub(crate) fn push_encoded(&self, byte: u8, out: &mut Vec<u8>) {
        let (buf, len) = &self.utf8[usize::from(byte)];
        out.extend_from_slice(&buf[..usize::from(*len)]);
    }

    /// Decodes a token text written in the alphabet into the bytes it stands for, into `out`
    /// (cleared first); `false` when some character is not in the alphabet.
    pub(crate) fn decode_into(&self, text: &str, out: &mut Vec<u8>) -> bool {
        out.clear();
        for c in text.chars() {
            match self.bytes.get(u32::from(c) as usize) {
                Some(&b) if b != u16::MAX => out.push(b as u8),
                _ => return false,
            }
        }
        true
    }
}
