//! Web Locks: one tab writes a session at a time (`web::locks::SessionLock`), a waiting tab takes
//! over when the holder lets go, and a wait given up leaves the lock free.

use futures::future::{select, Either};
use pretty_assertions::assert_eq;
use tabloop::web::locks::SessionLock;
use wasm_bindgen_test::*;

use super::sleep;

#[wasm_bindgen_test]
async fn a_second_try_acquire_fails_while_the_lock_is_held() {
    let session = format!("lock-{}", js_sys::Math::random());
    let first = SessionLock::try_acquire(&session).await.unwrap();
    assert!(first.is_some());
    assert!(SessionLock::try_acquire(&session).await.unwrap().is_none());
    drop(first);
    // Dropping frees the lock a moment later; wait for the browser to process it.
    sleep(20).await;
    let again = SessionLock::try_acquire(&session).await.unwrap();
    assert_eq!(
        again.as_ref().map(SessionLock::session),
        Some(session.as_str())
    );
}

#[wasm_bindgen_test]
async fn an_awaited_release_frees_the_lock_at_once() {
    let session = format!("lock-{}", js_sys::Math::random());
    let first = SessionLock::try_acquire(&session).await.unwrap().unwrap();
    first.release().await;
    assert!(SessionLock::try_acquire(&session).await.unwrap().is_some());
}

#[wasm_bindgen_test]
async fn a_waiting_acquire_takes_over_when_the_holder_releases() {
    let session = format!("lock-{}", js_sys::Math::random());
    let first = SessionLock::try_acquire(&session).await.unwrap().unwrap();
    let mut waiter = Box::pin(SessionLock::acquire_when_free(&session));
    match select(waiter.as_mut(), Box::pin(sleep(50))).await {
        Either::Left(_) => panic!("the waiter got a held lock"),
        Either::Right(((), _)) => {}
    }
    drop(first);
    let second = waiter.await.unwrap();
    assert_eq!(second.session(), session);
}

#[wasm_bindgen_test]
async fn a_withdrawn_wait_leaves_the_lock_free() {
    let session = format!("lock-{}", js_sys::Math::random());
    let first = SessionLock::try_acquire(&session).await.unwrap().unwrap();
    let mut waiter = Box::pin(SessionLock::acquire_when_free(&session));
    match select(waiter.as_mut(), Box::pin(sleep(20))).await {
        Either::Left(_) => panic!("the waiter got a held lock"),
        Either::Right(((), _)) => {}
    }
    drop(waiter);
    first.release().await;
    assert!(SessionLock::try_acquire(&session).await.unwrap().is_some());
}
