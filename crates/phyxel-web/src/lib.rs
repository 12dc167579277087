//! WebAssembly glue for the Phyxel pages: page bindings and canvas rendering.
//! Physics lives in the `phyxel` crate; nothing here computes any.

pub mod colour;
pub mod lessons;
mod view;

use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated: Rust panics become readable console errors.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A number from the page, checked against its range; the error names the parameter.
pub(crate) fn check(name: &'static str, value: f64, min: f64, max: f64) -> Result<f64, JsError> {
    phyxel::params::check_range(name, value, min, max).map_err(|e| JsError::new(&e.to_string()))
}

/// The crate version, shown in the page footer.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
