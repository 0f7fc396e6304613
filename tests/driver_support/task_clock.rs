//! A clock for the driver tests that need to say when the host's next task runs.

use std::cell::{Cell, RefCell};

use futures::executor::LocalPool;
use tabloop::ports::Clock;

/// A clock whose `soon` resolves only when the test runs "the next task" (`run_next_task`),
/// as the browser's does after the current one; its sleeps never end.
#[derive(Default)]
pub struct TaskClock {
    now: Cell<u64>,
    next_task: RefCell<Vec<futures::channel::oneshot::Sender<()>>>,
}

impl TaskClock {
    pub fn run_next_task(&self, pool: &mut LocalPool) {
        for waiting in self.next_task.borrow_mut().drain(..) {
            let _ = waiting.send(());
        }
        pool.run_until_stalled();
    }
}

impl Clock for TaskClock {
    fn now(&self) -> u64 {
        self.now.set(self.now.get() + 1);
        self.now.get()
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
    fn soon(&self) -> impl std::future::Future<Output = ()> {
        let (sender, receiver) = futures::channel::oneshot::channel();
        self.next_task.borrow_mut().push(sender);
        async move {
            let _ = receiver.await;
        }
    }
}
