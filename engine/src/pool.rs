//! A fixed set of threads that run one job at a time, all together: the caller hands a job to
//! every thread (itself included, as index 0) and returns when all have finished it. Threads
//! wait for work by spinning briefly, then sleeping on a condition variable, so a burst of
//! small jobs (the matrix products of one layer) costs no wake-ups, and an idle model costs no
//! CPU. Natively the threads are OS threads. On the web (the `wasm32-wasip1-threads` build)
//! they are Web Workers on the engine's shared memory, started by the page through an import
//! ([`crate::abi`]): the standard library's thread spawning is not used there, as its
//! thread-locals with destructors hang that runtime.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Checks of the job flag before a waiting thread goes to sleep (about 50 µs).
const SPINS_BEFORE_SLEEP: u32 = 20_000;

/// A job as the threads see it: a borrowed closure whose lifetime [`Pool::run`] guarantees.
type Job = *const (dyn Fn(usize) + Sync);

struct Shared {
    /// Bumped for every job; a thread runs a job when it sees a number it has not run.
    generation: AtomicU32,
    /// The current job (valid while `pending` > 0).
    job: Mutex<Option<SendJob>>,
    /// Threads (besides the caller) still running the current job.
    pending: AtomicUsize,
    /// Threads that have started their loop.
    started: AtomicUsize,
    /// Whether a thread's job panicked.
    panicked: AtomicBool,
    stop: AtomicBool,
    sleep: Mutex<()>,
    wake: Condvar,
}

/// Set when a pool thread panics where a panic aborts its thread instead of unwinding (the
/// web's builds): the thread waiting for that thread's share of a job learns of it here.
static THREAD_PANICKED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread is one a pool spawned.
    static POOL_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// With panics that abort, makes a pool thread's panic flag [`THREAD_PANICKED`] before the
/// standard hook reports it (with panics that unwind, `catch_unwind` reports it). Once.
fn watch_panics() {
    #[cfg(panic = "abort")]
    {
        static WATCHING: std::sync::Once = std::sync::Once::new();
        WATCHING.call_once(|| {
            let report = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if POOL_THREAD.with(std::cell::Cell::get) {
                    THREAD_PANICKED.store(true, Ordering::Release);
                }
                report(info);
            }));
        });
    }
}

/// The running pool's state, for threads the page starts ([`thread_main`]).
#[cfg(target_os = "wasi")]
static RUNNING: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

struct SendJob(Job);
// SAFETY: the job is `Sync` (shared by reference across threads) and `Pool::run` keeps it
// alive until every thread has finished with it.
#[allow(unsafe_code)]
unsafe impl Send for SendJob {}

/// The threads, and the one that hands them work.
pub struct Pool {
    shared: Arc<Shared>,
    handles: Vec<Spawned>,
}

/// A spawned thread: joinable natively; on the web it ends by itself once stopped.
enum Spawned {
    #[cfg(not(target_os = "wasi"))]
    Native(std::thread::JoinHandle<()>),
    #[cfg(target_os = "wasi")]
    Page,
}

impl Pool {
    /// A pool of `threads` in all: the caller and `threads − 1` spawned ones. Spawning may
    /// fail (a browser without threads): the pool then has the threads it got, at least the
    /// caller.
    pub fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            generation: AtomicU32::new(0),
            job: Mutex::new(None),
            pending: AtomicUsize::new(0),
            started: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
        });
        let mut handles = Vec::new();
        if threads > 1 {
            watch_panics();
        }
        #[cfg(target_os = "wasi")]
        if threads > 1 {
            if let Ok(mut running) = RUNNING.lock() {
                *running = Some(Arc::clone(&shared));
            }
        }
        for index in 1..threads.max(1) {
            match spawn(&shared, index) {
                Some(handle) => handles.push(handle),
                None => break,
            }
        }
        Pool { shared, handles }
    }

    /// Threads in the pool, the caller included.
    pub fn threads(&self) -> usize {
        self.handles.len() + 1
    }

    /// Whether every spawned thread is running (a job must not start before: on the web a
    /// worker starts only after its spawner yields to its event loop).
    pub fn ready(&self) -> bool {
        self.shared.started.load(Ordering::Acquire) == self.handles.len()
    }

    /// Runs `job(index)` once on every thread, `index` from 0 (the caller) to
    /// `threads() − 1`, and returns when all have finished. Panics if a thread's job panicked.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        let others = self.handles.len();
        if others == 0 {
            job(0);
            return;
        }
        let borrowed: *const (dyn Fn(usize) + Sync + '_) = job;
        // SAFETY: only the lifetime is erased. The pointer is dereferenced by the threads only
        // while `pending` > 0, and this function does not return before `pending` is 0, so
        // `job` outlives every use.
        #[allow(unsafe_code)]
        let erased: Job = unsafe { std::mem::transmute(borrowed) };
        if let Ok(mut slot) = self.shared.job.lock() {
            *slot = Some(SendJob(erased));
        }
        self.shared.pending.store(others, Ordering::Release);
        self.shared.generation.fetch_add(1, Ordering::AcqRel);
        if let Ok(_guard) = self.shared.sleep.lock() {
            self.shared.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        while self.shared.pending.load(Ordering::Acquire) != 0 {
            if THREAD_PANICKED.load(Ordering::Acquire) {
                // A thread died mid-job (on the web a panic aborts it before it can report
                // done): end this job too, with an error, instead of waiting forever.
                std::panic::resume_unwind(Box::new("a thread of the engine failed"));
            }
            std::hint::spin_loop();
        }
        if let Ok(mut slot) = self.shared.job.lock() {
            *slot = None;
        }
        if let Err(payload) = mine {
            std::panic::resume_unwind(payload);
        }
        if self.shared.panicked.swap(false, Ordering::AcqRel) {
            std::panic::resume_unwind(Box::new("a pool thread's job panicked"));
        }
    }
}

impl Default for Pool {
    /// No threads besides the caller.
    fn default() -> Pool {
        Pool::new(1)
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} threads)", self.threads())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.shared.generation.fetch_add(1, Ordering::AcqRel);
        if let Ok(_guard) = self.shared.sleep.lock() {
            self.shared.wake.notify_all();
        }
        for handle in self.handles.drain(..) {
            match handle {
                #[cfg(not(target_os = "wasi"))]
                Spawned::Native(handle) => {
                    let _ = handle.join();
                }
                #[cfg(target_os = "wasi")]
                Spawned::Page => {}
            }
        }
    }
}

/// Starts thread `index` of the pool.
#[cfg(not(target_os = "wasi"))]
fn spawn(shared: &Arc<Shared>, index: usize) -> Option<Spawned> {
    let shared = Arc::clone(shared);
    std::thread::Builder::new()
        .name(format!("engine-{index}"))
        .spawn(move || work(&shared, index))
        .ok()
        .map(Spawned::Native)
}

/// Starts thread `index` of the pool: the page starts a worker that calls [`thread_main`].
#[cfg(target_os = "wasi")]
fn spawn(_shared: &Arc<Shared>, index: usize) -> Option<Spawned> {
    #[link(wasm_import_module = "env")]
    extern "C" {
        /// Starts a worker that will call `tl_thread_main(index)`; false when it cannot.
        fn tl_spawn_thread(index: usize) -> i32;
    }
    // SAFETY: an import taking a number and touching no memory of ours.
    #[allow(unsafe_code)]
    let started = unsafe { tl_spawn_thread(index) };
    (started == 1).then_some(Spawned::Page)
}

/// The loop of a thread the page started, until the pool is dropped.
#[cfg(target_os = "wasi")]
pub fn thread_main(index: usize) {
    let shared = RUNNING.lock().ok().and_then(|running| running.clone());
    if let Some(shared) = shared {
        work(&shared, index);
    }
}

/// A thread's loop: wait for a job, run it, report it done.
fn work(shared: &Shared, index: usize) {
    POOL_THREAD.with(|is| is.set(true));
    shared.started.fetch_add(1, Ordering::AcqRel);
    let mut seen = 0;
    loop {
        seen = wait_for_job(shared, seen);
        if shared.stop.load(Ordering::Acquire) {
            return;
        }
        let job = shared
            .job
            .lock()
            .ok()
            .and_then(|slot| slot.as_ref().map(|j| j.0));
        if let Some(job) = job {
            // SAFETY: `Pool::run` keeps the job alive until `pending` reaches 0, which this
            // thread's decrement below precedes.
            #[allow(unsafe_code)]
            let job = unsafe { &*job };
            if catch_unwind(AssertUnwindSafe(|| job(index))).is_err() {
                shared.panicked.store(true, Ordering::Release);
            }
        }
        shared.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Waits until the generation differs from `seen`; returns the new one.
fn wait_for_job(shared: &Shared, seen: u32) -> u32 {
    for _ in 0..SPINS_BEFORE_SLEEP {
        let now = shared.generation.load(Ordering::Acquire);
        if now != seen {
            return now;
        }
        std::hint::spin_loop();
    }
    let Ok(mut guard) = shared.sleep.lock() else {
        return shared.generation.load(Ordering::Acquire);
    };
    loop {
        let now = shared.generation.load(Ordering::Acquire);
        if now != seen {
            return now;
        }
        guard = match shared.wake.wait(guard) {
            Ok(guard) => guard,
            Err(_) => return shared.generation.load(Ordering::Acquire),
        };
    }
}
