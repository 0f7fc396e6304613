//! The model library the composition root provides to the model list (the port,
//! [`crate::ports::ModelLibrary`], with the browser's file type), and where the chosen model is
//! remembered between visits (`localStorage`).

use std::rc::Rc;

use leptos::prelude::*;

pub use crate::ports::{ByteProgressFn, ModelLibrary};

/// The library as the playground holds it: picked files are the browser's.
pub type BrowserLibrary = dyn ModelLibrary<File = web_sys::File>;

/// The library the composition root provides (stored locally: it is not `Send`).
pub type LibraryContext = StoredValue<Rc<BrowserLibrary>, LocalStorage>;

/// Where the chosen model's URL is kept in `localStorage` (empty: the bundled model).
const CHOICE_KEY: &str = "tabloop.local-model";

/// The model chosen on an earlier visit (`""` for the bundled one, or when storage is off).
pub fn stored_model_choice() -> String {
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|storage| storage.get_item(CHOICE_KEY).ok().flatten())
        .unwrap_or_default()
}

/// Remembers the chosen model for the next visit (best effort: storage may be off).
pub fn save_model_choice(url: &str) {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = if url.is_empty() {
            storage.remove_item(CHOICE_KEY)
        } else {
            storage.set_item(CHOICE_KEY, url)
        };
    }
}
