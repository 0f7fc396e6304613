//! The one place where JavaScript exceptions (`JsValue`, `DOMException`) become typed errors.

use wasm_bindgen::{JsCast, JsValue};

use crate::ports::StoreError;
use crate::protocol::{ModelError, ModelErrorKind};

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

    /// Reads an error of `gloo_net::http` (a rejected `fetch`, a request it could not build).
    /// Not a `match`: the set of variants depends on gloo-net's features, which other crates
    /// of the build may turn on.
    pub fn from_gloo(error: &gloo_net::Error) -> Self {
        if let gloo_net::Error::JsError(error) = error {
            return Self {
                name: error.name.clone(),
                message: error.message.clone(),
            };
        }
        Self {
            name: "Error".into(),
            message: error.to_string(),
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

    /// The error of a failed model call: `Cancelled`, saying `stopped`, for an abort (at any
    /// stage and in every client); otherwise what `otherwise` makes of the failure.
    pub fn into_model_error(
        self,
        stopped: &str,
        otherwise: impl FnOnce(Self) -> ModelError,
    ) -> ModelError {
        if self.is_abort() {
            return ModelError {
                kind: ModelErrorKind::Cancelled,
                message: stopped.to_string(),
            };
        }
        otherwise(self)
    }
}

/// Turns a rejection of `www/store/idb_store.js` into a [`StoreError`]: `QuotaExceededError`
/// becomes `QuotaExceeded`, `ConflictError {seq}` `Conflict`, `GapError {expected, found}` `Gap`,
/// `CorruptError` `Corrupt`, and everything else (blocked, closed, unknown) `Unavailable`.
pub fn to_store_error(value: &JsValue) -> StoreError {
    let failure = JsFailure::from_js(value);
    if failure.is_quota_exceeded() {
        return StoreError::QuotaExceeded(failure.message);
    }
    match failure.name.as_str() {
        "ConflictError" => match number_field(value, "seq") {
            Some(seq) => StoreError::Conflict { seq },
            None => StoreError::Unavailable(failure.to_string()),
        },
        "GapError" => match (
            number_field(value, "expected"),
            number_field(value, "found"),
        ) {
            (Some(expected), Some(found)) => StoreError::Gap { expected, found },
            (None, _) | (_, None) => StoreError::Unavailable(failure.to_string()),
        },
        "CorruptError" => StoreError::Corrupt(failure.message),
        _ => StoreError::Unavailable(failure.to_string()),
    }
}

/// A non-negative integer property of a thrown object (`seq`, `expected`, `found`).
fn number_field(value: &JsValue, name: &str) -> Option<u64> {
    let field = js_sys::Reflect::get(value, &JsValue::from_str(name)).ok()?;
    let number = field.as_f64()?;
    let whole = number >= 0.0 && number.fract() == 0.0 && number <= 9_007_199_254_740_991.0;
    // The checks above make the cast exact.
    whole.then_some(number as u64)
}

impl std::fmt::Display for JsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}
