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
    /// The messages are `list[start..]` (a run's own, when earlier runs are left out).
    start: usize,
    lineage: u64,
}

impl RequestMessages {
    /// `list` as a member of `lineage`. The caller vouches that every list it gives that lineage
    /// extends the ones before it (a transcript that only appends does).
    pub fn shared(list: Rc<Vec<Message>>, lineage: u64) -> Self {
        Self {
            list,
            start: 0,
            lineage,
        }
    }

    /// `list[start..]`, shared: a member of a lineage of its own for each `start` of a list of
    /// `lineage` (the views from one start grow at the end as the list does).
    pub fn shared_from(list: Rc<Vec<Message>>, start: usize, lineage: u64) -> Self {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (lineage, start).hash(&mut hasher);
        Self {
            start: start.min(list.len()),
            list,
            // Above every counted lineage (those count up from 1).
            lineage: hasher.finish() | 1 << 63,
        }
    }

    /// True when these messages are known to begin with the `len` messages of a list of
    /// `lineage` (without looking at them).
    pub fn extends(&self, lineage: u64, len: usize) -> bool {
        self.lineage == lineage && self.len() >= len
    }

    /// The list to change in place; from then on it is a lineage of its own.
    pub fn make_mut(&mut self) -> &mut Vec<Message> {
        self.lineage = new_lineage();
        if self.start > 0 {
            self.list = Rc::new(self.list[self.start..].to_vec());
            self.start = 0;
        }
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
        &self.list[self.start..]
    }
}

impl<'a> IntoIterator for &'a RequestMessages {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;
    fn into_iter(self) -> Self::IntoIter {
        self.list[self.start..].iter()
    }
}

impl PartialEq for RequestMessages {
    /// The same messages, whatever their lineage.
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Serialize for RequestMessages {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.list[self.start..].serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RequestMessages {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Message>::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_from_a_start_is_the_list_after_it_in_every_use() {
        let list = Rc::new(["a", "b", "c"].map(Message::user).to_vec());
        let mut view = RequestMessages::shared_from(list.clone(), 1, 7);
        assert_eq!(&*view, &list[1..]);
        assert_eq!(view.iter().count(), 2);
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            serde_json::to_value(&list[1..]).unwrap()
        );
        // Views from one start of one lineage are one lineage; another start is another.
        let grown = RequestMessages::shared_from(
            Rc::new(["a", "b", "c", "d"].map(Message::user).to_vec()),
            1,
            7,
        );
        assert!(grown.extends(view.lineage(), view.len()));
        assert!(!RequestMessages::shared_from(list.clone(), 2, 7).extends(view.lineage(), 1));
        assert!(!RequestMessages::shared(list, 7).extends(view.lineage(), 1));
        // Changed in place, it is the view's messages that change.
        view.make_mut().push(Message::user("e"));
        assert_eq!(&*view, &["b", "c", "e"].map(Message::user));
    }
}
