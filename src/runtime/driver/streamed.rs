//! The visible text the model call under way has streamed so far. The core hears a reply only
//! when it is whole; a person who cancels a long answer has read its start already, so the
//! driver keeps that start for a cancel or a time-budget stop to record (`partial_reply` of
//! `Input::Cancel` and `Input::Tick`).

use std::cell::RefCell;
use std::rc::Rc;

use crate::protocol::StreamDelta;

/// Shared by the driver and the model call it started.
#[derive(Debug, Clone, Default)]
pub(super) struct Streamed(Rc<RefCell<Current>>);

#[derive(Debug, Default)]
struct Current {
    /// The call whose text this is; deltas of any other (given up) call are ignored.
    request: Option<u64>,
    text: String,
}

impl Streamed {
    /// A new call starts: what an earlier one streamed is dropped (a resend starts afresh).
    pub(super) fn start(&self, request: u64) {
        let mut current = self.0.borrow_mut();
        current.request = Some(request);
        current.text.clear();
    }

    /// Notes `delta` of call `request`: visible text only (reasoning is never kept).
    pub(super) fn add(&self, request: u64, delta: &StreamDelta) {
        let mut current = self.0.borrow_mut();
        if let (Some(r), StreamDelta::Text(text)) = (current.request, delta) {
            if r == request {
                current.text.push_str(text);
            }
        }
    }

    /// The text streamed so far by the latest call, copied.
    pub(super) fn text(&self) -> String {
        self.0.borrow().text.clone()
    }

    /// The text streamed so far by the latest call, taken.
    pub(super) fn take(&self) -> String {
        std::mem::take(&mut self.0.borrow_mut().text)
    }
}
