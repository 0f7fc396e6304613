//! Refusing left recursion that would make matching loop. A rule that can reach itself
//! without consuming input, through a reference that is followed by more items (as in
//! `a ::= a "x" | "y"`), would grow a parse stack forever. Reaching itself through references
//! that end their alternative (as `(x?)*` does) is harmless: stacks do not grow and duplicate
//! stacks are dropped. So: find which rules can match nothing, build the graph of references
//! that can come first, and refuse any growing edge inside a strongly connected component.
//! Everything is iterative and linear in the grammar's size.

use super::rules::{Body, Item};

/// The name of a rule that is left-recursive in the harmful way, if any.
pub(super) fn find_left_recursion<'n>(bodies: &[Body], names: &'n [String]) -> Option<&'n str> {
    let nullable = nullable_rules(bodies);
    // (to, grows) for each reference that can come first in an alternative of the rule.
    let mut edges: Vec<Vec<(u32, bool)>> = vec![Vec::new(); bodies.len()];
    for (rule, body) in bodies.iter().enumerate() {
        for alt in body {
            for (i, item) in alt.iter().enumerate() {
                let Item::Ref(to) = *item else { break };
                if let Some(list) = edges.get_mut(rule) {
                    list.push((to, i + 1 < alt.len()));
                }
                if !nullable.get(to as usize).copied().unwrap_or(false) {
                    break;
                }
            }
        }
    }
    let component = strongly_connected_components(&edges);
    for (rule, list) in edges.iter().enumerate() {
        for &(to, grows) in list {
            if grows && component.get(rule) == component.get(to as usize) {
                return names.get(rule).map(String::as_str);
            }
        }
    }
    None
}

/// Which rules can match the empty string (a worklist over "alternatives with items left").
fn nullable_rules(bodies: &[Body]) -> Vec<bool> {
    let mut nullable = vec![false; bodies.len()];
    let mut owner = Vec::new(); // alternative -> rule
    let mut remaining = Vec::new(); // alternative -> references not yet known nullable
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); bodies.len()]; // rule -> alternatives, per use
    let mut queue = Vec::new();
    for (rule, body) in bodies.iter().enumerate() {
        for alt in body {
            if alt.iter().any(|item| matches!(item, Item::Chars(_))) {
                continue;
            }
            let id = owner.len();
            owner.push(rule);
            remaining.push(alt.len());
            for item in alt {
                if let Item::Ref(to) = *item {
                    if let Some(list) = users.get_mut(to as usize) {
                        list.push(id);
                    }
                }
            }
            if alt.is_empty() {
                queue.push(rule);
            }
        }
    }
    while let Some(rule) = queue.pop() {
        match nullable.get_mut(rule) {
            Some(flag @ false) => *flag = true,
            _ => continue,
        }
        for &alt in users.get(rule).map(Vec::as_slice).unwrap_or_default() {
            if let Some(left) = remaining.get_mut(alt) {
                *left = left.saturating_sub(1);
                if *left == 0 {
                    queue.extend(owner.get(alt).copied());
                }
            }
        }
    }
    nullable
}

/// Tarjan's algorithm without recursion: each node's component number.
fn strongly_connected_components(edges: &[Vec<(u32, bool)>]) -> Vec<usize> {
    let n = edges.len();
    let mut t = Tarjan {
        index: vec![UNSEEN; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        component: vec![UNSEEN; n],
        stack: Vec::new(),
        calls: Vec::new(),
        counter: 0,
        components: 0,
    };
    for root in 0..n {
        if t.index.get(root) == Some(&UNSEEN) {
            t.visit(root);
            t.run(edges);
        }
    }
    t.component
}

const UNSEEN: usize = usize::MAX;

struct Tarjan {
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    component: Vec<usize>,
    stack: Vec<usize>,
    /// The simulated call stack: (node, next edge to look at).
    calls: Vec<(usize, usize)>,
    counter: usize,
    components: usize,
}

impl Tarjan {
    fn visit(&mut self, v: usize) {
        if let (Some(i), Some(l), Some(s)) = (
            self.index.get_mut(v),
            self.low.get_mut(v),
            self.on_stack.get_mut(v),
        ) {
            (*i, *l, *s) = (self.counter, self.counter, true);
        }
        self.counter += 1;
        self.stack.push(v);
        self.calls.push((v, 0));
    }

    fn lower(&mut self, v: usize, to: usize) {
        if let Some(l) = self.low.get_mut(v) {
            *l = (*l).min(to);
        }
    }

    fn run(&mut self, edges: &[Vec<(u32, bool)>]) {
        while let Some(&(v, next)) = self.calls.last() {
            if let Some(&(to, _)) = edges.get(v).and_then(|list| list.get(next)) {
                if let Some(call) = self.calls.last_mut() {
                    call.1 += 1;
                }
                let w = to as usize;
                match self.index.get(w).copied() {
                    Some(UNSEEN) => self.visit(w),
                    Some(w_index) if self.on_stack.get(w) == Some(&true) => self.lower(v, w_index),
                    _ => {}
                }
                continue;
            }
            self.calls.pop();
            let v_low = self.low.get(v).copied().unwrap_or(0);
            if let Some(&(parent, _)) = self.calls.last() {
                self.lower(parent, v_low);
            }
            if Some(&v_low) == self.index.get(v) {
                while let Some(w) = self.stack.pop() {
                    if let (Some(s), Some(c)) =
                        (self.on_stack.get_mut(w), self.component.get_mut(w))
                    {
                        (*s, *c) = (false, self.components);
                    }
                    if w == v {
                        break;
                    }
                }
                self.components += 1;
            }
        }
    }
}
