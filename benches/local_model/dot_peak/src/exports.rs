//! What the page calls: one `Data` made per build, its buffers' addresses (the page reads the
//! operands to check the result itself), and the loops this build holds, timed from outside.
//! The relaxed-SIMD build holds the relaxed loops, the SIMD128 build the SIMD128 loop, as the
//! engine's two builds do.

use tabloop_engine::kernels::{encoding::Encoding, matmul};

use crate::{Data, BLOCKS, COLS, ROWS, TOKENS};

/// New operands from `seed`: 7-bit activations in the relaxed build, signed 8-bit otherwise.
#[no_mangle]
pub extern "C" fn dp_new(seed: u32) -> *mut Data {
    let encoding = if cfg!(target_feature = "relaxed-simd") {
        Encoding::Unsigned7
    } else {
        Encoding::Signed8
    };
    Box::into_raw(Box::new(Data::new(seed, encoding)))
}

/// The shape: 0 rows, 1 columns, 2 tokens, 3 blocks per row.
#[no_mangle]
pub extern "C" fn dp_shape(what: u32) -> u32 {
    [ROWS, COLS, TOKENS, BLOCKS]
        .get(what as usize)
        .copied()
        .unwrap_or(0) as u32
}

/// Where the buffers are: 0 weights, 1 weight scales, 2 activations, 3 activation scales,
/// 4 results; 5 is the activations' offset.
///
/// # Safety
/// `d` must come from [`dp_new`].
#[no_mangle]
pub unsafe extern "C" fn dp_at(d: *mut Data, what: u32) -> usize {
    // SAFETY: passed on from the caller.
    let d = unsafe { &mut *d };
    match what {
        0 => d.weights.as_ptr() as usize,
        1 => d.wscales.as_ptr() as usize,
        2 => d.acts.as_ptr() as usize,
        3 => d.xscales.as_ptr() as usize,
        4 => d.out.as_ptr() as usize,
        5 => d.encoding.offset() as usize,
        _ => 0,
    }
}

/// Runs `product` `times` times, each on operands it cannot assume unchanged, after clearing
/// the results (so a loop that stops writing cannot pass the check with old ones).
fn repeat(d: *mut Data, times: u32, product: fn(&mut Data)) {
    // SAFETY: `d` comes from `dp_new` (the callers' contract).
    let d = unsafe { &mut *d };
    d.out.fill(0.0);
    for _ in 0..times {
        product(core::hint::black_box(&mut *d));
    }
}

/// The engine's relaxed-SIMD kernel on two batches of four tokens (its four-token path).
#[cfg(target_feature = "relaxed-simd")]
fn four_at_once(d: &mut Data) {
    let (first, second) = d.out.split_at_mut(TOKENS / 2 * ROWS);
    matmul(&d.matrix, &d.halves[0], first);
    matmul(&d.matrix, &d.halves[1], second);
}

/// The engine's kernel on all eight tokens: eight per weight load in the relaxed build, one
/// at a time in the SIMD128 build.
fn all_at_once(d: &mut Data) {
    matmul(&d.matrix, &d.tokens, &mut d.out);
}

/// The engine's relaxed loop, 4 tokens per weight load.
///
/// # Safety
/// `d` must come from [`dp_new`].
#[cfg(target_feature = "relaxed-simd")]
#[no_mangle]
pub unsafe extern "C" fn dp_relaxed_t4(d: *mut Data, times: u32) {
    repeat(d, times, four_at_once);
}

/// The engine's relaxed loop, 8 tokens per weight load.
///
/// # Safety
/// `d` must come from [`dp_new`].
#[cfg(target_feature = "relaxed-simd")]
#[no_mangle]
pub unsafe extern "C" fn dp_relaxed_t8(d: *mut Data, times: u32) {
    repeat(d, times, all_at_once);
}

/// The engine's SIMD128 loop.
///
/// # Safety
/// `d` must come from [`dp_new`].
#[cfg(not(target_feature = "relaxed-simd"))]
#[no_mangle]
pub unsafe extern "C" fn dp_simd128(d: *mut Data, times: u32) {
    repeat(d, times, all_at_once);
}
