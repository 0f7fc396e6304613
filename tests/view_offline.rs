//! What the playground says about working offline: the header's network badge and the
//! settings' storage line.
#![cfg(not(target_arch = "wasm32"))]

use pretty_assertions::assert_eq;
use tabloop::view::{network_badge, StorageUse};

#[test]
fn the_badge_says_offline_first_then_whether_the_site_is_kept() {
    let states: Vec<_> = [(false, true), (false, false), (true, true), (true, false)]
        .into_iter()
        .map(|(online, kept)| {
            let badge = network_badge(online, kept);
            (badge.state, badge.text)
        })
        .collect();
    assert_eq!(
        states,
        vec![
            ("offline", "Offline"),
            ("offline", "Offline"),
            ("offline-ready", "Works offline"),
            ("online", "Online"),
        ]
    );
    assert!(network_badge(false, true)
        .title
        .contains("in-tab model works"));
}

#[test]
fn storage_use_reads_as_bytes_of_the_quota_and_whether_it_is_kept() {
    let used = StorageUse {
        usage: 98_362_432 + 4 * 1024 * 1024,
        quota: 10 * 1024 * 1024 * 1024,
        persisted: Some(false),
    };
    assert_eq!(used.usage_text(), "97.8 MiB used of 10.0 GiB (under 1%)");
    let half = StorageUse {
        usage: 5 * 1024 * 1024 * 1024,
        ..used
    };
    assert_eq!(half.usage_text(), "5.0 GiB used of 10.0 GiB (50%)");
    assert!(used.persistence_text().starts_with("Not persistent"));
    let kept = StorageUse {
        usage: 512,
        quota: 0,
        persisted: Some(true),
    };
    assert_eq!(kept.usage_text(), "512 B used");
    assert!(kept.persistence_text().starts_with("Persistent"));
    let unknown = StorageUse {
        persisted: None,
        ..kept
    };
    assert_eq!(
        unknown.persistence_text(),
        "This browser does not say whether it keeps it."
    );
}
