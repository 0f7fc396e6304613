//! Prices per model for the cost budget, as the settings form keeps them: the price typed for
//! a model applies to every session started with that model (and survives a reload, stored
//! by the form as JSON). A model without a typed price keeps the built-in table's price.

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use crate::core::Price;
use crate::runtime::prices::builtin_price;

/// USD per million tokens typed for one model (`None`: not typed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
pub struct ModelPrice {
    /// Input tokens.
    #[serde(default)]
    pub input: Option<f64>,
    /// Output tokens.
    #[serde(default)]
    pub output: Option<f64>,
}

/// Typed prices by model name (`local` for the in-tab model).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelPrices(BTreeMap<String, ModelPrice>);

impl ModelPrices {
    /// What was typed for `model`.
    pub fn get(&self, model: &str) -> ModelPrice {
        self.0.get(model.trim()).copied().unwrap_or_default()
    }

    /// Records what was typed for `model` (both empty: forgets it).
    pub fn set(&mut self, model: &str, price: ModelPrice) {
        let model = model.trim().to_string();
        if price == ModelPrice::default() {
            self.0.remove(&model);
        } else {
            self.0.insert(model, price);
        }
    }

    /// The price a session with `model` runs at: the typed one when either half is typed (the
    /// other counts as 0), else none (the runtime then uses its built-in table).
    pub fn price(&self, model: &str) -> Option<Price> {
        let typed = self.get(model);
        if typed.input.is_none() && typed.output.is_none() {
            return None;
        }
        let input = typed.input.unwrap_or(0.0);
        Some(Price {
            input_per_mtok: input,
            output_per_mtok: typed.output.unwrap_or(0.0),
            cached_input_per_mtok: input,
        })
    }

    /// The table as stored.
    pub fn to_json(&self) -> String {
        crate::protocol::json_text(&self.0)
    }

    /// A stored table; anything unreadable is an empty one (prices are typed again).
    pub fn from_json(text: &str) -> Self {
        serde_json::from_str(text).map(Self).unwrap_or_default()
    }
}

/// The built-in price of `model` as the form's hint (`None` when the table has none).
pub fn builtin_price_hint(model: &str) -> Option<String> {
    let price = builtin_price(model.trim())?;
    Some(format!(
        "built-in price: {} in / {} out",
        price.input_per_mtok, price.output_per_mtok
    ))
}
