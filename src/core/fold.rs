//! A whole log folded into a view that takes its records one at a time (the sessions digest,
//! the timeline, the run meters): from the view's start, every record in order, so a view read
//! from a stored log equals the one that heard the records arrive.

use super::log::Record;

/// `F` from its `Default`, with `push` applied to every record of `records` in order (what
/// `push` returns, such as whether the record changed the view, is of no use here).
pub fn fold_records<F: Default, R>(
    records: &[Record],
    mut push: impl FnMut(&mut F, &Record) -> R,
) -> F {
    let mut fold = F::default();
    for record in records {
        push(&mut fold, record);
    }
    fold
}
