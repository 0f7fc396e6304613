//! `agent.onStop(hook)`: the page's stop hook for one session handle. Registering tells the
//! driver to put every accepted completion to the hook; each persisted `StopHookAsked` record is
//! answered with the hook's verdict (a throw, a timeout or an odd answer is a failure).

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use super::tool_host::run_stop_hook;
use crate::core::{Event, Input};
use crate::runtime::{LiveSession, Notice, SessionEvent};

/// Time a hook may take before its silence counts as a failure.
pub const DEFAULT_STOP_HOOK_TIMEOUT_MS: u32 = 30_000;

type Hook = Rc<RefCell<Option<(js_sys::Function, u32)>>>;

/// The hook of one handle (replaced by a later `onStop`, removed by `onStop(null)`).
#[derive(Default)]
pub struct StopHookSlot {
    hook: Hook,
    listening: Cell<bool>,
}

impl StopHookSlot {
    /// Sets (or with `None` removes) the hook of `handle`.
    pub fn set(&self, handle: &Rc<LiveSession>, hook: Option<js_sys::Function>, timeout_ms: u32) {
        let registered = hook.is_some();
        *self.hook.borrow_mut() = hook.map(|f| (f, timeout_ms));
        handle.set_stop_hook(registered);
        if !registered || self.listening.replace(true) {
            return;
        }
        let weak: Weak<LiveSession> = Rc::downgrade(handle);
        let hook = self.hook.clone();
        handle.subscribe(Rc::new(move |event: &SessionEvent| {
            let SessionEvent::Notice(notice) = event else {
                return;
            };
            let Notice::Persisted(record) = notice.as_ref() else {
                return;
            };
            let Event::StopHookAsked { proposal } = &record.event else {
                return;
            };
            let Some(handle) = weak.upgrade().filter(|h| h.is_writer()) else {
                return;
            };
            let current = hook.borrow().clone();
            let proposal = proposal.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let verdict = match current {
                    Some((f, timeout_ms)) => run_stop_hook(&f, &proposal, timeout_ms).await,
                    None => crate::core::StopVerdict::Failed {
                        message: "no stop hook is registered in this tab".into(),
                    },
                };
                // Refused only when this tab stopped writing; the new writer asks again.
                let _ = handle.send(Input::StopHookAnswered { verdict });
            });
        }));
    }
}
