//! Expanding a repetition into plain rules the way llama.cpp does: `x{m,n}` becomes `m`
//! copies of `x` followed by a chain of nested optionals (`x{0,3}` is `r3` with
//! `r3 ::= x r2 | ""`, `r2 ::= x r1 | ""`, `r1 ::= x | ""`), and `x{m,}` is `m` copies followed
//! by `r ::= x r | ""`. The size stays linear in the bounds (`[0-9]{0,15}` is 15 small rules,
//! not 16 alternatives with copies), and the rule set's budget is charged before anything is
//! built.

use super::rules::{Item, RuleSet};

/// Replaces `items[start..]` (the last symbol) by its repetition `min..=max` times (`max` of
/// `None`: no upper bound). Helper rules are named after rule `owner`.
pub(super) fn repeat(
    rules: &mut RuleSet,
    owner: u32,
    items: &mut Vec<Item>,
    start: usize,
    min: u32,
    max: Option<u32>,
) -> Result<(), String> {
    let body: Vec<Item> = items.get(start..).unwrap_or_default().to_vec();
    if body.is_empty() {
        return Ok(());
    }
    let optional = match max {
        None => 1,
        Some(max) => max.saturating_sub(min),
    };
    // Copies of the body, plus one reference per helper rule; the body is already counted once.
    let len = body.len() as u64;
    let cost = len * u64::from(min) + (len + 2) * u64::from(optional);
    rules.charge(usize::try_from(cost).unwrap_or(usize::MAX))?;

    items.truncate(start);
    for _ in 0..min {
        items.extend_from_slice(&body);
    }
    match max {
        None => {
            // r ::= body r | ""
            let rule = rules.helper(owner)?;
            let mut looped = body;
            looped.push(Item::Ref(rule));
            rules.define(rule, vec![looped, Vec::new()])?;
            items.push(Item::Ref(rule));
        }
        Some(_) => {
            let mut inner: Option<u32> = None;
            for _ in 0..optional {
                // r_i ::= body r_{i-1} | ""
                let rule = rules.helper(owner)?;
                let mut alt = body.clone();
                alt.extend(inner.map(Item::Ref));
                rules.define(rule, vec![alt, Vec::new()])?;
                inner = Some(rule);
            }
            items.extend(inner.map(Item::Ref));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_rules;
    use super::super::rules::Body;

    #[test]
    fn a_bounded_repetition_becomes_a_chain_of_small_optional_rules() {
        let set = parse_rules("root ::= [0-9]{0,15}").expect("the grammar parses");
        let bodies: Vec<&Body> = set.bodies.iter().flatten().collect();
        // root plus one helper per optional digit, each `digit next | ""` (the last `digit | ""`).
        assert_eq!(bodies.len(), 16);
        let shapes: Vec<Vec<usize>> = bodies
            .iter()
            .map(|b| b.iter().map(Vec::len).collect())
            .collect();
        let mut expected = vec![vec![1]];
        expected.push(vec![1, 0]);
        expected.extend(std::iter::repeat_n(vec![2, 0], 14));
        assert_eq!(shapes, expected);
    }
}
