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
//!
//! 8 bits as sign and magnitude ([`Encoding::SignMagnitude8`]) are exact on every CPU too, at
//! the cost of a load and an xor more per product. Where the CPU saturates the probe still picks
//! 7 bits: the 8-bit form measured as fast in prefill but 12–15 % slower in generation by CPU
//! time (BENCHMARKS.md, "Activations: 7 bits or 8-bit sign-magnitude"); it can be asked for by
//! name ([`choose`]; the tab's worker takes it as a load option) where accuracy matters more
//! than speed.

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
    /// −127..=127 stored as its magnitude (0..=127), its sign in a mask byte beside it (0xFF
    /// where negative): the kernels flip the weight's bits where the mask is set (`!w = −w − 1`)
    /// and add back the block's sum of negative values' magnitudes. Exact on every CPU: the
    /// magnitudes are below 128 and a pair of products stays within 2 · 128 · 127 = 32,512, so a
    /// dot product that reads them unsigned and saturates 16-bit pair sums (`pmaddubsw`)
    /// computes what the others do.
    SignMagnitude8,
}

impl Encoding {
    /// What a value is stored plus (undone with each weight block's sum).
    pub fn offset(self) -> i32 {
        match self {
            Encoding::Unsigned8 => 128,
            Encoding::Signed8 | Encoding::SignMagnitude8 => 0,
            Encoding::Unsigned7 => 64,
        }
    }

    /// The largest magnitude of a quantized value.
    pub fn max(self) -> f32 {
        match self {
            Encoding::Unsigned8 | Encoding::Signed8 | Encoding::SignMagnitude8 => 127.0,
            Encoding::Unsigned7 => 63.0,
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Unsigned8 => "8-bit (read unsigned)",
            Encoding::Signed8 => "8-bit (read signed)",
            Encoding::Unsigned7 => "7-bit",
            Encoding::SignMagnitude8 => "8-bit sign-magnitude",
        }
    }

    /// Every encoding, for finding one by name.
    pub const ALL: [Encoding; 4] = [
        Encoding::Unsigned8,
        Encoding::Signed8,
        Encoding::Unsigned7,
        Encoding::SignMagnitude8,
    ];

    /// The encoding [`Encoding::name`] calls `name`.
    pub fn named(name: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether values carry a sign mask beside them ([`Encoding::SignMagnitude8`]).
    pub fn masks_signs(self) -> bool {
        match self {
            Encoding::SignMagnitude8 => true,
            Encoding::Unsigned8 | Encoding::Signed8 | Encoding::Unsigned7 => false,
        }
    }

    /// The byte stored for the quantized value `q` (within ±[`Encoding::max`]).
    #[inline(always)]
    pub fn store(self, q: i32) -> u8 {
        match self {
            Encoding::SignMagnitude8 => q.unsigned_abs() as u8,
            Encoding::Unsigned8 | Encoding::Signed8 | Encoding::Unsigned7 => {
                (q + self.offset()) as u8
            }
        }
    }

    /// The quantized value plus the offset, from its stored byte (what the dot product sums; the
    /// magnitude where signs are masked).
    #[inline(always)]
    pub fn load(self, byte: u8) -> i32 {
        match self {
            Encoding::Signed8 => i32::from(byte as i8),
            Encoding::Unsigned8 | Encoding::Unsigned7 | Encoding::SignMagnitude8 => i32::from(byte),
        }
    }
}

static CHOSEN: OnceLock<Encoding> = OnceLock::new();

/// The encoding this build's kernels use on this CPU (probed once, unless [`choose`] came first).
pub fn encoding() -> Encoding {
    *CHOSEN.get_or_init(probe)
}

/// Computes with `wanted` instead of the probe's choice, for measuring one against another (the
/// tab's benchmark): refused (false) where this build's kernels would not be exact with it on
/// this CPU ([`exact_here`]) or another encoding is already in use.
pub fn choose(wanted: Encoding) -> bool {
    exact_here().contains(&wanted) && *CHOSEN.get_or_init(|| wanted) == wanted
}

/// The encodings this build's kernels compute exactly on this CPU: the probe's choice first.
pub fn exact_here() -> Vec<Encoding> {
    #[allow(unused_mut)] // the SIMD128 build adds nothing
    let mut out = vec![probe()];
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "relaxed-simd"))]
    for e in [Encoding::SignMagnitude8, Encoding::Unsigned7] {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    for e in Encoding::ALL {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// The portable kernel sums exact 32-bit products: 8 bits, as llama.cpp, unless
/// `TABLOOP_ENGINE_ACTIVATIONS` names another encoding (as [`Encoding::name`] reports it). The
/// portable sums are exact in every encoding, so natively this computes what a browser on a CPU
/// that needs that encoding computes (its test compares the two).
#[cfg(not(target_arch = "wasm32"))]
fn probe() -> Encoding {
    let wanted = std::env::var("TABLOOP_ENGINE_ACTIVATIONS").unwrap_or_default();
    Encoding::named(&wanted).unwrap_or(Encoding::Unsigned8)
}

/// The SIMD128 kernel widens bytes to 16 bits before multiplying: exact for signed 8-bit
/// activations on every CPU.
#[cfg(all(target_arch = "wasm32", not(target_feature = "relaxed-simd")))]
fn probe() -> Encoding {
    Encoding::Signed8
}

/// Reads the relaxed dot product of known vectors: exact unsigned products of bytes above 127
/// mean the CPU reads them unsigned without saturating; exact signed ones, signed; anything
/// else (saturated pair sums), 7 bits, the faster of the encodings exact there (see the module).
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
