//! "The log advanced" hints between tabs over a BroadcastChannel. A hint is not a record: a
//! follower that hears one re-reads the log from IndexedDB, which stays the source of truth.
//! Hints are coalesced: the records stored in one turn of the event loop cost one message per
//! session (the highest seq), not one per record, and a tab posts at most once every
//! [`HINT_INTERVAL_MS`] (a post costs its tab tens of microseconds; a run writing a step a
//! millisecond would otherwise pay that every step). The last records are always posted.

use serde::{Deserialize, Serialize};

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const CHANNEL: &str = "tabloop-log";

/// The shortest time between two posts of a tab: a follower shows a run at most this late.
pub const HINT_INTERVAL_MS: u64 = 16;

/// A hint: `session` has records up to `seq`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Advanced {
    /// Session id.
    pub session: String,
    /// Last seq written.
    pub seq: u64,
}

type Listener = Rc<dyn Fn(&Advanced)>;
/// The page's channel with its message handler (kept alive as long as the channel).
type Channel = (
    web_sys::BroadcastChannel,
    Closure<dyn FnMut(web_sys::MessageEvent)>,
);

thread_local! {
    static CHANNEL_STATE: RefCell<Option<Channel>> = const { RefCell::new(None) };
    static LISTENERS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
    /// Hints not posted yet: the highest seq per session since the last post.
    static PENDING: RefCell<BTreeMap<String, u64>> = const { RefCell::new(BTreeMap::new()) };
    /// When this tab last posted (`Date.now()`), if it has.
    static LAST_POST: Cell<Option<u64>> = const { Cell::new(None) };
}

fn with_channel(f: impl FnOnce(&web_sys::BroadcastChannel)) {
    CHANNEL_STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.is_none() {
            let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) else {
                return;
            };
            let on_message =
                Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|event: web_sys::MessageEvent| {
                    let Some(text) = event.data().as_string() else {
                        return;
                    };
                    let Ok(hint) = serde_json::from_str::<Advanced>(&text) else {
                        return;
                    };
                    let listeners = LISTENERS.with(|l| l.borrow().clone());
                    for listener in listeners {
                        listener(&hint);
                    }
                });
            channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            *state = Some((channel, on_message));
        }
        if let Some((channel, _)) = state.as_ref() {
            f(channel);
        }
    });
}

/// Tells other tabs that `session` now has records up to `seq`: at the end of this turn of the
/// event loop together with the other records stored in it, or, when this tab posted less than
/// [`HINT_INTERVAL_MS`] ago, together with everything stored until that interval is over.
pub fn announce(session: &str, seq: u64) {
    let first = PENDING.with(|pending| {
        let mut pending = pending.borrow_mut();
        let first = pending.is_empty();
        let highest = pending.entry(session.to_string()).or_insert(seq);
        *highest = (*highest).max(seq);
        first
    });
    if first {
        let wait = post_delay(LAST_POST.with(Cell::get), super::timer::now_ms());
        wasm_bindgen_futures::spawn_local(async move {
            if wait > 0 {
                super::timer::sleep(wait).await;
            }
            LAST_POST.with(|last| last.set(Some(super::timer::now_ms())));
            post_pending();
        });
    }
}

/// How long a hint waits before it is posted at `now`, when the last post was at `last`.
pub fn post_delay(last: Option<u64>, now: u64) -> u64 {
    last.map_or(0, |last| (last + HINT_INTERVAL_MS).saturating_sub(now))
}

/// Posts one hint per session with records announced since the last post.
fn post_pending() {
    let pending = PENDING.with(|pending| std::mem::take(&mut *pending.borrow_mut()));
    for (session, seq) in pending {
        let text = crate::protocol::json_text(&Advanced { session, seq });
        with_channel(|channel| {
            // A tab that cannot post simply leaves its followers to catch up on takeover.
            let _ = channel.post_message(&JsValue::from_str(&text));
        });
    }
}

/// Calls `listener` for every hint from other tabs.
pub fn listen(listener: Listener) {
    with_channel(|_| {});
    LISTENERS.with(|l| l.borrow_mut().push(listener));
}
