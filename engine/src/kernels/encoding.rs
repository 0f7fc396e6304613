//! How activations are stored for the 8-bit dot product, chosen once for the CPU at hand.
//!
//! WebAssembly's relaxed dot product (`i32x4.relaxed_dot_i8x16_i7x16_add`) is exact everywhere
//! only for a second operand below 128; above, each CPU reads it its own way, the same way every
//! time: x86 with AVX-VNNI reads it unsigned (`vpdpbusd`), Arm signed (`sdot`), and x86 without
//! VNNI unsigned but saturating 16-bit pair sums (`pmaddubsw`). A probe of known products tells
//! which, and activations are stored so that the sums are exact: 8 bits as llama.cpp quantizes
//! them where the CPU allows (offset by 128 where read unsigned, as they are where read signed),
//! else 7 bits offset by 64 (which doubles the rounding error: logits measured 0.55–0.86 from
//! native llama.cpp's, against 0.24–0.32 with 8 bits).

use std::sync::OnceLock;

/// The stored form of a quantized activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// −127..=127 stored plus 128 (1..=255): where the dot product reads it unsigned.
    Unsigned8,
    /// −127..=127 stored as signed bytes: where the dot product reads it signed.
    Signed8,
    /// −63..=63 stored plus 64 (1..=127): exact on every CPU.
    Unsigned7,
}

impl Encoding {
    /// What a value is stored plus (undone with each weight block's sum).
    pub fn offset(self) -> i32 {
        match self {
            Encoding::Unsigned8 => 128,
            Encoding::Signed8 => 0,
            Encoding::Unsigned7 => 64,
        }
    }

    /// The largest magnitude of a quantized value.
    pub fn max(self) -> f32 {
        match self {
            Encoding::Unsigned8 | Encoding::Signed8 => 127.0,
            Encoding::Unsigned7 => 63.0,
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Unsigned8 => "8-bit (read unsigned)",
            Encoding::Signed8 => "8-bit (read signed)",
            Encoding::Unsigned7 => "7-bit",
        }
    }

    /// The byte stored for the quantized value `q` (within ±[`Encoding::max`]).
    #[inline(always)]
    pub fn store(self, q: i32) -> u8 {
        (q + self.offset()) as u8
    }

    /// The quantized value plus the offset, from its stored byte (what the dot product sums).
    #[inline(always)]
    pub fn load(self, byte: u8) -> i32 {
        match self {
            Encoding::Signed8 => i32::from(byte as i8),
            Encoding::Unsigned8 | Encoding::Unsigned7 => i32::from(byte),
        }
    }
}

/// The encoding this build's kernels use on this CPU (probed once).
pub fn encoding() -> Encoding {
    static CHOSEN: OnceLock<Encoding> = OnceLock::new();
    *CHOSEN.get_or_init(probe)
}

/// The portable kernel sums exact 32-bit products: 8 bits, as llama.cpp, unless
/// `TABLOOP_ENGINE_ACTIVATIONS` names another encoding (as [`Encoding::name`] reports it). The
/// portable sums are exact in every encoding, so natively this computes what a browser on a CPU
/// that needs that encoding computes (its test compares the two).
#[cfg(not(target_arch = "wasm32"))]
fn probe() -> Encoding {
    let wanted = std::env::var("TABLOOP_ENGINE_ACTIVATIONS").unwrap_or_default();
    [Encoding::Signed8, Encoding::Unsigned7]
        .into_iter()
        .find(|encoding| encoding.name() == wanted)
        .unwrap_or(Encoding::Unsigned8)
}

/// The SIMD128 kernel widens bytes to 16 bits before multiplying: exact for signed 8-bit
/// activations on every CPU.
#[cfg(all(target_arch = "wasm32", not(target_feature = "relaxed-simd")))]
fn probe() -> Encoding {
    Encoding::Signed8
}

/// Reads the relaxed dot product of known vectors: exact unsigned products of bytes above 127
/// mean the CPU reads them unsigned without saturating; exact signed ones, signed.
#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
fn probe() -> Encoding {
    use core::arch::wasm32::*;
    let weights: [i8; 16] = [
        127, 127, -127, 127, -128, 1, 2, 3, 127, 127, 127, 127, -1, 0, 5, -7,
    ];
    let acts: [u8; 16] = [
        255, 255, 255, 255, 200, 130, 129, 255, 1, 2, 3, 4, 255, 255, 128, 255,
    ];
    let expect = |signed: bool| -> [i32; 4] {
        let mut out = [0; 4];
        for (i, lane) in out.iter_mut().enumerate() {
            for k in 0..4 {
                let a = i32::from(weights[4 * i + k]);
                let b = acts[4 * i + k];
                *lane += a * if signed {
                    i32::from(b as i8)
                } else {
                    i32::from(b)
                };
            }
        }
        out
    };
    let w = i8x16(
        weights[0],
        weights[1],
        weights[2],
        weights[3],
        weights[4],
        weights[5],
        weights[6],
        weights[7],
        weights[8],
        weights[9],
        weights[10],
        weights[11],
        weights[12],
        weights[13],
        weights[14],
        weights[15],
    );
    let x = u8x16(
        acts[0], acts[1], acts[2], acts[3], acts[4], acts[5], acts[6], acts[7], acts[8], acts[9],
        acts[10], acts[11], acts[12], acts[13], acts[14], acts[15],
    );
    // opaque to the compiler, so the product is computed by this CPU, not folded at build time
    let (w, x) = std::hint::black_box((w, x));
    let sums = i32x4_relaxed_dot_i8x16_i7x16_add(w, x, i32x4_splat(0));
    let got = [
        i32x4_extract_lane::<0>(sums),
        i32x4_extract_lane::<1>(sums),
        i32x4_extract_lane::<2>(sums),
        i32x4_extract_lane::<3>(sums),
    ];
    if got == expect(false) {
        Encoding::Unsigned8
    } else if got == expect(true) {
        Encoding::Signed8
    } else {
        Encoding::Unsigned7
    }
}
