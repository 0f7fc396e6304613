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
