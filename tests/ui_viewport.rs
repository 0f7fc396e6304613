//! The long-session list: which items a scrolled timeline draws, how measured heights move the
//! spacers, and finding a step to jump to, on a real 10,004-event log.

#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use pretty_assertions::assert_eq;
use tabloop::runtime::synthetic::session_log;
use tabloop::view::{Timeline, TimelineItem, Viewport, MIN_WINDOW};

fn viewport(len: usize, height: f64) -> Viewport {
    let mut v = Viewport::new(height);
    v.set_len(len);
    v
}

#[test]
fn a_short_list_is_drawn_whole() {
    assert_eq!(viewport(12, 50.0).window(0.0, 800.0), 0..12);
}

#[test]
fn a_long_list_draws_the_visible_items_and_the_overscan_only() {
    let v = viewport(10_000, 50.0);
    // 600 px overscan each side of an 800 px box at 50 px per item.
    assert_eq!(v.window(100_000.0, 800.0), 1988..2028);
    assert_eq!(v.window(0.0, 800.0), 0..MIN_WINDOW.max(28));
    assert_eq!(v.window(v.total(), 800.0), (10_000 - MIN_WINDOW)..10_000);
}

#[test]
fn measured_heights_replace_the_estimate_and_move_later_offsets() {
    let mut v = viewport(4, 50.0);
    assert_eq!(v.offset(3), 150.0);
    assert!(v.measure(0, 100.0));
    assert!(
        !v.measure(0, 100.0),
        "the same height again changes nothing"
    );
    // Unmeasured items are now estimated at the mean of the measured ones.
    assert_eq!(v.estimate(), 100.0);
    assert!(v.measure(1, 20.0));
    assert_eq!(v.estimate(), 60.0);
    assert_eq!(v.offset(3), 100.0 + 20.0 + 60.0);
    assert_eq!(v.total(), 240.0);
    v.set_len(1);
    assert_eq!(v.estimate(), 100.0);
    assert_eq!(v.scroll_to(9), 100.0);
}

#[test]
fn a_ten_thousand_event_session_draws_a_small_window_and_finds_every_step() {
    let records = session_log(10_004, "long");
    assert!(records.len() >= 10_000, "{}", records.len());
    let timeline = Timeline::from_records(&records);
    let items = timeline.items().len();
    assert!(
        matches!(timeline.items().last(), Some(TimelineItem::RunFinished(_))),
        "the run is over, so opening it does not resume it"
    );
    assert!(items > 3_000, "{items} items");
    let mut v = Viewport::new(60.0);
    v.set_len(items);
    let bottom = v.window(v.total() - 800.0, 800.0);
    assert_eq!(bottom.end, items);
    assert!(bottom.len() <= 60, "{bottom:?}");
    assert_eq!(timeline.keys_in(bottom.clone()).len(), bottom.len());

    let index = timeline.step_index(1_000).unwrap();
    match &timeline.items()[index] {
        TimelineItem::Step(marker) => assert_eq!(marker.step, 1_000),
        other => panic!("not a step: {other:?}"),
    }
    let jumped = v.window(v.scroll_to(index), 800.0);
    assert!(jumped.contains(&index), "{jumped:?} misses {index}");
    assert_eq!(timeline.step_index(1_000_000), None);
}
