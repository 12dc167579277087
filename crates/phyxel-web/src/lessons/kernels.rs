//! Bindings for the kernels lesson: curves and the live normalization check of each SPH kernel.
//! The kernels themselves are [`phyxel::kernels`].

use phyxel::kernels::{Dimension, Kernel};
use phyxel::lessons::kernels::{param, PARAMETERS};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[derive(Serialize)]
struct KernelInfo {
    id: &'static str,
    name: &'static str,
}

#[derive(Serialize)]
struct Curves {
    r: Vec<f64>,
    value: Vec<f64>,
    derivative: Vec<f64>,
    /// ∇²W; `None` where it is infinite (the spiky kernel at r = 0).
    laplacian: Vec<Option<f64>>,
}

fn parse(id: &str, dimension: f64, h: f64) -> Result<(Kernel, Dimension, f64), JsError> {
    let kernel =
        Kernel::from_id(id).ok_or_else(|| JsError::new(&format!("unknown kernel “{id}”")))?;
    let dim = Dimension::from_number(crate::whole("the dimension", dimension, 1.0, 3.0)? as u32)
        .ok_or_else(|| JsError::new("the dimension must be 1, 2 or 3"))?;
    Ok((kernel, dim, crate::check(param::SUPPORT_RADIUS, h)?))
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(value).map_err(|e| JsError::new(&e.to_string()))
}

/// The lesson's parameter table [{ name, min, max, integer, default }] the page builds its control from.
#[wasm_bindgen]
pub fn kernel_parameters() -> Result<JsValue, JsError> {
    crate::parameters(PARAMETERS)
}

/// Every kernel: id and name.
#[wasm_bindgen]
pub fn kernel_list() -> Result<JsValue, JsError> {
    to_js(
        &Kernel::ALL
            .iter()
            .map(|k| KernelInfo {
                id: k.id(),
                name: k.name(),
            })
            .collect::<Vec<_>>(),
    )
}

/// W, dW/dr and ∇²W at `samples` radii from 0 to 1.25 h.
#[wasm_bindgen]
pub fn kernel_curves(id: &str, dimension: f64, h: f64, samples: f64) -> Result<JsValue, JsError> {
    let (kernel, dim, h) = parse(id, dimension, h)?;
    let n = crate::whole("samples", samples, 2.0, 4096.0)?;
    let r: Vec<f64> = (0..n)
        .map(|i| 1.25 * h * i as f64 / (n - 1) as f64)
        .collect();
    to_js(&Curves {
        value: r.iter().map(|&r| kernel.value(r, h, dim)).collect(),
        derivative: r.iter().map(|&r| kernel.derivative(r, h, dim)).collect(),
        laplacian: r
            .iter()
            .map(|&r| Some(kernel.laplacian(r, h, dim)).filter(|l| l.is_finite()))
            .collect(),
        r,
    })
}

/// The normalization constant σ_d (W = σ_d / h^d · f(r/h)).
#[wasm_bindgen]
pub fn kernel_normalization(id: &str, dimension: f64) -> Result<f64, JsError> {
    let (kernel, dim, _) = parse(id, dimension, 1.0)?;
    Ok(kernel.normalization(dim))
}

/// The live check: Σ_j W(|x_j|) ΔV over a lattice of spacing h/40 (h/24 in 3D).
#[wasm_bindgen]
pub fn kernel_lattice_integral(id: &str, dimension: f64, h: f64) -> Result<f64, JsError> {
    let (kernel, dim, h) = parse(id, dimension, h)?;
    Ok(kernel.lattice_integral(h, dim, if dim == Dimension::Three { 24 } else { 40 }))
}
