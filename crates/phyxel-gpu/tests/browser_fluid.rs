//! The 3D SPH fluid's WCSPH step on the browser's WebGPU (headless Chromium with
//! `--enable-unsafe-webgpu`: SwiftShader) against the CPU's (`phyxel::fluids3d`), as
//! tests/fluid_parity.rs does on lavapipe: the page's dam break at 6 across (432 particles, 5 400 wall
//! particles), shorter, because a software GPU in a browser is slow.
#![cfg(target_arch = "wasm32")]

use phyxel::fluids3d::wcsph::Wcsph;
use phyxel::fluids3d::{Column, FluidSimulation, Solver};
use phyxel_gpu::{GpuContext, GpuFluid};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn webgpu_and_cpu_agree_on_the_3d_dam_break() {
    let gpu = GpuContext::new()
        .await
        .expect("a WebGPU adapter (webdriver.json passes --enable-unsafe-webgpu)");
    let a = 0.05;
    let mut column = Column::martin_moyce(a, 2.0, 4.0, 1.0, 6);
    column.box_height = 2.5 * a;
    column.lid = true;
    let wcsph = Wcsph::for_height(column.gravity, column.column_height);
    let mut cpu =
        FluidSimulation::new(column.build().unwrap(), Solver::Wcsph, wcsph, 0.002).unwrap();
    let dt = cpu.wcsph.time_step(&cpu.fluid);
    cpu.fixed_dt = Some(dt);
    let mut fluid = GpuFluid::new(&gpu, &cpu).unwrap();
    let steps = 100;
    for _ in 0..steps {
        cpu.step().unwrap();
    }
    assert!(
        fluid.step(&gpu, dt, steps).unwrap(),
        "the device took the steps"
    );
    let state = fluid.read_state(&gpu).await.unwrap();
    assert_eq!(state.left_domain, None);
    assert_eq!(state.too_fast, None);
    let worst = cpu
        .fluid
        .x
        .iter()
        .zip(&state.x)
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f64::max);
    let moved = cpu
        .fluid
        .x
        .iter()
        .zip(&fluid_start(&column))
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f64::max);
    assert!(moved > 0.03 * a, "the column began to collapse: {moved} m");
    console_log!(
        "WebGPU ({}) and CPU after {steps} steps: {worst:.3e} m apart, {:.3e} of the box",
        gpu.adapter.name,
        worst / (4.0 * a)
    );
    // The box is 4a long: the solid solver's parity bound, 10⁻⁴ of the object's size.
    assert!(
        worst <= 1e-4 * 4.0 * a,
        "WebGPU and CPU differ by {worst} m after {steps} steps ({})",
        gpu.adapter.name
    );
}

/// The column's particles at t = 0.
fn fluid_start(column: &Column) -> Vec<glam::DVec3> {
    column.build().unwrap().x
}
