//! The appends of this page under way, by session and the seq of their last record, each as
//! the store's own promise of its commit. The tool bridge hands that promise to a tool that
//! must not run before its start record is stored (`ToolHost::call_when_stored`): the tool
//! runs in the same JavaScript turn as the commit lands, not after a round trip through the
//! driver.

use std::cell::RefCell;
use std::rc::Rc;

/// The commits under way, shared by the store that makes them and the tool hosts that wait.
/// A handful at most (one writer per session, one append in flight behind another), so a list.
#[derive(Debug, Clone, Default)]
pub struct CommitGates(Rc<RefCell<Gates>>);

#[derive(Debug, Default)]
struct Gates {
    /// (id, session, last seq, the commit's promise), in the order the appends were made.
    under_way: Vec<(u64, String, u64, js_sys::Promise)>,
    next_id: u64,
}

impl CommitGates {
    /// Notes `commit`, the promise of the append of `session` that ends at seq `last`, until
    /// the returned guard is dropped (when the append has settled, or was given up).
    pub fn under_way(&self, session: &str, last: u64, commit: &js_sys::Promise) -> UnderWay {
        let mut gates = self.0.borrow_mut();
        let id = gates.next_id;
        gates.next_id += 1;
        gates
            .under_way
            .push((id, session.to_string(), last, commit.clone()));
        UnderWay {
            gates: self.clone(),
            id,
        }
    }

    /// The promise of the append of `session` that ends at seq `last`, while it is under way.
    pub fn commit_of(&self, session: &str, last: u64) -> Option<js_sys::Promise> {
        let gates = self.0.borrow();
        // Newest first: a retry of the same records is the one under way.
        gates
            .under_way
            .iter()
            .rev()
            .find(|(_, s, l, _)| s == session && *l == last)
            .map(|(_, _, _, commit)| commit.clone())
    }
}

/// An append under way; forgotten when dropped.
pub struct UnderWay {
    gates: CommitGates,
    id: u64,
}

impl Drop for UnderWay {
    fn drop(&mut self) {
        let id = self.id;
        self.gates
            .0
            .borrow_mut()
            .under_way
            .retain(|(i, ..)| *i != id);
    }
}
