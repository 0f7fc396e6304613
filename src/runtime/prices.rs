//! The built-in price table: USD per million tokens of common OpenAI and Anthropic models, so a
//! cost budget works without hand-entered prices. A model is matched by the longest known name
//! its name starts with (dated snapshots such as `gpt-4o-2024-08-06` match `gpt-4o`); a price
//! given in the options always wins. Cache writes are billed at the input price.

use crate::core::Price;

/// `(name prefix, input, output, cached input)` per million tokens, from the providers'
/// published list prices.
const TABLE: &[(&str, f64, f64, f64)] = &[
    ("gpt-5", 1.25, 10.0, 0.125),
    ("gpt-5-mini", 0.25, 2.0, 0.025),
    ("gpt-5-nano", 0.05, 0.40, 0.005),
    ("gpt-4.1", 2.0, 8.0, 0.50),
    ("gpt-4.1-mini", 0.40, 1.60, 0.10),
    ("gpt-4.1-nano", 0.10, 0.40, 0.025),
    ("gpt-4o", 2.50, 10.0, 1.25),
    ("gpt-4o-mini", 0.15, 0.60, 0.075),
    ("o3", 2.0, 8.0, 0.50),
    ("o3-mini", 1.10, 4.40, 0.55),
    ("o4-mini", 1.10, 4.40, 0.275),
    ("claude-opus-4-5", 5.0, 25.0, 0.50),
    ("claude-opus-4-1", 15.0, 75.0, 1.50),
    ("claude-opus-4", 15.0, 75.0, 1.50),
    ("claude-sonnet-4-5", 3.0, 15.0, 0.30),
    ("claude-sonnet-4", 3.0, 15.0, 0.30),
    ("claude-haiku-4-5", 1.0, 5.0, 0.10),
    ("claude-3-7-sonnet", 3.0, 15.0, 0.30),
    ("claude-3-5-sonnet", 3.0, 15.0, 0.30),
    ("claude-3-5-haiku", 0.80, 4.0, 0.08),
    ("claude-3-opus", 15.0, 75.0, 1.50),
    ("claude-3-haiku", 0.25, 1.25, 0.03),
];

/// The built-in price of `model`, if the table knows it.
pub fn builtin_price(model: &str) -> Option<Price> {
    let model = model.trim().to_ascii_lowercase();
    // A bare prefix must end at a separator: `o3` matches `o3-2025-04-16`, not `o3x`.
    let fits = |prefix: &str| {
        model == prefix
            || model
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(['-', '@', ':', '.']))
    };
    TABLE
        .iter()
        .filter(|(prefix, ..)| fits(prefix))
        .max_by_key(|(prefix, ..)| prefix.len())
        .map(|&(_, input, output, cached)| Price {
            input_per_mtok: input,
            output_per_mtok: output,
            cached_input_per_mtok: cached,
        })
}
