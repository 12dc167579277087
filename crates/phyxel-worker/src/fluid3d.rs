//! The 3D fluid page's solver in the worker (web/js/workers/solver-worker.js, its `fluid-*`
//! requests; the page is web/sph-fluids-3d.html): [`SphFluids3d`] around
//! `phyxel::lessons::sph_fluids_3d::Fluid3dScene`. Nothing here computes physics: it checks what
//! JavaScript hands it, steps, and packs what the page draws and reads out.

use phyxel::fluids3d::Solver;
use phyxel::lessons::sph_fluids_3d::{Fluid3dScene, Scene, Settings};
use phyxel::parallel::in_pool;
use phyxel_bindings::js_error;
use wasm_bindgen::prelude::*;

/// The scene of the 3D fluid page, stepped in the worker (on its thread pool in the threaded build).
#[wasm_bindgen]
pub struct SphFluids3d {
    scene: Fluid3dScene,
    /// Why the last advance stopped (a blow-up caught before NaN), if it did.
    error: Option<String>,
}

#[wasm_bindgen]
impl SphFluids3d {
    /// The page's parameter table [{ name, min, max, integer, default }].
    pub fn parameters() -> JsValue {
        phyxel_bindings::fluid3d::parameters()
    }

    /// `scene` ("dam-break" or "glass") stepped by `solver` ("wcsph", "dfsph", "pbf"); refused with
    /// the reason (a value out of its range, a budget exceeded) before anything is built.
    #[wasm_bindgen(constructor)]
    pub fn new(
        scene: &str,
        solver: &str,
        across: f64,
        xsph: f64,
        iterations: f64,
        sound: f64,
    ) -> Result<SphFluids3d, JsError> {
        let settings = Settings::new(across, xsph, iterations, sound).map_err(js_error)?;
        let scene = Scene::from_id(scene).map_err(js_error)?;
        let solver = Solver::from_id(solver).map_err(js_error)?;
        let scene = in_pool(|| Fluid3dScene::new(scene, solver, settings)).map_err(js_error)?;
        Ok(SphFluids3d { scene, error: None })
    }

    /// Switch solvers under the running water.
    pub fn set_solver(&mut self, solver: &str) -> Result<(), JsError> {
        let solver = Solver::from_id(solver).map_err(js_error)?;
        self.scene.simulation.set_solver(solver);
        self.error = None;
        Ok(())
    }

    /// Change ξ, the iteration limit and WCSPH's speed of sound (the particle count stays: a new
    /// `across` is a new scene).
    pub fn set_parameters(
        &mut self,
        xsph: f64,
        iterations: f64,
        sound: f64,
    ) -> Result<(), JsError> {
        let settings = self
            .scene
            .settings
            .retuned(xsph, iterations, sound)
            .map_err(js_error)?;
        self.scene.set(settings);
        self.error = None;
        Ok(())
    }

    /// Stir at (x, y, z) m moving at (vx, vy, vz) m/s (`lessons::sph_fluids_3d::stir`), or stop
    /// (`on` false). A value that is not a finite number is refused, the stir as it was.
    #[allow(clippy::too_many_arguments)]
    pub fn set_stir(
        &mut self,
        x: f64,
        y: f64,
        z: f64,
        vx: f64,
        vy: f64,
        vz: f64,
        on: bool,
    ) -> Result<(), JsError> {
        let at = phyxel_bindings::fluid3d::stir_at([x, y, z], [vx, vy, vz], on);
        self.scene.set_stir(at).map_err(js_error)
    }

    /// At most `steps` CFL steps, stopping once the clock reaches `until` (s); returns the steps
    /// taken. A refused step (a blow-up caught before NaN) stops it with the state before that step,
    /// and [`SphFluids3d::error`] says why; no step is taken after it until a setter or a new scene
    /// clears it.
    pub fn advance(&mut self, steps: f64, until: f64) -> Result<u32, JsError> {
        let steps =
            phyxel_bindings::whole("steps", steps, 0.0, phyxel_bindings::MAX_STEPS_PER_CALL)?;
        if !until.is_finite() {
            return Err(JsError::new("until: must be a finite number"));
        }
        if self.error.is_some() {
            return Ok(0);
        }
        let scene = &mut self.scene;
        let (taken, error) = in_pool(|| {
            let mut taken = 0;
            while taken < steps && scene.simulation.fluid.time < until {
                if let Err(error) = scene.step() {
                    return (taken, Some(error.to_string()));
                }
                taken += 1;
            }
            (taken, None)
        });
        if error.is_some() {
            self.error = error;
        }
        Ok(taken as u32)
    }
}

phyxel_bindings::fluid3d_readers!(SphFluids3d);
