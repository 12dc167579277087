//! WebAssembly glue for the CPU phyxel solver in a dedicated Web Worker (web/js/workers/solver-worker.js).
//! Physics lives in the `phyxel` crate; nothing here computes any.
//!
//! The crate is built twice (web/build-worker.sh):
//!
//! * **threaded** (feature `threads`): the solver's per-phyxel passes run on a rayon pool of Web
//!   Workers sharing the module's memory (wasm-bindgen-rayon). It needs SharedArrayBuffer, so only a
//!   cross-origin isolated page (COOP/COEP headers) can load it;
//! * **single-threaded**: the same code on the worker's own thread, for every other page — a demo
//!   embedded in someone else's course page, a host that cannot send the headers.
//!
//! The page picks the build at run time (web/js/workers/worker-builds.js) and says which one runs. Both
//! export the 3D demo's solver ([`PhyxelDemo`], the class of `phyxel-bindings` around the CPU-only
//! `phyxel_app::Demo`), the benchmark cube ([`BenchCube`]) and the 3D fluid page's solver
//! ([`fluid3d::SphFluids3d`]).
//!
//! Where to start reading: this file is all of it; the worker's side of the conversation is
//! web/js/workers/solver-worker.js, and what the demo does is in `phyxel_app::Demo`.

use phyxel::meshless::scene::benchmark_cube;
use phyxel::meshless::simulation::Simulation;
use phyxel::parallel::in_pool;
use wasm_bindgen::prelude::*;

#[cfg(feature = "threads")]
pub use wasm_bindgen_rayon::init_thread_pool;

pub mod fluid3d;

// The 3D demo's solver (phyxel_app::Demo, on the CPU only), driven by the page through
// web/js/workers/solver-worker.js: the page keeps a mirror of it (the same class, in the page's module) that
// each reply's snapshot brings up to date. (phyxel-bindings also installs the panic hook when the
// module is instantiated.)
phyxel_bindings::phyxel_demo_class!(phyxel_bindings::phyxel_app::CpuOnly);

/// Whether this is the threaded build.
#[wasm_bindgen]
pub fn threaded() -> bool {
    cfg!(feature = "threads")
}

/// Threads the solver's passes run on (1 in the single-threaded build, or before the pool is up).
#[wasm_bindgen]
pub fn thread_count() -> usize {
    phyxel::parallel::thread_count()
}

/// Phyxels each pool thread computed since the last [`reset_work_counters`], by thread index: the
/// solver's own account of who did the work.
#[wasm_bindgen]
pub fn work_per_thread() -> Vec<f64> {
    phyxel::parallel::work_per_thread()
        .into_iter()
        .map(|n| n as f64)
        .collect()
}

#[wasm_bindgen]
pub fn reset_work_counters() {
    phyxel::parallel::reset_work_counters();
}

/// The benchmark cube (`phyxel::meshless::scene::benchmark_cube`), stepped at its recommended Δt.
#[wasm_bindgen]
pub struct BenchCube {
    sim: Simulation,
    dt: f64,
}

#[wasm_bindgen]
impl BenchCube {
    /// n × n × n phyxels, 2 ≤ n ≤ 40.
    #[wasm_bindgen(constructor)]
    pub fn new(n: f64) -> Result<BenchCube, JsError> {
        let n = phyxel_bindings::whole("n (phyxels across the benchmark cube)", n, 2.0, 40.0)?;
        let sim = benchmark_cube(n as usize);
        let dt = sim.recommended_time_step();
        Ok(BenchCube { sim, dt })
    }

    pub fn phyxels(&self) -> usize {
        self.sim.body.len()
    }

    /// Neighbour pairs (i, j) in all neighbourhoods: the interactions one step evaluates.
    pub fn neighbour_interactions(&self) -> usize {
        self.sim.body.neighbours.neighbour.len()
    }

    /// The step Δt (s): a tenth of the stability bound.
    pub fn time_step(&self) -> f64 {
        self.dt
    }

    /// Advance `steps` steps.
    pub fn step(&mut self, steps: f64) -> Result<(), JsError> {
        let steps =
            phyxel_bindings::whole("steps", steps, 0.0, phyxel_bindings::MAX_STEPS_PER_CALL)?;
        let (sim, dt) = (&mut self.sim, self.dt);
        // The whole batch on one pool thread (the threaded build): see `parallel::in_pool`.
        in_pool(|| (0..steps).try_for_each(|_| sim.step(dt)))
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Current positions as x, y, z triples (f64: results of different builds compare exactly).
    pub fn positions(&self) -> Vec<f64> {
        self.sim
            .body
            .positions()
            .iter()
            .flat_map(|p| p.to_array())
            .collect()
    }
}
