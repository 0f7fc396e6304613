//! One writer per session across the tabs of an origin, with the Web Locks API
//! (`www/store/locks.js`). The browser frees a tab's locks when the tab closes or crashes, so a
//! tab waiting in [`SessionLock::acquire_when_free`] takes over from a dead writer.

use wasm_bindgen::prelude::*;

use super::js_error::JsFailure;

#[wasm_bindgen(module = "/www/store/locks.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = requestLock)]
    fn js_request_lock(name: &str, if_available: bool) -> Result<u32, JsValue>;

    #[wasm_bindgen(catch, js_name = granted)]
    async fn js_granted(token: u32) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = release)]
    fn js_release(token: u32) -> Result<js_sys::Promise, JsValue>;
}

/// The Web Locks API failed (missing outside a secure context, or the request was refused).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("web lock unavailable: {0}")]
pub struct LockError(pub String);

/// Whether a request queues behind the current holder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// Give up at once if another holder has the lock.
    IfAvailable,
    /// Queue until the lock is free.
    UntilFree,
}

/// The exclusive right to write one session's log. Released when dropped; the browser frees
/// it a moment later, so use [`SessionLock::release`] to wait until another request can get it.
#[derive(Debug)]
pub struct SessionLock {
    /// The JS side's handle; `None` once released.
    token: Option<u32>,
    session: String,
}

impl SessionLock {
    /// Takes the session's lock if no tab holds it; `None` when another holder has it. Call it
    /// before writing a session: a tab that gets `None` is a follower and only reads.
    pub async fn try_acquire(session: &str) -> Result<Option<SessionLock>, LockError> {
        Self::request(session, Wait::IfAvailable).await
    }

    /// Waits until the session's lock is free and takes it (a follower calls this to take
    /// over when the writer's tab closes). Dropping the future withdraws the request.
    pub async fn acquire_when_free(session: &str) -> Result<SessionLock, LockError> {
        match Self::request(session, Wait::UntilFree).await? {
            Some(lock) => Ok(lock),
            None => Err(LockError("the lock request was withdrawn".into())),
        }
    }

    /// The session this lock guards.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Releases the lock and resolves once the browser has freed it (a request made after
    /// this resolves, from any tab, can get it at once).
    pub async fn release(mut self) {
        let Some(token) = self.token.take() else {
            return;
        };
        if let Ok(freed) = js_release(token) {
            // The promise never rejects; a failure would only mean it is already free.
            let _ = wasm_bindgen_futures::JsFuture::from(freed).await;
        }
    }

    async fn request(session: &str, wait: Wait) -> Result<Option<SessionLock>, LockError> {
        let if_available = match wait {
            Wait::IfAvailable => true,
            Wait::UntilFree => false,
        };
        let token = js_request_lock(&lock_name(session), if_available)
            .map_err(|e| LockError(JsFailure::from_js(&e).to_string()))?;
        // From here on, dropping `lock` (or this future) releases or withdraws the request.
        let lock = SessionLock {
            token: Some(token),
            session: session.to_string(),
        };
        let granted = js_granted(token)
            .await
            .map_err(|e| LockError(JsFailure::from_js(&e).to_string()))?;
        Ok(granted.is_truthy().then_some(lock))
    }
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            // `release` never throws; the browser frees the lock on its own schedule.
            let _ = js_release(token);
        }
    }
}

/// The Web Locks name of a session's writer lock (shared by every tab of the origin).
pub fn lock_name(session: &str) -> String {
    format!("tabloop/session/{session}")
}
