//! The threaded build in headless Chromium (wasm-bindgen-test-runner serves its page cross-origin
//! isolated), in a dedicated worker as on the site: the rayon pool of Web Workers starts, both
//! threads step the cube, and the step is the one theory gives. Run by `./dev test` with the pinned
//! nightly and the atomics flags of web/build-worker.sh (`--features threads`).
#![cfg(all(target_arch = "wasm32", feature = "threads"))]

use phyxel_worker::{
    init_thread_pool, reset_work_counters, thread_count, work_per_thread, BenchCube,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

// In a dedicated worker, as the site runs the pool (web/js/workers/solver-worker.js): a page's main
// thread may not block, and wasm-bindgen-rayon's start sometimes waits on a lock there (about one run
// in forty failed on the main thread with "Atomics.wait cannot be called in this context").
wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen(inline_js = "export function in_dedicated_worker() { \
    return typeof DedicatedWorkerGlobalScope !== 'undefined' \
        && self instanceof DedicatedWorkerGlobalScope; }")]
extern "C" {
    fn in_dedicated_worker() -> bool;
}

#[wasm_bindgen_test]
async fn the_pool_starts_and_its_threads_step_the_cube_as_theory_says() {
    assert!(in_dedicated_worker(), "the test runs in a dedicated worker");
    JsFuture::from(init_thread_pool(2))
        .await
        .expect("the thread pool starts (shared memory, cross-origin isolated)");
    assert_eq!(thread_count(), 2);
    // Fresh cubes, each stepped 50 steps (well before it reaches the floor, which the theory below
    // leaves out) and checked against theory, until one was stepped by both threads: a Web Worker
    // just started may not wake before a short batch is done (one run in four once failed with a
    // single batch of 10 steps, all on one thread). Until 2026-11-29 one cube took batches until both
    // threads had worked, and about one run in twelve went on past 150 steps, where the cube lands
    // on the floor and no longer falls as the theory says (all 1 536 coordinates off, by 2.5 cm).
    let n = 8;
    let steps = 50;
    for attempt in 1..=20 {
        let mut cube = BenchCube::new(f64::from(n)).unwrap();
        let start = cube.positions();
        reset_work_counters();
        cube.step(f64::from(steps)).unwrap();
        let work = work_per_thread();
        assert_eq!(work.len(), 2);
        // 8³ phyxels × 2 per-phyxel passes a step in all.
        assert_eq!(work.iter().sum::<f64>(), f64::from(n * n * n * 2 * steps));
        falls_as_theory_says(&cube, &start, steps);
        if work.iter().all(|w| *w > 0.0) {
            return;
        }
        assert!(
            attempt < 20,
            "work per thread in the last attempt: {work:?}"
        );
    }
}

/// At rest and undeformed, the cube feels no elastic force: it falls as symplectic Euler with
/// damping c = 0.5/s says, v ← v + Δt (g − c v), y ← y + Δt v, every phyxel alike.
fn falls_as_theory_says(cube: &BenchCube, start: &[f64], steps: u32) {
    let dt = cube.time_step();
    let (mut v, mut fall) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        v += dt * (-9.81 - 0.5 * v);
        fall += dt * v;
    }
    // The floor is y = 0 and the cube's bottom starts at y = 0.1 m: still in the air.
    let bottom = start
        .iter()
        .skip(1)
        .step_by(3)
        .fold(f64::INFINITY, |m, y| m.min(*y));
    assert!(
        bottom + fall > 0.0,
        "the cube would have landed: fall {fall} m"
    );
    let end = cube.positions();
    for (k, (a, b)) in start.iter().zip(&end).enumerate() {
        let expected = if k % 3 == 1 { a + fall } else { *a };
        assert!(
            (b - expected).abs() <= 1e-12,
            "coordinate {k}: {b} vs {expected}"
        );
    }
}
