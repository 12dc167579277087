//! WebAssembly glue for the Phyxel pages. Physics lives in the `phyxel` crate.
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}
