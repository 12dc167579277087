//! The threaded build in headless Chromium (wasm-bindgen-test-runner serves its page cross-origin
//! isolated): the rayon pool of Web Workers starts, both threads step the cube, and the step is the
//! one theory gives. Run by `./dev test` with the pinned nightly and the atomics flags of
//! web/build-worker.sh (`--features threads`).
#![cfg(all(target_arch = "wasm32", feature = "threads"))]

use phyxel_worker::{
    init_thread_pool, reset_work_counters, thread_count, work_per_thread, BenchCube,
};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_pool_starts_and_its_threads_step_the_cube_as_theory_says() {
    JsFuture::from(init_thread_pool(2))
        .await
        .expect("the thread pool starts (shared memory, cross-origin isolated)");
    assert_eq!(thread_count(), 2);
    let n = 8;
    let mut cube = BenchCube::new(f64::from(n)).unwrap();
    let start = cube.positions();
    reset_work_counters();
    // Batches of 10 steps until both threads have computed phyxels (a Web Worker just started may
    // not wake before the first batch is done: one run in four failed here with a single batch of
    // 10 steps, all 10 240 phyxel passes on one thread), at most 20 batches; 8³ phyxels × 2
    // per-phyxel passes a step in all.
    let batch = 10;
    let mut steps = 0;
    let mut work = Vec::new();
    for _ in 0..20 {
        cube.step(f64::from(batch)).unwrap();
        steps += batch;
        work = work_per_thread();
        if work.iter().all(|w| *w > 0.0) {
            break;
        }
    }
    assert_eq!(work.len(), 2);
    assert_eq!(work.iter().sum::<f64>(), f64::from(n * n * n * 2 * steps));
    assert!(
        work.iter().all(|w| *w > 0.0),
        "work per thread after {steps} steps: {work:?}"
    );
    // At rest and undeformed, the cube feels no elastic force: it falls as symplectic Euler with
    // damping c = 0.5/s says, v ← v + Δt (g − c v), y ← y + Δt v, every phyxel alike.
    let dt = cube.time_step();
    let (mut v, mut fall) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        v += dt * (-9.81 - 0.5 * v);
        fall += dt * v;
    }
    let end = cube.positions();
    for (k, (a, b)) in start.iter().zip(&end).enumerate() {
        let expected = if k % 3 == 1 { a + fall } else { *a };
        assert!(
            (b - expected).abs() <= 1e-12,
            "coordinate {k}: {b} vs {expected}"
        );
    }
}
