//! WebAssembly glue for the Phyxel pages: page bindings and canvas rendering.
//! Physics lives in the `phyxel` crate; nothing here computes any.
//!
//! Where to start reading: [`lessons`] has a binding per 2D lesson, named like its page and like its
//! solver in `phyxel::lessons` (`pbd.html` → `lessons/pbd.rs` here → `phyxel::lessons::pbd`): each
//! class checks the page's numbers against the solver's parameter table, steps it and draws it
//! (`view` and [`colour`] hold the shared drawing).

pub mod colour;
pub mod lessons;
mod view;

use phyxel::params::Param;
use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated: Rust panics become readable console errors.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A number from the page, checked against its entry in the lesson's parameter table; the error
/// names the parameter.
pub(crate) fn check(param: Param, value: f64) -> Result<f64, JsError> {
    param.check(value).map_err(|e| JsError::new(&e.to_string()))
}

/// A number from the page that is no lesson parameter (a dragged point), checked against its range.
pub(crate) fn check_range(
    name: &'static str,
    value: f64,
    min: f64,
    max: f64,
) -> Result<f64, JsError> {
    phyxel::params::check_range(name, value, min, max).map_err(|e| JsError::new(&e.to_string()))
}

/// A whole number from the page that is no lesson parameter (steps, an index), where wasm-bindgen's
/// `u32` would silently truncate or wrap it (10.5 → 10, −1 → 4294967295): taken as the `f64` it is
/// and refused unless whole and within [`min`, `max`], the error naming it and the range.
pub(crate) fn whole(name: &'static str, value: f64, min: f64, max: f64) -> Result<usize, JsError> {
    Param::integer(name, min, max, min)
        .check(value)
        .map(|value| value as usize)
        .map_err(|e| JsError::new(&e.to_string()))
}

/// Steps one `step` call of a lesson may ask for: a JavaScript number beyond it is refused.
pub(crate) const MAX_STEPS_PER_CALL: f64 = 1e6;

/// A lesson's parameter table for its page: [{ name, min, max, integer, default }].
pub(crate) fn parameters(table: &[Param]) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(table).map_err(|e| JsError::new(&e.to_string()))
}

/// The crate version, shown in the page footer.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
