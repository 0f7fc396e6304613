//! Output that several threads write at once, each to its own rows: a matrix product split by
//! row groups writes, for every token, the rows of its groups and no others.

use std::marker::PhantomData;

/// A float buffer borrowed exclusively, handed to threads that write disjoint parts of it.
pub struct SharedOut<'a> {
    ptr: *mut f32,
    len: usize,
    _borrow: PhantomData<&'a mut [f32]>,
}

// SAFETY: the buffer is borrowed exclusively for 'a; concurrent writes are sound because
// `write`'s contract requires every caller to write elements no other caller touches.
#[allow(unsafe_code)]
unsafe impl Send for SharedOut<'_> {}
#[allow(unsafe_code)]
unsafe impl Sync for SharedOut<'_> {}

impl<'a> SharedOut<'a> {
    /// Wraps `out` for the duration of a parallel job.
    pub fn new(out: &'a mut [f32]) -> SharedOut<'a> {
        SharedOut {
            ptr: out.as_mut_ptr(),
            len: out.len(),
            _borrow: PhantomData,
        }
    }

    /// Writes `values` at `at`.
    ///
    /// # Safety
    /// No other thread may read or write `at..at + values.len()` while this buffer is shared.
    #[allow(unsafe_code)]
    pub unsafe fn write(&self, at: usize, values: &[f32]) {
        assert!(
            at + values.len() <= self.len,
            "write past the end of the output"
        );
        // SAFETY: in bounds (asserted); exclusive to this caller by the contract.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), self.ptr.add(at), values.len()) };
    }
}

/// Writes one group's four row sums (a vector) for token `t`, leaving out the padding rows
/// past the matrix's last.
///
/// # Safety
/// The group's rows must be this caller's alone while `out` is shared (see [`SharedOut::write`]).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)]
pub unsafe fn store_group(
    w: &crate::quant::QMatrix,
    out: &SharedOut,
    t: usize,
    group: usize,
    sums: core::arch::wasm32::v128,
) {
    use core::arch::wasm32::f32x4_extract_lane;
    let row = group * crate::quant::GROUP_ROWS;
    let values = [
        f32x4_extract_lane::<0>(sums),
        f32x4_extract_lane::<1>(sums),
        f32x4_extract_lane::<2>(sums),
        f32x4_extract_lane::<3>(sums),
    ];
    let valid = crate::quant::GROUP_ROWS.min(w.rows - row);
    // SAFETY: passed on from the caller.
    unsafe { out.write(t * w.rows + row, &values[..valid]) };
}
