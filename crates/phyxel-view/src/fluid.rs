//! The 3D fluid page's WebGPU solver: [`GpuFluid3d`], the page's scene (`phyxel::lessons::
//! sph_fluids_3d::Fluid3dScene`, built and checked on the CPU) stepped by `phyxel_gpu::GpuFluid`
//! (WCSPH on WebGPU compute, the CPU's passes mirrored one to one), its state read back into the
//! scene's copy for the readouts and the drawing. Nothing here computes physics: the CFL step comes
//! from the copy's last state (`FluidSimulation::time_step`), the readouts from
//! `phyxel_bindings::fluid3d`.

use crate::gpu::GpuDevice;
use phyxel::fluids3d::Solver;
use phyxel::lessons::sph_fluids_3d::{Fluid3dScene, Scene, Settings};
use phyxel_bindings::js_error;
use phyxel_gpu::{GpuContext, GpuFluid, GpuFluidState};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Most steps one [`GpuFluid3d::advance`] queues (a long frame must not queue a burst).
pub const MAX_STEPS_PER_ADVANCE: u32 = 400;

/// The page's scene stepped on the GPU.
#[wasm_bindgen]
pub struct GpuFluid3d {
    context: Rc<GpuContext>,
    fluid: GpuFluid,
    /// The scene's copy on the CPU: the last state read back (what is drawn and read out).
    scene: Fluid3dScene,
    /// Steps queued on the device and their Δt.
    steps: u64,
    /// Bumped each time the device's fluid is built anew (new parameters, a recovery): a read-back
    /// of an older one is not taken.
    generation: u32,
    /// Why the fluid stopped, if it did.
    error: Option<String>,
}

/// One read-back of the GPU fluid, to hand to [`GpuFluid3d::apply`].
#[wasm_bindgen]
pub struct GpuFluidReadback {
    state: Option<Result<GpuFluidState, String>>,
    /// The [`GpuFluid3d`] generation it was read from.
    generation: u32,
}

#[wasm_bindgen]
impl GpuFluid3d {
    /// `scene` stepped by `solver` on `device`. The GPU mirrors WCSPH and the glass's inlet (its
    /// buffers made for every particle the nozzle will let out): the incompressible solvers are
    /// refused with the reason, as is a scene beyond the CPU copy's budgets or the device's storage
    /// bindings (the limit named).
    #[wasm_bindgen(constructor)]
    pub fn new(
        device: &GpuDevice,
        scene: &str,
        solver: &str,
        across: f64,
        xsph: f64,
        iterations: f64,
        sound: f64,
    ) -> Result<GpuFluid3d, JsError> {
        let settings = Settings::new(across, xsph, iterations, sound).map_err(js_error)?;
        let scene = Scene::from_id(scene).map_err(js_error)?;
        let solver = Solver::from_id(solver).map_err(js_error)?;
        if solver != Solver::Wcsph {
            return Err(JsError::new(&format!(
                "{} runs on the CPU only: the GPU steps WCSPH",
                solver.name()
            )));
        }
        let mut scene = Fluid3dScene::new(scene, solver, settings).map_err(js_error)?;
        let context = device.context();
        let fluid = upload(&context, &scene)?;
        // The copy's state comes from the device from now on: nothing reads its neighbour lists and
        // pair kernels (tens of MB at the largest scenes), so they go.
        let copy = &mut scene.simulation.fluid;
        copy.fluid_kernels = Vec::new();
        copy.boundary_kernels = Vec::new();
        copy.fluid_neighbours = Default::default();
        copy.boundary_neighbours = Default::default();
        Ok(GpuFluid3d {
            context,
            fluid,
            scene,
            steps: 0,
            generation: 0,
            error: None,
        })
    }

    /// Queue the steps of `duration` seconds: n equal steps, each within the CFL bound of the last
    /// state read back, n at most `max_steps` (the page's frame budget) and
    /// [`MAX_STEPS_PER_ADVANCE`]: beyond them the clock falls behind real time. Returns n, or 0
    /// when the device is still busy with earlier steps (or the fluid stopped).
    pub fn advance(&mut self, duration: f64, max_steps: f64) -> Result<u32, JsError> {
        if !(duration.is_finite() && duration > 0.0) {
            return Err(JsError::new("duration: must be a positive number"));
        }
        let most = phyxel_bindings::whole(
            "max_steps",
            max_steps,
            1.0,
            f64::from(MAX_STEPS_PER_ADVANCE),
        )? as u32;
        if self.error.is_some() {
            return Ok(0);
        }
        let cfl = self.scene.simulation.time_step();
        let n = ((duration / cfl).ceil() as u32).clamp(1, most);
        let dt = (duration / f64::from(n)).min(cfl);
        let queued = match self.scene.glass.as_mut() {
            // The nozzle's layers go in on the device as they fall due; the copy takes them with
            // the next read-back (`Fluid3dScene::set_state`).
            Some((_, nozzle)) => self.fluid.step_pouring(&self.context, dt, n, nozzle),
            None => self.fluid.step(&self.context, dt, n),
        };
        if !queued.map_err(js_error)? {
            return Ok(0);
        }
        self.steps += u64::from(n);
        self.scene.simulation.last.dt = dt;
        self.scene.simulation.last.iterations = 1;
        Ok(n)
    }

    /// A promise of the device's current state (a [`GpuFluidReadback`]).
    pub fn read_back(&self) -> js_sys::Promise {
        let future = self.fluid.read_state(&self.context);
        let generation = self.generation;
        wasm_bindgen_futures::future_to_promise(async move {
            Ok(JsValue::from(GpuFluidReadback {
                state: Some(future.await.map_err(|e| e.to_string())),
                generation,
            }))
        })
    }

    /// Take a read-back into the scene's copy (one of a device fluid since built anew is left
    /// out). A step the CPU would have refused (a particle that left the grid, or moved more than
    /// h/2 in one step) stops the fluid: the copy keeps the last good state, the device starts
    /// again from it, and [`GpuFluid3d::error`] says why.
    pub fn apply(&mut self, readback: &mut GpuFluidReadback) -> Result<(), JsError> {
        if readback.generation != self.generation {
            return Ok(());
        }
        let state = match readback.state.take() {
            Some(Ok(state)) => state,
            Some(Err(failure)) => return Err(JsError::new(&failure)),
            None => return Ok(()),
        };
        let refused = match (state.left_domain, state.too_fast) {
            (Some(i), _) => Some(format!(
                "particle {i} left the domain (the CFL condition was violated)"
            )),
            (None, Some(i)) => Some(format!(
                "particle {i} moved more than half its support radius in one step (the CFL \
                 condition was violated)"
            )),
            (None, None) => None,
        };
        let taken = match refused {
            Some(why) => Err(why),
            None => self
                .scene
                .set_state(
                    &state.x,
                    &state.v,
                    &state.density,
                    &state.pressure,
                    state.time,
                )
                .map_err(|e| e.to_string()),
        };
        if let Err(why) = taken {
            self.error = Some(format!(
                "WCSPH on the GPU at t = {:.4} s: {why}; the last good state is kept",
                state.time
            ));
            self.rebuild()?;
        }
        Ok(())
    }

    /// Change ξ and WCSPH's speed of sound (the iterations are the CPU solvers'): the device starts
    /// again from the last state read back, with the new values.
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
        let previous = self.scene.settings;
        self.scene.set(settings);
        if let Err(error) = self.rebuild() {
            self.scene.set(previous);
            return Err(error);
        }
        self.error = None;
        Ok(())
    }

    /// Stir at (x, y, z) m moving at (vx, vy, vz) m/s on the device (`GpuFluid::set_stir`) and in
    /// the copy (so that a rebuild keeps it), or stop (`on` false). A value that is not a finite
    /// number is refused, the stir as it was.
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
        self.scene.set_stir(at).map_err(js_error)?;
        self.fluid
            .set_stir(&self.context, self.scene.simulation.fluid.stir)
            .map_err(js_error)
    }

    /// Rebuild the device's fluid from the scene's copy; read-backs of the old one are left out.
    /// (The glass's layers let out on the device since the copy's last read-back are not in it: a
    /// rebuild after a refused step loses them, the mass still the count times m.)
    fn rebuild(&mut self) -> Result<(), JsError> {
        self.fluid = upload(&self.context, &self.scene)?;
        self.generation = self.generation.wrapping_add(1);
        Ok(())
    }

    /// Steps queued on the device so far.
    pub fn steps(&self) -> f64 {
        self.steps as f64
    }

    /// The adapter the fluid steps on.
    pub fn adapter(&self) -> String {
        self.context.adapter.name.clone()
    }
}

/// The scene's copy uploaded: with room for everything the glass's nozzle lets out, if it pours.
fn upload(context: &GpuContext, scene: &Fluid3dScene) -> Result<GpuFluid, JsError> {
    match &scene.glass {
        Some((_, nozzle)) => GpuFluid::with_capacity(
            context,
            &scene.simulation,
            nozzle.total().max(scene.simulation.fluid.len()),
        ),
        None => GpuFluid::new(context, &scene.simulation),
    }
    .map_err(js_error)
}

phyxel_bindings::fluid3d_readers!(GpuFluid3d);
