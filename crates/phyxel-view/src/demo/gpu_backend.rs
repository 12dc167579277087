//! The demo's GPU backend (crates/phyxel-gpu): steps are queued on the device, the state comes back
//! asynchronously a few times per second ([`PhyxelDemo::apply_gpu_state`]).

use super::PhyxelDemo;
use phyxel::meshless::implicit::SolveStats;
use phyxel::meshless::melting::AMBIENT_TEMPERATURE;
use phyxel::meshless::simulation::Elasticity;
use phyxel::meshless::simulation::Simulation;
use phyxel_gpu::{
    GpuContext, GpuError, GpuSolver, GpuState, GpuSurfaces, InstanceColouring, PhyxelInstances,
};
use std::rc::Rc;

/// The demo's GPU backend: the solver on a device.
pub(super) struct GpuBackend {
    context: Rc<GpuContext>,
    solver: GpuSolver,
    /// The material, damping or integrator changed: upload the simulation again before stepping.
    stale: bool,
    /// A read-back is under way (at most one at a time).
    reading: bool,
    /// The CG statistics of the last implicit step read back.
    last_solve: Option<SolveStats>,
    /// The passes writing what the view draws from this solver's buffers (built when first drawn).
    drawing: Option<(PhyxelInstances, Option<GpuSurfaces>)>,
    /// The simulation's reference updates when it was uploaded: the device counts its own from there.
    updates_at_upload: usize,
}

/// What a view on the solver's device draws from the solver's buffers.
pub struct SolverDrawing<'a> {
    pub context: &'a GpuContext,
    pub instances: &'a PhyxelInstances,
    pub colouring: InstanceColouring,
    /// The surface meshes (None for a scene without any).
    pub surfaces: Option<&'a GpuSurfaces>,
}

impl GpuBackend {
    pub(super) fn last_solve(&self) -> Option<SolveStats> {
        self.last_solve
    }
}

/// CG iterations an implicit step queues on the GPU before the first read-back tells how many it needs
/// (the page reads back a few times per second; the limit's worth would stall a slow device).
const FIRST_ITERATION_BUDGET: usize = 32;

/// The GPU solver for `sim`, with the page's first iteration budget.
fn gpu_solver(context: &GpuContext, sim: &Simulation) -> Result<GpuSolver, GpuError> {
    let mut solver = GpuSolver::new(context, sim)?;
    solver.set_iteration_budget(FIRST_ITERATION_BUDGET);
    Ok(solver)
}

/// The GPU backend (crates/phyxel-gpu), driven like the CPU one: steps are queued on the device, the
/// state comes back asynchronously a few times per second ([`PhyxelDemo::apply_gpu_state`]).
impl PhyxelDemo {
    /// Step on `context`'s device from the current state. Refused (with the reason) for what the GPU
    /// backend does not mirror.
    pub fn attach_gpu(&mut self, context: Rc<GpuContext>) -> Result<(), String> {
        let solver = gpu_solver(&context, &self.sim).map_err(|e| e.to_string())?;
        self.gpu = Some(GpuBackend {
            context,
            solver,
            stale: false,
            reading: false,
            last_solve: None,
            drawing: None,
            updates_at_upload: self.sim.reference_updates,
        });
        Ok(())
    }

    /// The GPU solver's phyxels and surfaces for a view on `view_context`'s device, coloured by
    /// `colour_by` as [`PhyxelDemo::frame_data`] colours them — None unless the solver steps on that
    /// very device.
    pub fn gpu_drawing(
        &mut self,
        view_context: &Rc<GpuContext>,
        colour_by: &str,
    ) -> Option<SolverDrawing<'_>> {
        let full = self.sim.plasticity.map_or(0.3, |p| p.max_strain.max(1e-3));
        let colouring = match colour_by {
            "object" => InstanceColouring::Object,
            "temperature" => InstanceColouring::Temperature {
                ambient: AMBIENT_TEMPERATURE,
                melting_point: super::MELTING_POINT,
            },
            "plastic" => match self.sim.elasticity {
                Elasticity::Mkn04 => InstanceColouring::PlasticStrain { full },
                Elasticity::CorotatedLinear => InstanceColouring::PlasticDeformation { full },
            },
            "speed" => InstanceColouring::Speed,
            _ => return None,
        };
        let (object_of, surfaces) = (&self.object_of, &self.sim.surfaces);
        let gpu = self.gpu.as_mut()?;
        if !Rc::ptr_eq(&gpu.context, view_context) {
            return None;
        }
        if gpu.drawing.is_none() {
            let instances = PhyxelInstances::new(&gpu.context, &gpu.solver, object_of);
            let gpu_surfaces = GpuSurfaces::new(&gpu.context, &gpu.solver, &instances, surfaces);
            if let Some(drawn) = &gpu_surfaces {
                // Drawn surfaces take their deformed shape as rest shape at the device's reference
                // updates (the page binds them anew at its next read-back).
                drawn.follow_reference_updates(&gpu.context, &mut gpu.solver);
            }
            gpu.drawing = Some((instances, gpu_surfaces));
        }
        let (instances, gpu_surfaces) = gpu.drawing.as_ref()?;
        Some(SolverDrawing {
            context: &gpu.context,
            instances,
            colouring,
            surfaces: gpu_surfaces.as_ref(),
        })
    }

    pub(super) fn mark_gpu_stale(&mut self) {
        if let Some(gpu) = &mut self.gpu {
            gpu.stale = true;
        }
    }

    pub(super) fn step_on_gpu(&mut self, dt: f64, steps: u32) -> Result<(), String> {
        let gpu = self.gpu.as_mut().expect("called with the GPU backend");
        if gpu.stale {
            match gpu_solver(&gpu.context, &self.sim) {
                Ok(solver) => {
                    gpu.solver = solver;
                    gpu.drawing = None;
                    gpu.stale = false;
                    gpu.updates_at_upload = self.sim.reference_updates;
                }
                Err(refusal) => {
                    self.gpu = None;
                    return Err(format!("{refusal}; continuing on the CPU"));
                }
            }
        }
        let gpu = self.gpu.as_mut().expect("still on the GPU");
        gpu.solver.set_drag(self.sim.drag);
        gpu.solver.set_melting(self.sim.melting);
        gpu.solver.set_plasticity(self.sim.plasticity);
        if !gpu.solver.step(&gpu.context, dt, steps) {
            // The device is still busy with earlier steps: simulated time waits for it.
            return Ok(());
        }
        self.sim.time += dt * f64::from(steps);
        self.steps += u64::from(steps);
        self.error = None;
        Ok(())
    }

    /// The state on the GPU, read back — unless a read-back is already under way.
    pub fn gpu_state(
        &mut self,
    ) -> Option<impl std::future::Future<Output = Result<GpuState, GpuError>> + 'static> {
        let gpu = self.gpu.as_mut()?;
        if gpu.reading {
            return None;
        }
        gpu.reading = true;
        Some(gpu.solver.read_state(&gpu.context))
    }

    /// Take a read-back into the simulation. A blow-up keeps the last state read (finite) and
    /// returns to the CPU with the explanation; a GPU failure (a lost device, say) returns to the CPU
    /// from the last state read. Reference updates the device made move the page's rest shape too
    /// (and the surfaces drawn from the solver are bound again); one the device could not make (the
    /// deformed shape's neighbour lists outgrew its buffers) is made on the CPU and uploaded, with
    /// buffers sized for it.
    pub fn apply_gpu_state(&mut self, state: Result<GpuState, GpuError>) -> Result<(), String> {
        let Some(gpu) = self.gpu.as_mut() else {
            return Ok(());
        };
        gpu.reading = false;
        let state = match state {
            Ok(state) => state,
            Err(failure) => {
                self.gpu = None;
                return Err(format!(
                    "the GPU stopped ({failure}); continuing on the CPU from the last state read back"
                ));
            }
        };
        if state.blown_up {
            self.gpu = None;
            let bound = self.sim.cfl_time_step();
            self.error = Some(format!(
                "the simulation became unstable on the GPU and was stopped at its last state read back \
                 (stability bound Δt ≤ h·√(ρ/E) = {bound:.2e} s); lower Δt, use more substeps, or soften \
                 the material — continuing on the CPU"
            ));
            return Ok(());
        }
        gpu.last_solve = state.last_solve;
        let device_updates = gpu.updates_at_upload + state.reference_updates as usize;
        if device_updates != self.sim.reference_updates {
            self.sim
                .adopt_reference(state.reference, state.displacement.clone(), device_updates);
            // The surfaces drawn from the solver's buffers take the new binding.
            gpu.drawing = None;
        }
        let body = &mut self.sim.body;
        body.displacement = state.displacement;
        body.velocity = state.velocity;
        body.temperature = state.temperature;
        body.plastic_strain = state.plastic_strain;
        if let Some(plastic) = state.plastic_deformation {
            body.plastic_deformation = plastic;
        }
        if let Some(melting) = self.sim.melting {
            body.stiffness_scale = body
                .temperature
                .iter()
                .map(|t| melting.stiffness_scale(*t))
                .collect();
        }
        if state.neighbour_overflow.is_some() {
            self.sim.update_reference();
            gpu.stale = true;
        }
        Ok(())
    }
}
