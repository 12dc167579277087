//! WebAssembly glue for the Phyxel pages: page bindings and canvas rendering.
//! Physics lives in the `phyxel` crate; nothing here computes any.

pub mod lessons;
mod view;

use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated: Rust panics become readable console errors.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version, shown in the page footer.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
