//! Storage for parse stacks without an allocation per stack: a list of stacks kept in one
//! buffer ([`Stacks`]), and the same with a hash index that refuses duplicates ([`SeenSet`]).
//! A stack is a list of positions in the grammar's flat element array, its top last.

/// A list of stacks stored back to back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Stacks {
    data: Vec<u32>,
    spans: Vec<(usize, usize)>,
}

impl Stacks {
    pub(super) fn clear(&mut self) {
        self.data.clear();
        self.spans.clear();
    }

    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub(super) fn push(&mut self, stack: &[u32]) {
        let start = self.data.len();
        self.data.extend_from_slice(stack);
        self.spans.push((start, self.data.len()));
    }

    pub(super) fn get(&self, i: usize) -> &[u32] {
        self.spans
            .get(i)
            .and_then(|&(s, e)| self.data.get(s..e))
            .unwrap_or(&[])
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.spans
            .iter()
            .map(|&(s, e)| self.data.get(s..e).unwrap_or(&[]))
    }
}

const EMPTY: u32 = u32::MAX;

/// A set of distinct stacks in insertion order (open addressing over their hashes).
#[derive(Clone, Debug, Default)]
pub(super) struct SeenSet {
    stacks: Stacks,
    hashes: Vec<u64>,
    /// Indices into `stacks`, or `EMPTY`; the length is zero or a power of two.
    slots: Vec<u32>,
}

impl SeenSet {
    pub(super) fn clear(&mut self) {
        self.stacks.clear();
        self.hashes.clear();
        self.slots.fill(EMPTY);
    }

    pub(super) fn len(&self) -> usize {
        self.stacks.len()
    }

    pub(super) fn get(&self, i: usize) -> &[u32] {
        self.stacks.get(i)
    }

    /// Adds the stack unless it is already there; returns its index when it was added.
    pub(super) fn insert(&mut self, stack: &[u32]) -> Option<usize> {
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let hash = hash(stack);
        let mask = self.slots.len() - 1;
        let mut slot = (hash as usize) & mask;
        loop {
            let idx = *self.slots.get(slot)?;
            if idx == EMPTY {
                break;
            }
            let i = idx as usize;
            if self.hashes.get(i) == Some(&hash) && self.stacks.get(i) == stack {
                return None;
            }
            slot = (slot + 1) & mask;
        }
        let i = self.len();
        *self.slots.get_mut(slot)? = u32::try_from(i).ok()?;
        self.stacks.push(stack);
        self.hashes.push(hash);
        Some(i)
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        self.slots.clear();
        self.slots.resize(size, EMPTY);
        let mask = size - 1;
        for (i, &hash) in self.hashes.iter().enumerate() {
            let mut slot = (hash as usize) & mask;
            while self.slots.get(slot).is_some_and(|&s| s != EMPTY) {
                slot = (slot + 1) & mask;
            }
            if let (Some(s), Ok(i)) = (self.slots.get_mut(slot), u32::try_from(i)) {
                *s = i;
            }
        }
    }
}

/// A fast non-cryptographic hash of a stack (FxHash-style, then mixed so the low bits vary).
fn hash(stack: &[u32]) -> u64 {
    let mut h = stack.len() as u64;
    for &x in stack {
        h = (h.rotate_left(5) ^ u64::from(x)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seen_set_keeps_one_copy_of_each_stack_in_insertion_order() {
        let mut set = SeenSet::default();
        let mut added = Vec::new();
        for n in 0..100u32 {
            let stack = [n % 37, 1, 2];
            added.push(set.insert(&stack).is_some());
        }
        assert_eq!(set.len(), 37);
        assert_eq!(added.iter().filter(|&&a| a).count(), 37);
        assert_eq!(set.get(5), &[5, 1, 2]);
        assert_eq!(set.insert(&[]), Some(37));
        assert_eq!(set.insert(&[]), None);
        set.clear();
        assert_eq!(set.insert(&[5, 1, 2]), Some(0));
    }
}
