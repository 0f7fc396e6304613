//! One in-tab model for the whole page: loaded on first use, shared by every session, with its
//! download progress broadcast to whoever listens (the progress bar).

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{FutureExt, LocalBoxFuture, Shared};

use super::local_client::{LoadProgress, LocalLoadOptions, LocalModel};
use crate::protocol::ModelError;

/// A listener of load progress.
type ProgressListener = Rc<dyn Fn(&LoadProgress)>;

type Loading = Shared<LocalBoxFuture<'static, Result<Rc<LocalModel>, ModelError>>>;

thread_local! {
    static LOADING: RefCell<Option<(Option<String>, Loading)>> = const { RefCell::new(None) };
    static LISTENERS: RefCell<Vec<ProgressListener>> = const { RefCell::new(Vec::new()) };
    static LAST: RefCell<Option<LoadProgress>> = const { RefCell::new(None) };
}

/// Calls `listener` with every progress report from now on (and the last one, at once).
pub fn on_progress(listener: ProgressListener) {
    if let Some(last) = LAST.with(|l| l.borrow().clone()) {
        listener(&last);
    }
    LISTENERS.with(|l| l.borrow_mut().push(listener));
}

/// The model at `url` (the default model when `None`), loading it if needed. A failed load is
/// forgotten so the next call tries again.
pub async fn local_model(url: Option<String>) -> Result<Rc<LocalModel>, ModelError> {
    let loading = LOADING.with(|slot| {
        let mut slot = slot.borrow_mut();
        match slot.as_ref() {
            Some((loaded_url, loading)) if *loaded_url == url => loading.clone(),
            Some(_) | None => {
                let options = LocalLoadOptions {
                    module_url: None,
                    model_url: url.clone(),
                };
                let future: LocalBoxFuture<'static, Result<Rc<LocalModel>, ModelError>> =
                    async move {
                        LocalModel::load(&options, |report| {
                            LAST.with(|l| *l.borrow_mut() = Some(report.clone()));
                            let listeners = LISTENERS.with(|l| l.borrow().clone());
                            for listener in listeners {
                                listener(&report);
                            }
                        })
                        .await
                        .map(Rc::new)
                    }
                    .boxed_local();
                let shared = future.shared();
                *slot = Some((url.clone(), shared.clone()));
                shared
            }
        }
    });
    let result = loading.await;
    if result.is_err() {
        LOADING.with(|slot| *slot.borrow_mut() = None);
    }
    result
}
