//! wasm tests in headless Chromium (`wasm-pack test --headless --chrome`, flags in webdriver.json):
//! the solver's integrators compiled to wasm, the lesson bindings, and canvas rendering.
#![cfg(target_arch = "wasm32")]

use phyxel::integrators::{Integrator, Method, State};
use phyxel::lessons::time_integration::Spring;
use phyxel_web::lessons::time_integration::TimeIntegrationLesson;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(value: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(value, &JsValue::from_str(key)).expect(key)
}

#[wasm_bindgen_test]
fn integrators_reach_their_order_in_wasm() {
    // The same theory as the native test: halving Δt divides the global error by 2^order.
    let spring = Spring {
        stiffness: 1.0,
        mass: 1.0,
    };
    let error = |method, steps: usize| {
        let dt = 2.0 / steps as f64;
        let mut state = State::new(1.0, 0.0);
        let mut integrator = Integrator::new(method);
        for _ in 0..steps {
            integrator.step(&spring, &mut state, dt);
        }
        (state.x - state.t.cos()).abs() + (state.v + state.t.sin()).abs()
    };
    for method in Method::ALL {
        let steps = if method == Method::Rk4 { 20 } else { 400 };
        let ratio = error(method, steps) / error(method, 2 * steps);
        let expected = 2f64.powi(method.order() as i32);
        assert!(
            (ratio / expected - 1.0).abs() < 0.1,
            "{method:?}: ratio {ratio}"
        );
    }
}

#[wasm_bindgen_test]
fn lesson_bindings_follow_the_analytic_spring() {
    let mut lesson = TimeIntegrationLesson::spring(4.0, 1.0, 0.5).unwrap();
    lesson.step(0.001, 1000.0).unwrap();
    assert!((lesson.time() - 1.0).abs() < 1e-9);
    let snapshot = lesson.snapshot().unwrap();
    let exact_x = get(&get(&snapshot, "exact"), "x").as_f64().unwrap();
    assert!((exact_x - 0.5 * 2f64.cos()).abs() < 1e-12);
    let methods = js_sys::Array::from(&get(&snapshot, "methods"));
    assert_eq!(methods.length(), 8);
    for m in methods.iter() {
        let error = get(&m, "error").as_f64().unwrap();
        assert!(error < 5e-3, "{:?}: error {error}", get(&m, "id"));
        assert!(
            get(&m, "diverged").is_falsy(),
            "no method may blow up at ωΔt = 0.002"
        );
    }
}

#[wasm_bindgen_test]
fn invalid_parameters_are_errors_not_panics() {
    assert!(TimeIntegrationLesson::spring(-1.0, 1.0, 1.0).is_err());
    assert!(TimeIntegrationLesson::projectile(9.81, 1.0, f64::NAN, 45.0).is_err());
    let mut lesson = TimeIntegrationLesson::spring(1.0, 1.0, 1.0).unwrap();
    assert!(lesson.step(-0.1, 1.0).is_err());
    assert!(lesson.step(f64::NAN, 1.0).is_err());
    assert_eq!(lesson.time(), 0.0);
}

#[wasm_bindgen_test]
fn drawing_puts_the_exact_solution_where_the_view_says() {
    let document = web_sys::window().unwrap().document().unwrap();
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .unwrap()
        .dyn_into()
        .unwrap();
    canvas.set_width(400);
    canvas.set_height(200);
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let lesson = TimeIntegrationLesson::projectile(9.81, 1.0, 10.0, 45.0).unwrap();
    let colors: Vec<String> = (0..8).map(|_| "#ff0000".to_string()).collect();
    lesson.draw(&ctx, 400.0, 200.0, colors, vec![1; 8], None);
    // Every method starts at the launch point (0, 0): red there; far from the path the canvas is white.
    let world_to_pixel = |x: f64, y: f64| {
        // Invert canvas_to_world by bisection-free search: sample the mapping at two points.
        let a = lesson.canvas_to_world(0.0, 0.0, 400.0, 200.0);
        let b = lesson.canvas_to_world(400.0, 200.0, 400.0, 200.0);
        (
            (x - a[0]) / (b[0] - a[0]) * 400.0,
            (y - a[1]) / (b[1] - a[1]) * 200.0,
        )
    };
    let pixel = |px: f64, py: f64| {
        ctx.get_image_data(px.round(), py.round(), 1.0, 1.0)
            .unwrap()
            .data()
            .0
    };
    let (px, py) = world_to_pixel(0.0, 0.0);
    let launch = pixel(px, py);
    assert!(
        launch[0] > 200 && launch[1] < 80 && launch[2] < 80,
        "launch point pixel {launch:?}"
    );
    let corner = pixel(399.0, 1.0);
    assert_eq!(&corner[..3], &[255, 255, 255], "the sky is white");
}

#[wasm_bindgen_test]
fn the_test_browser_exposes_webgpu() {
    // webdriver.json passes --enable-unsafe-webgpu: the later GPU parity tests rely on it.
    let navigator = web_sys::window().unwrap().navigator();
    let gpu = get(&navigator, "gpu");
    assert!(
        !gpu.is_undefined() && !gpu.is_null(),
        "navigator.gpu is missing: is webdriver.json in effect?"
    );
}

#[wasm_bindgen_test]
fn kernel_bindings_check_the_normalization_and_refuse_bad_input() {
    use phyxel_web::lessons::kernels::{kernel_curves, kernel_lattice_integral};
    for id in ["cubic", "wendland", "quintic", "poly6", "spiky"] {
        for d in 1..=3 {
            let integral = kernel_lattice_integral(id, f64::from(d), 0.7).unwrap();
            assert!((integral - 1.0).abs() < 1e-3, "{id} {d}D: {integral}");
        }
    }
    let curves = kernel_curves("spiky", 3.0, 1.0, 5.0).unwrap();
    let laplacian = js_sys::Array::from(&get(&curves, "laplacian"));
    let at_zero = laplacian.get(0);
    assert!(
        at_zero.as_f64().is_none(),
        "the spiky Laplacian diverges at r = 0: a gap, not {at_zero:?}"
    );
    assert!(laplacian.get(1).as_f64().unwrap() < 0.0);
    assert!(kernel_lattice_integral("gauss", 3.0, 1.0).is_err());
    assert!(kernel_lattice_integral("cubic", 4.0, 1.0).is_err());
    assert!(kernel_curves("cubic", 3.0, f64::NAN, 10.0).is_err());
    // Whole numbers are taken as the f64 JavaScript sends and refused unless whole and in range
    // (a u32 parameter would have made 2.5 → 2, −1 → 4294967295 and 1e10 → 1410065408 silently).
    for (dimension, samples) in [
        (2.5, 10.0),
        (-1.0, 10.0),
        (1e10, 10.0),
        (3.0, 10.5),
        (3.0, -1.0),
        (3.0, 1e10),
    ] {
        assert!(
            kernel_curves("cubic", dimension, 1.0, samples).is_err(),
            "{dimension}, {samples}"
        );
    }
}

#[wasm_bindgen_test]
fn sph_approximation_bindings_reproduce_what_theory_says_and_refuse_bad_input() {
    use phyxel_web::lessons::sph_approximation::SphApproximationLesson;
    let mut lesson = SphApproximationLesson::new(0.1, 3.0, 0.7, 4.0, "cubic").unwrap();
    assert_eq!(lesson.count(), 400);
    // A linear field f = 2 − x + 3y sampled at the particles and along the line.
    let sample = |points: Vec<f64>| {
        let values: Vec<f64> = points
            .chunks_exact(2)
            .map(|p| 2.0 - p[0] + 3.0 * p[1])
            .collect();
        let gradients: Vec<f64> = values.iter().flat_map(|_| [-1.0, 3.0]).collect();
        (values, gradients)
    };
    let (values, gradients) = sample(lesson.positions());
    let (line_values, line_gradients) = sample(lesson.line_points());
    let max = |report: &JsValue, key: &str| get(&get(report, key), "max").as_f64().unwrap();
    let corrected = lesson
        .evaluate(
            &values,
            &gradients,
            &line_values,
            &line_gradients,
            true,
            true,
        )
        .unwrap();
    assert!(max(&corrected, "gradient_samples") < 1e-9);
    assert!(max(&corrected, "gradient_line") < 1e-9);
    let plain = lesson
        .evaluate(
            &values,
            &gradients,
            &line_values,
            &line_gradients,
            false,
            false,
        )
        .unwrap();
    assert!(max(&plain, "gradient_samples") > 0.5);
    // Wrong lengths, non-finite values and out-of-range parameters are errors, not panics.
    assert!(lesson
        .evaluate(
            &values[1..],
            &gradients,
            &line_values,
            &line_gradients,
            false,
            false
        )
        .is_err());
    let mut bad = values.clone();
    bad[3] = f64::NAN;
    assert!(lesson
        .evaluate(
            &bad,
            &gradients,
            &line_values,
            &line_gradients,
            false,
            false
        )
        .is_err());
    assert!(lesson.set_line(2.0, 0.0).is_err());
    assert!(SphApproximationLesson::new(0.0, 3.0, 0.5, 1.0, "cubic").is_err());
    assert!(SphApproximationLesson::new(0.1, 3.0, 0.5, 1.0, "gauss").is_err());
}

#[wasm_bindgen_test]
fn mls_gradient_bindings_are_exact_for_linear_fields_and_survive_degenerate_drags() {
    use phyxel_web::lessons::mls_gradient::MlsGradientLesson;
    let mut lesson = MlsGradientLesson::new(0.1, 2.5, 0.6, 1.0).unwrap();
    let evaluate = |lesson: &mut MlsGradientLesson| {
        let values: Vec<f64> = lesson
            .positions()
            .chunks_exact(2)
            .map(|p| 0.5 * (p[0] + p[1]))
            .collect();
        let gradients: Vec<f64> = values.iter().flat_map(|_| [0.5, 0.5]).collect();
        lesson.evaluate(&values, &gradients).unwrap()
    };
    let report = evaluate(&mut lesson);
    assert!(get(&get(&report, "mls"), "max").as_f64().unwrap() < 1e-9);
    assert!(get(&get(&report, "sph"), "max").as_f64().unwrap() > 0.1);
    assert_eq!(get(&report, "regularized").as_f64(), Some(0.0));
    // The chosen particle moved far from the others: no neighbours, rank 0, finite.
    lesson.move_chosen(5.0, 5.0).unwrap();
    let report = evaluate(&mut lesson);
    assert_eq!(get(&report, "regularized").as_f64(), Some(1.0));
    let chosen = get(&report, "chosen");
    assert_eq!(get(&chosen, "rank").as_f64(), Some(0.0));
    assert!(
        get(&chosen, "condition").as_f64().is_none(),
        "κ = ∞ is sent as no number"
    );
    assert!(get(&get(&report, "mls"), "max")
        .as_f64()
        .unwrap()
        .is_finite());
    assert!(lesson.move_chosen(f64::NAN, 0.0).is_err());
    assert!(lesson.evaluate(&[1.0], &[0.0, 0.0]).is_err());
    assert!(MlsGradientLesson::new(0.1, 0.5, 0.6, 1.0).is_err());
}
