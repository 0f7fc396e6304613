//! The appends of this page under way, by session and the seq of their last record, each as
//! the store's own promise of its commit. The tool bridge hands that promise to a tool that
//! must not run before its start record is stored (`ToolHost::call_when_stored`): the tool
//! runs in the same JavaScript turn as the commit lands, not after a round trip through the
//! driver.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The commits under way, shared by the store that makes them and the tool hosts that wait.
/// Two are equal when they are the same table.
#[derive(Clone, Default)]
pub struct CommitGates(Rc<RefCell<HashMap<(String, u64), js_sys::Promise>>>);

impl std::fmt::Debug for CommitGates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CommitGates({} under way)", self.0.borrow().len())
    }
}

impl PartialEq for CommitGates {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CommitGates {}

impl CommitGates {
    /// Notes `commit`, the promise of the append of `session` that ends at seq `last`, until
    /// the returned guard is dropped (when the append has settled, or was given up).
    pub fn under_way(&self, session: &str, last: u64, commit: &js_sys::Promise) -> UnderWay {
        let key = (session.to_string(), last);
        self.0.borrow_mut().insert(key.clone(), commit.clone());
        UnderWay {
            gates: self.clone(),
            key,
        }
    }

    /// The promise of the append of `session` that ends at seq `last`, while it is under way.
    pub fn commit_of(&self, session: &str, last: u64) -> Option<js_sys::Promise> {
        self.0.borrow().get(&(session.to_string(), last)).cloned()
    }
}

/// An append under way; forgotten when dropped.
pub struct UnderWay {
    gates: CommitGates,
    key: (String, u64),
}

impl Drop for UnderWay {
    fn drop(&mut self) {
        self.gates.0.borrow_mut().remove(&self.key);
    }
}
