//! The price fields of the settings form, per model: they show and edit the price of the model
//! the form names (a remote model's name, or the in-tab model), so each model keeps its own.
//! The table is kept in `localStorage` and applies to every session started with that model.

use leptos::prelude::*;

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
    let error = RwSignal::new(None::<String>);
    let save = move |half: fn(&mut ModelPrice, Option<f64>), text: String| match parse_price(&text)
    {
        Ok(value) => {
            error.set(None);
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
        }
        Err(e) => error.set(Some(e)),
    };
    // Drawn again only when the model changes, with that model's stored price (as a property:
    // a redrawn input keeps its element, and an edited input ignores its `value` attribute).
    let fields = move || {
        let name = model.get();
        let typed = settings.with_untracked(|s| s.run.prices.get(&name));
        let text = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let hint = builtin_price_hint(&name).unwrap_or_else(|| "no built-in price".to_string());
        let shown = if name.is_empty() {
            "(no model named yet)".to_string()
        } else {
            name
        };
        view! {
            <span class="group-label">"Price of"</span>
            <span class="hint" data-testid="price-model">{shown}" · "{hint}</span>
            <label for="price-input">"Input $/Mtok"</label>
            <div class="field">
            <input
                id="price-input"
                data-testid="price-input"
                type="text"
                inputmode="decimal"
                placeholder="0"
                prop:value=text(typed.input)
                on:input=move |ev| save(|p, v| p.input = v, event_target_value(&ev))
            />
            </div>
            <label for="price-output">"Output $/Mtok"</label>
            <div class="field">
            <input
                id="price-output"
                data-testid="price-output"
                type="text"
                inputmode="decimal"
                placeholder="0"
                prop:value=text(typed.output)
                on:input=move |ev| save(|p, v| p.output = v, event_target_value(&ev))
            />
            </div>
        }
    };
    view! {
        {fields}
        {move || error.get().map(|e| view! {
            <span></span>
            <span class="field-error" role="alert">{e}</span>
        })}
    }
}
