//! The parser's output as it is built: rules as lists of alternatives of items, the
//! name-to-rule table (which also remembers where an undefined name was first used), the
//! interned character sets, and the size budget that keeps a hostile grammar from asking for
//! unbounded memory.

use std::collections::HashMap;

use super::charset::CharSet;

/// The most items (terminals and rule references, over all rules) a grammar may expand to.
pub(super) const MAX_ITEMS: usize = 1 << 18;

/// One element of an alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Item {
    /// One code point from this character set (an index into `RuleSet::sets`).
    Chars(u32),
    /// A match of this rule (an index into `RuleSet::bodies`).
    Ref(u32),
}

/// A rule's alternatives, each a sequence of items.
pub(super) type Body = Vec<Vec<Item>>;

/// Rules under construction.
#[derive(Debug, Default)]
pub(super) struct RuleSet {
    /// Each rule's name; a helper rule (from a group or a repetition) has its owner's name.
    pub(super) names: Vec<String>,
    /// Each rule's body; `None` until it is defined.
    pub(super) bodies: Vec<Option<Body>>,
    /// Where each named rule was first used (a byte offset), for "never defined" errors.
    pub(super) first_use: Vec<Option<usize>>,
    /// The character sets items point at, each stored once.
    pub(super) sets: Vec<CharSet>,
    ids: HashMap<String, u32>,
    set_ids: HashMap<Vec<(u32, u32)>, u32>,
    size: usize,
}

impl RuleSet {
    /// The id of the rule called `name`, creating it (undefined) when new. `used_at` is where
    /// it is referenced, `None` when this is its definition.
    pub(super) fn named(&mut self, name: &str, used_at: Option<usize>) -> Result<u32, String> {
        if let Some(&id) = self.ids.get(name) {
            if let (Some(slot @ None), Some(at)) = (self.first_use.get_mut(id as usize), used_at) {
                *slot = Some(at);
            }
            return Ok(id);
        }
        let id = self.new_rule(name.to_string(), used_at)?;
        self.ids.insert(name.to_string(), id);
        Ok(id)
    }

    /// The id of the rule called `name` when there is one.
    pub(super) fn lookup(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// A new anonymous rule (for a group or a repetition) inside rule `owner`.
    pub(super) fn helper(&mut self, owner: u32) -> Result<u32, String> {
        let name = self.names.get(owner as usize).cloned().unwrap_or_default();
        self.new_rule(name, None)
    }

    fn new_rule(&mut self, name: String, used_at: Option<usize>) -> Result<u32, String> {
        self.charge(1)?;
        let id = u32::try_from(self.bodies.len()).map_err(|_| too_large())?;
        self.names.push(name);
        self.bodies.push(None);
        self.first_use.push(used_at);
        Ok(id)
    }

    /// Gives rule `id` its body; an error when it already has one.
    pub(super) fn define(&mut self, id: u32, body: Body) -> Result<(), String> {
        match self.bodies.get_mut(id as usize) {
            Some(slot @ None) => {
                *slot = Some(body);
                Ok(())
            }
            Some(Some(_)) => {
                let name = self.names.get(id as usize).cloned().unwrap_or_default();
                Err(format!("rule `{name}` is defined twice"))
            }
            None => Err("internal error: no such rule".to_string()),
        }
    }

    /// The id of the set of code points in `ranges` (or outside them when `negated`).
    pub(super) fn charset(&mut self, ranges: &[(u32, u32)], negated: bool) -> Result<u32, String> {
        let set = CharSet::new(ranges, negated);
        if let Some(&id) = self.set_ids.get(set.ranges()) {
            return Ok(id);
        }
        self.charge(set.ranges().len())?;
        let id = u32::try_from(self.sets.len()).map_err(|_| too_large())?;
        self.set_ids.insert(set.ranges().to_vec(), id);
        self.sets.push(set);
        Ok(id)
    }

    /// Counts `n` more items against the budget.
    pub(super) fn charge(&mut self, n: usize) -> Result<(), String> {
        self.size = self.size.saturating_add(n);
        if self.size > MAX_ITEMS {
            return Err(too_large());
        }
        Ok(())
    }
}

fn too_large() -> String {
    format!("the grammar is too large (it expands to more than {MAX_ITEMS} elements)")
}
