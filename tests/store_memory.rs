//! The store contract against the in-memory reference store.
#![cfg(all(test, not(target_arch = "wasm32")))]

mod store_contract;

use futures::executor::block_on;
use tabloop::ports::MemoryStore;

/// One `#[test]` per contract check, each on a fresh `MemoryStore`.
macro_rules! contract {
    ($($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                block_on(store_contract::$check(&MemoryStore::default()));
            }
        )*
    };
}

contract!(
    append_then_load_returns_the_same_records_in_order,
    appends_in_several_batches_continue_the_log,
    loading_an_unknown_session_gives_an_empty_log,
    a_gap_is_refused_with_gap,
    a_batch_with_a_gap_writes_nothing,
    a_conflicting_reappend_is_refused_with_conflict,
    a_batch_with_a_conflict_writes_nothing,
    a_refused_append_to_a_new_session_creates_no_session,
    an_empty_append_changes_nothing,
    reappending_identical_records_is_accepted_without_duplicates,
    a_retry_overlapping_the_log_appends_only_new_records,
    sessions_are_isolated,
    sessions_reports_counts_and_last_time,
    delete_removes_only_that_session,
    a_deleted_session_starts_again_from_zero,
    a_record_round_trips_byte_identical_through_json,
    a_thousand_records_load_back_in_order,
    the_index_digest_matches_the_log_after_every_append,
    resting_changes_nothing_a_reader_sees,
    load_range_returns_the_asked_records,
    ranges_and_retries_inside_long_batches,
    a_session_name_survives_appends_and_goes_with_a_delete,
    a_snapshot_reads_back_until_replaced_or_deleted,
);
