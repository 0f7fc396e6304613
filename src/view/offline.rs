//! What the playground says about working offline: the network state in the header (and
//! whether this build is kept for use without a network), and the browser storage the models
//! live in, in the settings.

use super::format::format_bytes;

/// The header's network badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkBadge {
    /// The badge's text.
    pub text: &'static str,
    /// What it means, in a sentence (its tooltip).
    pub title: &'static str,
    /// `online`, `offline-ready` or `offline`: the CSS class and the test hook's value.
    pub state: &'static str,
}

/// The badge for the browser's network state and whether a service worker serves this page
/// (then a reload without a network still starts the playground).
pub fn network_badge(online: bool, site_kept: bool) -> NetworkBadge {
    match (online, site_kept) {
        (false, _) => NetworkBadge {
            text: "Offline",
            title: "No network: the in-tab model works; a run on a remote provider or an MCP \
                    server pauses and goes on when the network returns.",
            state: "offline",
        },
        (true, true) => NetworkBadge {
            text: "Works offline",
            title: "Online. This site is kept in the browser: it starts and runs the in-tab \
                    model without a network too.",
            state: "offline-ready",
        },
        (true, false) => NetworkBadge {
            text: "Online",
            title: "Online. The site is not kept for offline use yet (it is after this load \
                    finishes, where the browser allows it).",
            state: "online",
        },
    }
}

pub use crate::ports::StorageUse;

impl StorageUse {
    /// "94.0 MiB used of 9.5 GiB (under 1%)".
    pub fn usage_text(&self) -> String {
        let mut text = format!("{} used", format_bytes(self.usage));
        if self.quota > 0 {
            let percent = self.usage as f64 / self.quota as f64 * 100.0;
            let share = if percent < 1.0 {
                "under 1%".to_string()
            } else {
                format!("{percent:.0}%")
            };
            text.push_str(&format!(" of {} ({share})", format_bytes(self.quota)));
        }
        text
    }

    /// Whether the models and sessions survive storage pressure, in a sentence.
    pub fn persistence_text(&self) -> &'static str {
        match self.persisted {
            Some(true) => "Persistent: the browser keeps it when space runs low.",
            Some(false) => {
                "Not persistent: the browser may clear it when space runs low (it grants \
                 persistence to sites used often or installed)."
            }
            None => "This browser does not say whether it keeps it.",
        }
    }
}
