//! The wasm entry point: installs the panic hook and, with the `playground` feature, mounts the
//! playground (the library package is built without it and only exports the API).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    #[cfg(feature = "playground")]
    tabloop::app::start();
    #[cfg(not(feature = "playground"))]
    tabloop::web::api::start_library();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("tabloop runs in a browser: serve it with `./scripts/serve.sh`.");
}
