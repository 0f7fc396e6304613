//! The one place where JavaScript exceptions (`JsValue`, `DOMException`) become typed errors.

use wasm_bindgen::{JsCast, JsValue};

/// A JavaScript exception reduced to what Rust code needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsFailure {
    /// The exception's `name` (`QuotaExceededError`, `AbortError`, `TypeError`, ...).
    pub name: String,
    /// Its message.
    pub message: String,
}

impl JsFailure {
    /// Reads `name` and `message` from any thrown value.
    pub fn from_js(value: &JsValue) -> Self {
        if let Some(exception) = value.dyn_ref::<web_sys::DomException>() {
            return Self {
                name: exception.name(),
                message: exception.message(),
            };
        }
        if let Some(error) = value.dyn_ref::<js_sys::Error>() {
            return Self {
                name: String::from(error.name()),
                message: String::from(error.message()),
            };
        }
        let text = value.as_string().unwrap_or_else(|| format!("{value:?}"));
        Self {
            name: "Error".into(),
            message: text,
        }
    }

    /// The storage quota is exhausted.
    pub fn is_quota_exceeded(&self) -> bool {
        self.name == "QuotaExceededError" || self.message.contains("QuotaExceeded")
    }

    /// The operation was aborted on purpose.
    pub fn is_abort(&self) -> bool {
        self.name == "AbortError"
    }
}

impl std::fmt::Display for JsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}
