//! The engine's WebAssembly interface, for the worker that runs it (www/local/engine/).
//! Plain exported functions over linear memory: the worker copies bytes in through
//! [`tl_alloc`], calls, and reads results back from the output buffer
//! ([`tl_output_ptr`]/[`tl_output_len`]). A call that fails returns a negative number and
//! leaves its message in the output buffer. One engine per instance; the worker is its only
//! caller, one call at a time.

use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::sampling::Sampling;
use crate::session::{LoadError, Session, Step};

// Statics rather than thread-locals: the threaded build's other threads never call in, and
// a thread-local with a destructor needs a registration the threaded runtime does not have.
static SESSION: Mutex<Option<Session>> = Mutex::new(None);
static OUTPUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn set_output(bytes: &[u8]) {
    let mut out = locked(&OUTPUT);
    out.clear();
    out.extend_from_slice(bytes);
}

fn fail(message: &str) -> i32 {
    set_output(message.as_bytes());
    -1
}

/// Runs `f` on the loaded session, or fails when none is loaded.
fn with_session(f: impl FnOnce(&mut Session) -> i32) -> i32 {
    match locked(&SESSION).as_mut() {
        Some(session) => f(session),
        None => fail("no model is loaded"),
    }
}

/// `len` bytes at `ptr` as text (lossy).
///
/// # Safety
/// `ptr` must point to `len` readable bytes (or `len` be 0).
unsafe fn text_at(ptr: *const u8, len: usize) -> String {
    if len == 0 {
        return String::new();
    }
    // SAFETY: the caller gives `len` readable bytes at `ptr`.
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(ptr, len) }).into_owned()
}

/// Reserves `len` bytes for the caller to fill; hand them back to a call that takes them, or
/// to [`tl_free`].
#[no_mangle]
pub extern "C" fn tl_alloc(len: usize) -> *mut u8 {
    let mut buffer = Vec::<u8>::with_capacity(len);
    let ptr = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    ptr
}

/// Frees bytes from [`tl_alloc`].
///
/// # Safety
/// `ptr` and `len` must come from one `tl_alloc` call, not yet freed or taken.
#[no_mangle]
pub unsafe extern "C" fn tl_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller hands back an allocation of `len` bytes from tl_alloc.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len) });
}

/// Where the last call's output starts.
#[no_mangle]
pub extern "C" fn tl_output_ptr() -> *const u8 {
    locked(&OUTPUT).as_ptr()
}

/// How long the last call's output is.
#[no_mangle]
pub extern "C" fn tl_output_len() -> usize {
    locked(&OUTPUT).len()
}

/// Loads a GGUF model from `len` bytes at `ptr` (taken: freed before it returns) with room
/// for `context` tokens, its work split across `threads` threads (threads need the build for
/// `wasm32-wasip1-threads`; wait for [`tl_threads_ready`] before the first completion).
/// Returns 0; −2 when this engine does not run such a model, −1 when the file is broken; the
/// reason in the output.
///
/// # Safety
/// `ptr`/`len` must be a filled `tl_alloc` allocation, not used again by the caller.
#[no_mangle]
pub unsafe extern "C" fn tl_load(ptr: *mut u8, len: usize, context: usize, threads: usize) -> i32 {
    // SAFETY: the caller gives up a tl_alloc allocation of `len` bytes it filled.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len) };
    drop(locked(&SESSION).take());
    let session = Session::load(&bytes, context, threads);
    drop(bytes);
    loaded(session)
}

/// Runs thread `index` of the loaded model's pool (a worker the page started for
/// `tl_spawn_thread`, its stack and thread-local storage set up first); returns when the model
/// is unloaded.
#[cfg(target_os = "wasi")]
#[no_mangle]
pub extern "C" fn tl_thread_main(index: usize) {
    crate::pool::thread_main(index);
}

/// 1 when every thread of the loaded model runs (a completion may start), else 0.
#[no_mangle]
pub extern "C" fn tl_threads_ready() -> i32 {
    with_session(|session| i32::from(session.threads().1))
}

/// Turns drafts from the context on (1, the default) or off (0) for the loaded model.
#[no_mangle]
pub extern "C" fn tl_drafts(on: i32) -> i32 {
    with_session(|session| {
        session.set_drafts(on != 0);
        0
    })
}

#[link(wasm_import_module = "env")]
extern "C" {
    /// Copies `len` bytes of the model file from `offset` to `dst`; 1 when it did.
    #[link_name = "tl_read"]
    fn page_read(offset: usize, len: usize, dst: *mut u8) -> i32;
}

/// Loads a GGUF model of `file_len` bytes that the page reads out as asked (`tl_read`: the
/// header, then one tensor at a time), so the file is never in memory beside the packed
/// weights. Otherwise as [`tl_load`].
#[no_mangle]
pub extern "C" fn tl_load_reading(file_len: usize, context: usize, threads: usize) -> i32 {
    drop(locked(&SESSION).take());
    let read = |offset: usize, buffer: &mut [u8]| {
        // SAFETY: the page writes `buffer.len()` bytes at the buffer's start, which is ours.
        let copied = unsafe { page_read(offset, buffer.len(), buffer.as_mut_ptr()) };
        if copied == 1 {
            Ok(())
        } else {
            Err(format!(
                "the page could not read {} bytes at {offset}",
                buffer.len()
            ))
        }
    };
    loaded(Session::load_reading(file_len, read, context, threads))
}

/// Keeps a loaded session, or reports why loading failed (−2: not a model the engine runs).
fn loaded(session: Result<Session, LoadError>) -> i32 {
    match session {
        Ok(session) => {
            *locked(&SESSION) = Some(session);
            0
        }
        Err(error @ LoadError::Unsupported(_)) => {
            set_output(error.to_string().as_bytes());
            -2
        }
        Err(error @ LoadError::Invalid(_)) => fail(&error.to_string()),
    }
}

/// Writes the loaded model's description as JSON into the output.
#[no_mangle]
pub extern "C" fn tl_info() -> i32 {
    with_session(|session| {
        set_output(session.describe().as_bytes());
        0
    })
}

/// Starts a completion of the prompt text at `prompt`/`prompt_len`, under the GBNF grammar at
/// `grammar`/`grammar_len` (none when 0 long), generating at most `max_tokens`, greedy at
/// temperature 0. Writes `{"total":…,"reused":…}` into the output; −1 on error.
///
/// # Safety
/// Both ranges must be readable.
#[no_mangle]
pub unsafe extern "C" fn tl_begin(
    prompt: *const u8,
    prompt_len: usize,
    grammar: *const u8,
    grammar_len: usize,
    max_tokens: usize,
    temperature: f32,
) -> i32 {
    // SAFETY: the caller gives readable ranges.
    let (prompt, grammar) = unsafe { (text_at(prompt, prompt_len), text_at(grammar, grammar_len)) };
    let grammar = (grammar_len > 0).then_some(grammar.as_str());
    with_session(|session| {
        match session.begin(
            &prompt,
            grammar,
            Sampling::with_temperature(temperature),
            max_tokens,
        ) {
            Ok(plan) => {
                set_output(
                    format!("{{\"total\":{},\"reused\":{}}}", plan.total, plan.reused).as_bytes(),
                );
                0
            }
            Err(message) => fail(&message),
        }
    })
}

/// Reads up to `batch` more prompt tokens; returns how many remain, or −1 on error.
#[no_mangle]
pub extern "C" fn tl_feed(batch: usize) -> i32 {
    with_session(|session| match session.feed(batch) {
        Ok(remaining) => remaining as i32,
        Err(message) => fail(&message),
    })
}

/// Generates the next token: 0 with its bytes in the output, 1 when generation stopped, 2 at
/// the token limit, −1 on error. `random` is a uniform draw in [0, 1) for sampling.
#[no_mangle]
pub extern "C" fn tl_next(random: f32) -> i32 {
    with_session(|session| match session.next(random) {
        Ok(Step::Token(bytes)) => {
            set_output(&bytes);
            0
        }
        Ok(Step::Stop) => 1,
        Ok(Step::Length) => 2,
        Err(message) => fail(&message),
    })
}

/// Tokens the current (or last) completion generated: a step of [`tl_next`] may append
/// several (jump-forward), so the worker counts with this.
#[no_mangle]
pub extern "C" fn tl_generated() -> i32 {
    with_session(|session| session.generated() as i32)
}

/// Turns jump-forward decoding on (1, the default) or off (0) for the loaded model.
#[no_mangle]
pub extern "C" fn tl_jump_forward(on: i32) -> i32 {
    with_session(|session| {
        session.set_jump_forward(on != 0);
        0
    })
}

#[link(wasm_import_module = "env")]
extern "C" {
    /// The page's clock (`performance.now()`), for timing by phase.
    #[link_name = "tl_now"]
    fn page_now() -> f64;
}

fn now() -> f64 {
    // SAFETY: an imported function without arguments or memory access.
    unsafe { page_now() }
}

/// Starts (1) or stops (0) timing the forward pass by phase; either way the totals restart.
#[no_mangle]
pub extern "C" fn tl_profile(on: i32) -> i32 {
    with_session(|session| {
        session.set_clock((on != 0).then_some(now as fn() -> f64));
        0
    })
}

/// Writes the time spent by phase since profiling started, as JSON in milliseconds.
#[no_mangle]
pub extern "C" fn tl_phases() -> i32 {
    with_session(|session| {
        let p = session.phases();
        set_output(
            format!(
                "{{\"matmul\":{:.3},\"attention\":{:.3},\"other\":{:.3}}}",
                p.matmul, p.attention, p.other
            )
            .as_bytes(),
        );
        0
    })
}

/// Writes the `k` highest logits of the next token as JSON into the output (see
/// [`Session::top_logits`]).
#[no_mangle]
pub extern "C" fn tl_top_logits(k: usize) -> i32 {
    with_session(|session| {
        set_output(session.top_logits(k).as_bytes());
        0
    })
}

/// Drops the completion in progress.
#[no_mangle]
pub extern "C" fn tl_cancel() {
    if let Some(session) = locked(&SESSION).as_mut() {
        session.cancel();
    }
}

/// Computes with the activation encoding named (as the engine's info reports it) at
/// `name`/`name_len` instead of the one probed for this CPU: for measuring one against another.
/// Call before [`tl_load`] or [`tl_load_reading`]; −1 (with the reason) where the name is
/// unknown, or this build's kernels are not exact with it on this CPU.
///
/// # Safety
/// The range must be readable.
#[no_mangle]
pub unsafe extern "C" fn tl_choose_activations(name: *const u8, name_len: usize) -> i32 {
    use crate::kernels::encoding::{choose, encoding, exact_here, Encoding};
    // SAFETY: passed on from the caller.
    let name = unsafe { text_at(name, name_len) };
    match Encoding::named(&name) {
        Some(wanted) if choose(wanted) => 0,
        Some(_) => fail(&format!(
            "activations \"{name}\" are not exact with these kernels on this CPU, or \"{}\" are in use already (exact here: {})",
            encoding().name(),
            exact_here().iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")
        )),
        None => fail(&format!("no activation encoding is called \"{name}\"")),
    }
}

/// Compares this build's matrix product with the portable one on the same inputs, in every
/// activation encoding exact here (see [`crate::kernels::check`]), and writes `{"kernels",
/// "activations", "checked", "products", "worst", "agrees"}` as JSON (`checked`: the encodings
/// compared). Needs no model.
#[no_mangle]
pub extern "C" fn tl_check_kernels() -> i32 {
    use crate::kernels::{check, encoding::encoding, encoding::exact_here, kernel_name, matmul};
    let outcome = check::compare(matmul, check::portable);
    let checked: Vec<String> = exact_here()
        .iter()
        .map(|e| format!("\"{}\"", e.name()))
        .collect();
    set_output(
        format!(
            "{{\"kernels\":\"{}\",\"activations\":\"{}\",\"checked\":[{}],\"products\":{},\"worst\":{},\"agrees\":{}}}",
            kernel_name(),
            encoding().name(),
            checked.join(","),
            outcome.products,
            if outcome.worst.is_finite() { outcome.worst } else { f32::MAX },
            outcome.agrees()
        )
        .as_bytes(),
    );
    0
}
