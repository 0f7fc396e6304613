//! The settings' line about browser storage: how much this site uses of what the browser
//! allows, whether the browser keeps it (persistent storage), and a button that asks for it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::model_library::LibraryContext;
use crate::ports::LibraryError;
use crate::view::StorageUse;

/// How often the figures are read again while the settings are open: the browser's estimate
/// lags the writes it counts (a model stored a moment ago may not show yet) and grows during a
/// download, so a line read once could stay wrong for as long as the settings stay open.
const REREAD_EVERY: std::time::Duration = std::time::Duration::from_secs(3);

/// Reads the storage figures when `open` turns true and again every few seconds while it stays
/// true (`data-testid="storage-use"`).
#[component]
pub fn StorageUseLine(
    /// Whether the settings are unfolded.
    open: RwSignal<bool>,
) -> impl IntoView {
    let library = use_context::<LibraryContext>();
    let figures = RwSignal::new(None::<Result<StorageUse, LibraryError>>);
    let read = move |persist: bool| {
        let Some(library) = library.and_then(|l| l.try_get_value()) else {
            return;
        };
        spawn_local(async move {
            let result = if persist {
                library.keep_storage().await
            } else {
                library.storage_use().await
            };
            figures.set(Some(result));
        });
    };
    let rereading = StoredValue::new(None::<IntervalHandle>);
    let stop_rereading = move || {
        if let Some(handle) = rereading.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    };
    Effect::new(move |_| {
        stop_rereading();
        if open.get() {
            read(false);
            let handle = set_interval_with_handle(move || read(false), REREAD_EVERY).ok();
            rereading.set_value(handle);
        }
    });
    on_cleanup(stop_rereading);
    let text = move || match figures.get() {
        None => "Browser storage: reading…".to_string(),
        Some(Err(e)) => format!("Browser storage: unknown ({e})."),
        Some(Ok(use_)) => format!(
            "Browser storage: {}. {}",
            use_.usage_text(),
            use_.persistence_text()
        ),
    };
    let can_ask = move || matches!(figures.get(), Some(Ok(u)) if u.persisted == Some(false));
    view! {
        <p class="hint storage-use" data-testid="storage-use">
            <span>{text}</span>
            <Show when=can_ask>
                <button data-testid="keep-storage" on:click=move |_| read(true)>
                    "Keep it"
                </button>
            </Show>
        </p>
    }
}
