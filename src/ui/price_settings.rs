//! The price fields of the settings form, per model: they show and edit the price of the model
//! the form names (a remote model's name, or the in-tab model), so each model keeps its own.
//! The table is kept in `localStorage` and applies to every session started with that model.

use leptos::prelude::*;

use super::number_field::{number_field, FieldText};
use crate::view::{builtin_price_hint, parse_price, ModelPrice, ModelPrices, Settings};

/// Where the table is kept.
const STORAGE_KEY: &str = "tabloop.prices";

/// Hooks: `price-model` (which model the fields are for), `price-input`, `price-output`.
#[component]
pub fn PriceSettings(
    /// The settings being edited.
    settings: RwSignal<Settings>,
) -> impl IntoView {
    let storage = window().local_storage().ok().flatten();
    if let Some(stored) = storage
        .as_ref()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
    {
        settings.update(|s| s.run.prices = ModelPrices::from_json(&stored));
    }
    let model = Memo::new(move |_| settings.with(Settings::price_model));
    // Stores one half of the named model's price, or says why the text was refused.
    let save = move |half: fn(&mut ModelPrice, Option<f64>), text: &str| {
        let value = parse_price(text)?;
        let name = model.get_untracked();
        settings.update(|s| {
            let mut price = s.run.prices.get(&name);
            half(&mut price, value);
            s.run.prices.set(&name, price);
        });
        if let Some(storage) = window().local_storage().ok().flatten() {
            let json = settings.with_untracked(|s| s.run.prices.to_json());
            let _ = storage.set_item(STORAGE_KEY, &json);
        }
        Ok(())
    };
    // Drawn again only when the model changes, with that model's stored price.
    let fields = move || {
        let name = model.get();
        let typed = settings.with_untracked(|s| s.run.prices.get(&name));
        let field = |id, label, value: Option<f64>| FieldText {
            id,
            label,
            inputmode: "decimal",
            placeholder: "0".to_string(),
            value: value.map(|v| v.to_string()).unwrap_or_default(),
        };
        let hint = builtin_price_hint(&name).unwrap_or_else(|| "no built-in price".to_string());
        let shown = if name.is_empty() {
            "(no model named yet)".to_string()
        } else {
            name
        };
        view! {
            <span class="group-label">"Price of"</span>
            <span class="hint" data-testid="price-model">{shown}" · "{hint}</span>
            {number_field(field("price-input", "Input $/Mtok", typed.input), move |text| {
                save(|p, v| p.input = v, text)
            })}
            {number_field(field("price-output", "Output $/Mtok", typed.output), move |text| {
                save(|p, v| p.output = v, text)
            })}
        }
    };
    view! { {fields} }
}
