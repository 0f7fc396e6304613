//! "The log advanced" hints between tabs over a BroadcastChannel. A hint is not a record: a
//! follower that hears one re-reads the log from IndexedDB, which stays the source of truth.
//! Hints are coalesced: the records stored in one turn of the event loop cost one message per
//! session (the highest seq), not one per record.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const CHANNEL: &str = "tabloop-log";

/// A hint: `session` has records up to `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advanced {
    /// Session id.
    pub session: String,
    /// Last seq written.
    pub seq: u64,
}

crate::protocol::encode::json_struct!(Advanced { session, seq });

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
                    let Ok(hint) = crate::protocol::decode::from_str::<Advanced>(&text) else {
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

/// Tells other tabs that `session` now has records up to `seq`, at the end of this turn of the
/// event loop together with the other records stored in it.
pub fn announce(session: &str, seq: u64) {
    let first = PENDING.with(|pending| {
        let mut pending = pending.borrow_mut();
        let first = pending.is_empty();
        let highest = pending.entry(session.to_string()).or_insert(seq);
        *highest = (*highest).max(seq);
        first
    });
    if first {
        wasm_bindgen_futures::spawn_local(async { post_pending() });
    }
}

/// Posts one hint per session with records announced since the last post.
fn post_pending() {
    let pending = PENDING.with(|pending| std::mem::take(&mut *pending.borrow_mut()));
    for (session, seq) in pending {
        let text = crate::protocol::encode::to_string(&Advanced { session, seq });
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
