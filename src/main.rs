//! The wasm entry point: installs the panic hook and starts the composition root (which, with
//! the `playground` feature, also mounts the playground).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    tabloop::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("tabloop runs in a browser: serve it with `./scripts/serve.sh`.");
}
