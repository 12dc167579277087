//! wasm tests in headless Chromium (`wasm-pack test --headless --chrome`, flags in webdriver.json):
//! the 3D demo's solver bindings, its WebGL2 view, and a WebGPU view lending its device to the solver.
#![cfg(target_arch = "wasm32")]

use phyxel_view::demo::PhyxelDemo;
use phyxel_view::view::PhyxelView;
use phyxel_view::OrbitCamera;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A 5 × 5 × 5 jelly cube (spacing 0.08 m) on a cubic lattice.
/// A 320 × 200 canvas added to the test page.
fn canvas_on_page() -> web_sys::HtmlCanvasElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .unwrap()
        .dyn_into()
        .unwrap();
    canvas.set_width(320);
    canvas.set_height(200);
    document.body().unwrap().append_child(&canvas).unwrap();
    canvas
}

fn jelly_cube() -> PhyxelDemo {
    PhyxelDemo::new("cube", 5.0, false, 1e5, 0.3, 1000.0, 5e4, false).unwrap()
}

#[wasm_bindgen_test]
fn the_phyxel_solver_runs_in_the_browser() {
    let mut demo = jelly_cube();
    assert_eq!(demo.phyxel_count(), 125);
    let dt = demo.recommended_time_step();
    assert!((demo.cfl_time_step() - 2.2 * 0.08 * (1000.0f64 / 1e5).sqrt()).abs() < 1e-12);
    // Falling freely for 0.1 s before it reaches the ground (elastic forces vanish for a rigid
    // translation). Symplectic Euler with the damping force −c·v (c = 0.5/s), per step:
    // v ← v + Δt(−g − c·v), y ← y + Δt·v — the exact recurrence, to round-off. The lowest phyxels
    // start half a spacing above the drop height of 0.3 m.
    let steps = (0.1 / dt).round() as u32;
    assert!(demo.step(dt, f64::from(steps)).unwrap());
    let (mut y, mut v) = (0.34f64, 0.0f64);
    for _ in 0..steps {
        v += dt * (-9.81 - 0.5 * v);
        y += dt * v;
    }
    let lowest = demo
        .positions()
        .chunks(3)
        .map(|p| p[1])
        .fold(f32::INFINITY, f32::min) as f64;
    assert!((lowest - y).abs() < 1e-6, "lowest {lowest}, free fall {y}");
    // A blow-up is reported, not propagated: steel at 60 Hz.
    let mut steel = PhyxelDemo::new("cube", 5.0, false, 2e11, 0.3, 7800.0, 0.0, false).unwrap();
    assert!(!steel.step(1.0 / 60.0, 50.0).unwrap());
    assert!(steel.error().unwrap().contains("h·√(ρ/E)"));
    assert!(steel.positions().iter().all(|x| x.is_finite()));
    // Bad input is an error with the parameter named, never a panic.
    assert!(PhyxelDemo::new("teapot", 5.0, false, 1e5, 0.3, 1000.0, 5e4, false).is_err());
    assert!(PhyxelDemo::new("cube", 5.0, false, 1e5, 0.5, 1000.0, 5e4, false).is_err());
    assert!(PhyxelDemo::new("cube", 120.0, false, 1e5, 0.3, 1000.0, 5e4, false).is_err());
    assert!(demo.set_material(f64::NAN, 0.3, 1000.0, 5e4).is_err());
    assert!(demo.set_integrator("teleport").is_err());
    assert!(
        demo.set_implicit_solver(0.0, 10.0).is_err(),
        "a zero CG tolerance is refused"
    );
    assert!(demo.frame_data("rainbow").is_err());
    // Steel at 60 Hz is fine implicitly (corotated implicit Euler with CG), on the CPU in wasm: the
    // first step's solve works (from the state the blow-up kept), and 29 more converge. (At rest a
    // step may take no CG iteration at all: its warm start already meets the tolerance.)
    steel.set_integrator("implicit-euler").unwrap();
    assert!(steel.is_implicit());
    assert!(steel.step(1.0 / 60.0, 1.0).unwrap(), "{:?}", steel.error());
    assert!(steel.cg_iterations() > 0.0 && steel.cg_residual() <= 1e-4);
    assert!(steel.step(1.0 / 60.0, 29.0).unwrap(), "{:?}", steel.error());
    assert!(steel.cg_iterations() >= 0.0 && steel.cg_residual() <= 1e-4);
}

#[wasm_bindgen_test]
fn frames_carry_every_phyxel_and_the_surface() {
    let demo = jelly_cube();
    let frame = demo.frame_data("object").unwrap();
    assert_eq!(frame.phyxels.len(), 125);
    assert!(frame.phyxels.iter().all(|p| p[3] == 0.0), "one object");
    // The cube's surface: 6 faces of 24 × 24 quads, 7 floats per vertex, indices within range.
    let vertices = frame.surface_vertices.len() / 7;
    assert_eq!(frame.surface_indices.len(), 6 * 24 * 24 * 6);
    assert!(frame
        .surface_indices
        .iter()
        .all(|&i| (i as usize) < vertices));
    let temperature = demo.frame_data("temperature").unwrap();
    assert!(
        temperature.phyxels.iter().all(|p| p[3] == 0.0),
        "room temperature maps to 0"
    );
}

#[wasm_bindgen_test]
async fn the_webgl2_view_draws_without_gpu_errors() {
    let canvas = canvas_on_page();
    let mut view = PhyxelView::create(canvas, false).await.unwrap();
    assert_eq!(view.backend(), "WebGL2");
    let mut demo = jelly_cube();
    let camera = OrbitCamera::new();
    assert!(view.solver_device().is_none(), "WebGL2 has no compute");
    for (colour, phyxels, surface) in [
        ("object", true, false),
        ("speed", true, true),
        ("plastic", false, true),
    ] {
        view.draw(&mut demo, &camera, colour, phyxels, surface)
            .unwrap();
        assert!(!view.draws_from_solver());
    }
    view.resize(640.0, 400.0).unwrap();
    view.draw(&mut demo, &camera, "temperature", true, true)
        .unwrap();
    assert_eq!(view.failure(), None);
}

#[wasm_bindgen_test]
async fn a_webgpu_view_lends_its_device_to_the_solver_and_draws_the_solvers_buffers() {
    let canvas = canvas_on_page();
    let Ok(mut view) = PhyxelView::create(canvas, true).await else {
        return; // no WebGPU view here: nothing to share
    };
    assert_eq!(view.backend(), "WebGPU");
    let device = view
        .solver_device()
        .expect("a WebGPU view lends its device");
    assert!(device.shared_with_view());
    let mut demo = jelly_cube();
    demo.use_gpu(&device).unwrap();
    assert!(demo.step(demo.recommended_time_step(), 5.0).unwrap());
    let camera = OrbitCamera::new();
    // Headless Chromium cannot present a WebGPU canvas (README): the device may be lost at the first
    // frame, asynchronously; what is checked is that the frame was built from the solver's buffers.
    let drawn = view.draw(&mut demo, &camera, "speed", true, true);
    assert!(
        view.draws_from_solver(),
        "the phyxels came from the solver's buffers ({:?})",
        drawn.err().map(|e| JsValue::from(e).as_string())
    );
    // Any GPU error arrives asynchronously: give it time, then only a lost device (the headless canvas)
    // is acceptable — no validation error from the instance or surface passes.
    let pause = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 500)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(pause).await.unwrap();
    if let Some(failure) = view.failure() {
        assert!(failure.contains("lost"), "the GPU reported: {failure}");
    }
    // The same view drawing a demo that steps on the CPU draws the page's copy.
    let mut on_cpu = jelly_cube();
    let _ = view.draw(&mut on_cpu, &camera, "speed", true, false);
    assert!(!view.draws_from_solver());
}
