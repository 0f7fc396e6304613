//! [`RequestMessages`]: the messages of a model request, shared with the transcript they were
//! projected from. A run's transcript grows by a few messages a step; copying all of it into
//! every request made each step cost time in proportion to the history. A lineage number says
//! which lists are prefixes of one another, so a client that remembers what it last sent knows
//! what is new without comparing the history message by message.

use std::ops::Deref;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::message::Message;

static NEXT_LINEAGE: AtomicU64 = AtomicU64::new(1);

/// A lineage number no list has had before.
pub fn new_lineage() -> u64 {
    NEXT_LINEAGE.fetch_add(1, Ordering::Relaxed)
}

/// A request's messages, oldest first. Lists of one lineage only ever grew at the end: each
/// is a prefix of every longer one.
#[derive(Debug, Clone)]
pub struct RequestMessages {
    list: Rc<Vec<Message>>,
    lineage: u64,
}

impl RequestMessages {
    /// `list` as a member of `lineage`. The caller vouches that every list it gives that lineage
    /// extends the ones before it (a transcript that only appends does).
    pub fn shared(list: Rc<Vec<Message>>, lineage: u64) -> Self {
        Self { list, lineage }
    }

    /// True when these messages are known to begin with the `len` messages of a list of
    /// `lineage` (without looking at them).
    pub fn extends(&self, lineage: u64, len: usize) -> bool {
        self.lineage == lineage && self.list.len() >= len
    }

    /// The list to change in place; from then on it is a lineage of its own.
    pub fn make_mut(&mut self) -> &mut Vec<Message> {
        self.lineage = new_lineage();
        Rc::make_mut(&mut self.list)
    }

    /// The lineage of these messages.
    pub fn lineage(&self) -> u64 {
        self.lineage
    }
}

impl From<Vec<Message>> for RequestMessages {
    /// A list of its own (a lineage of one).
    fn from(list: Vec<Message>) -> Self {
        Self::shared(Rc::new(list), new_lineage())
    }
}

impl Deref for RequestMessages {
    type Target = [Message];
    fn deref(&self) -> &[Message] {
        &self.list
    }
}

impl<'a> IntoIterator for &'a RequestMessages {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl PartialEq for RequestMessages {
    /// The same messages, whatever their lineage.
    fn eq(&self, other: &Self) -> bool {
        self.list == other.list
    }
}

impl Serialize for RequestMessages {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.list.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RequestMessages {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Message>::deserialize(deserializer).map(Self::from)
    }
}
