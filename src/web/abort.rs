//! [`AbortOnDrop`]: an `AbortController` that aborts when it goes out of scope, so that dropping
//! a model call's future cancels the browser work behind it (fetch, body stream, local model).

use web_sys::{AbortController, AbortSignal};

use crate::protocol::{ModelError, ModelErrorKind};
use crate::web::js_error::JsFailure;

/// Owns an `AbortController`; dropping it aborts the signal (a no-op if the work finished).
#[derive(Debug)]
pub struct AbortOnDrop {
    /// The controller whose signal is handed to the browser API.
    controller: AbortController,
    /// Whether dropping aborts (cleared by [`AbortOnDrop::disarm`]).
    armed: bool,
}

impl AbortOnDrop {
    /// A fresh controller. Fails only where `AbortController` does not exist.
    pub fn new() -> Result<Self, ModelError> {
        AbortController::new()
            .map(|controller| AbortOnDrop {
                controller,
                armed: true,
            })
            .map_err(|error| ModelError {
                kind: ModelErrorKind::Network,
                message: format!(
                    "cannot create an AbortController: {}",
                    JsFailure::from_js(&error)
                ),
            })
    }

    /// The signal to pass to `fetch` or to the local model.
    pub fn signal(&self) -> AbortSignal {
        self.controller.signal()
    }

    /// Aborts now (for timeouts); dropping aborts as well.
    pub fn abort(&self) {
        self.controller.abort();
    }

    /// The work is over: dropping no longer aborts (aborting a finished fetch costs a call into
    /// the browser and an event for nothing).
    pub fn settle(&mut self) {
        self.armed = false;
    }

    /// Whether dropping this guard would abort its work.
    pub fn is_armed(&self) -> bool {
        self.armed
    }

    /// Lets the work outlive this guard: for a signal the browser API may still consult after
    /// it succeeded (a loaded model), which must then not see an abort.
    pub fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.controller.abort();
        }
    }
}
