//! WebAssembly glue for the 3D phyxel demo ("Elastic, plastic and melting objects"): the solver as
//! the page drives it ([`demo::PhyxelDemo`]), the orbit camera, and the wgpu view (WebGPU, else WebGL2).
//! Physics lives in the `phyxel` crate; this crate only moves data and draws it.

pub mod camera;
pub mod demo;
pub mod frame;
#[cfg(all(target_arch = "wasm32", feature = "view"))]
pub mod gpu;
#[cfg(all(target_arch = "wasm32", feature = "view"))]
mod render;
#[cfg(all(target_arch = "wasm32", feature = "view"))]
pub mod view;

pub use camera::OrbitCamera;

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
