//! The demo's GPU backend (crates/phyxel-gpu): the accelerator of [`phyxel_app::Demo`] on the page.
//! Steps are queued on the device, the state comes back asynchronously a few times per second
//! ([`apply_state`]); in a fracture scene after every batch, whose cracks the demo cuts on the CPU
//! before the next ([`phyxel_app::Demo::took_accelerator_state`]) and this backend writes to the
//! device.

use phyxel::meshless::body::Integration;
use phyxel::meshless::implicit::SolveStats;
use phyxel::meshless::melting::{AMBIENT_TEMPERATURE, MELTING_POINT};
use phyxel::meshless::simulation::Elasticity;
use phyxel::meshless::simulation::Simulation;
use phyxel_app::{Accelerator, BatchLoads, CutChange, Demo};
use phyxel_gpu::{
    GpuContext, GpuError, GpuSolver, GpuState, GpuSurfaces, InstanceColouring, PhyxelInstances,
};
use std::rc::Rc;

/// The demo's GPU backend: the solver on a device.
pub struct GpuBackend {
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
    /// Bumped each time the demo's state is changed on the host ([`Accelerator::take_state_anew`]),
    /// and its value when the read-back under way was asked for: a read-back from before the change
    /// is dropped.
    generation: u64,
    reading_generation: u64,
}

/// The demo stepping on the GPU when it has a [`GpuBackend`].
pub type GpuDemo = Demo<GpuBackend>;

/// What a view on the solver's device draws from the solver's buffers.
pub struct SolverDrawing<'a> {
    pub context: &'a GpuContext,
    pub instances: &'a PhyxelInstances,
    pub colouring: InstanceColouring,
    /// The surface meshes (None for a scene without any).
    pub surfaces: Option<&'a GpuSurfaces>,
}

/// CG iterations an implicit step queues on the GPU before the first read-back tells how many it needs
/// (the page reads back a few times per second; the limit's worth would stall a slow device).
const FIRST_ITERATION_BUDGET: usize = 32;

/// The GPU solver for `sim` moved by `loads` (a fracture scene's grips or ball), with the page's
/// first iteration budget.
fn gpu_solver(
    context: &GpuContext,
    sim: &Simulation,
    loads: &BatchLoads,
) -> Result<GpuSolver, GpuError> {
    let mut solver = GpuSolver::new(context, sim)?;
    solver.set_iteration_budget(FIRST_ITERATION_BUDGET);
    match loads {
        BatchLoads::None => {}
        BatchLoads::Grips { path, .. } => solver.set_grips(context, path)?,
        BatchLoads::Ball(ball) => solver.set_ball(context, ball)?,
    }
    Ok(solver)
}

/// The GPU backend steps like the CPU one: the settings of `sim` (drag, melting, plasticity) go to
/// the device with each batch of steps.
impl Accelerator for GpuBackend {
    fn step(
        &mut self,
        sim: &Simulation,
        loads: &BatchLoads,
        dt: f64,
        steps: u32,
    ) -> Result<bool, String> {
        let refused = |refusal: GpuError| format!("{refusal}; continuing on the CPU");
        if self.stale {
            let solver = gpu_solver(&self.context, sim, loads).map_err(refused)?;
            self.solver = solver;
            self.drawing = None;
            self.stale = false;
            self.updates_at_upload = sim.reference_updates;
        }
        self.solver.set_drag(sim.drag);
        self.solver.set_melting(sim.melting);
        self.solver.set_plasticity(sim.plasticity);
        if let BatchLoads::Grips { scales, .. } = loads {
            self.solver
                .set_grip_scales(&self.context, scales)
                .map_err(refused)?;
        }
        // False while the device is still busy with earlier steps: simulated time waits for it.
        Ok(self.solver.step(&self.context, dt, steps))
    }

    fn mark_stale(&mut self) {
        self.stale = true;
    }

    fn take_state_anew(&mut self) {
        self.stale = true;
        self.generation += 1;
    }

    fn last_solve(&self) -> Option<SolveStats> {
        self.last_solve
    }
}

/// Step `demo` on `context`'s device from its current state (a fracture scene with its grips or
/// ball). Refused (with the reason) for what the GPU backend does not mirror.
pub fn attach(demo: &mut GpuDemo, context: Rc<GpuContext>) -> Result<(), String> {
    let solver =
        gpu_solver(&context, &demo.sim, &demo.batch_loads(0.0, 0)).map_err(|e| e.to_string())?;
    demo.accelerator = Some(GpuBackend {
        context,
        solver,
        stale: false,
        reading: false,
        last_solve: None,
        drawing: None,
        updates_at_upload: demo.sim.reference_updates,
        generation: 0,
        reading_generation: 0,
    });
    Ok(())
}

/// The GPU solver's phyxels and surfaces for a view on `view_context`'s device, coloured by
/// `colour_by` as [`phyxel_app::Demo::frame_data`] colours them — None unless the solver steps on
/// that very device, and in a fracture scene (its surface is split along the cracks the page's copy
/// holds, its colours are the pieces and stresses the page computes).
pub fn drawing<'a>(
    demo: &'a mut GpuDemo,
    view_context: &Rc<GpuContext>,
    colour_by: &str,
) -> Option<SolverDrawing<'a>> {
    let full = demo.full_plastic_strain();
    let colouring = match colour_by {
        "object" => InstanceColouring::Object,
        "temperature" => InstanceColouring::Temperature {
            ambient: AMBIENT_TEMPERATURE,
            melting_point: MELTING_POINT,
        },
        "plastic" => match demo.sim.elasticity {
            Elasticity::Mkn04 => InstanceColouring::PlasticStrain { full },
            Elasticity::CorotatedLinear => InstanceColouring::PlasticDeformation { full },
        },
        "speed" => InstanceColouring::Speed,
        _ => return None,
    };
    if demo.is_fracture_scene() || !Rc::ptr_eq(&demo.accelerator.as_ref()?.context, view_context) {
        return None;
    }
    let object_of = demo.object_of().to_vec();
    let gpu = demo.accelerator.as_mut()?;
    if gpu.drawing.is_none() {
        let instances = PhyxelInstances::new(&gpu.context, &gpu.solver, &object_of);
        let gpu_surfaces =
            GpuSurfaces::new(&gpu.context, &gpu.solver, &instances, &demo.sim.surfaces);
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

/// The state on the GPU, read back — unless a read-back is already under way.
pub fn read_state(
    demo: &mut GpuDemo,
) -> Option<impl std::future::Future<Output = Result<GpuState, GpuError>> + 'static> {
    let gpu = demo.accelerator.as_mut()?;
    if gpu.reading {
        return None;
    }
    gpu.reading = true;
    gpu.reading_generation = gpu.generation;
    let read = gpu.solver.read_state(&gpu.context);
    demo.reading_accelerator_state();
    Some(read)
}

/// Take a read-back into the simulation. A blow-up keeps the last state read (finite) and returns to
/// the CPU with the explanation; a GPU failure (a lost device, say) returns to the CPU from the last
/// state read. Reference updates the device made move the page's rest shape too (and the surfaces
/// drawn from the solver are bound again); one the device could not make (the deformed shape's
/// neighbour lists outgrew its buffers) is made on the CPU and uploaded, with buffers sized for it.
pub fn apply_state(demo: &mut GpuDemo, state: Result<GpuState, GpuError>) -> Result<(), String> {
    let Some(gpu) = demo.accelerator.as_mut() else {
        return Ok(());
    };
    gpu.reading = false;
    if gpu.reading_generation != gpu.generation {
        // The demo's state changed here since this read-back was asked for: it is older.
        return Ok(());
    }
    let state = match state {
        Ok(state) => state,
        Err(failure) => {
            demo.use_cpu();
            return Err(format!(
                "the GPU stopped ({failure}); continuing on the CPU from the last state read back"
            ));
        }
    };
    if state.blown_up {
        let bound = demo.sim.cfl_time_step();
        demo.stop_accelerator(format!(
            "the simulation became unstable on the GPU and was stopped at its last state read back \
             (the stability bound's estimate h·√(ρ/E) = {bound:.2e} s; the discretization's own bound lies below it); lower Δt, use more substeps, or soften \
             the material — continuing on the CPU"
        ));
        return Ok(());
    }
    gpu.last_solve = state.last_solve;
    let sim = &mut demo.sim;
    let device_updates = gpu.updates_at_upload + state.reference_updates as usize;
    if device_updates != sim.reference_updates {
        sim.adopt_reference(state.reference, state.displacement.clone(), device_updates);
        // The surfaces drawn from the solver's buffers take the new binding.
        gpu.drawing = None;
    }
    let body = &mut sim.body;
    body.displacement = state.displacement;
    body.velocity = state.velocity;
    body.temperature = state.temperature;
    body.plastic_strain = state.plastic_strain;
    if let Some(plastic) = state.plastic_deformation {
        body.plastic_deformation = plastic;
    }
    if let (Some(plastic), Integration::Quadrature(q)) =
        (state.point_plastic_deformation, &mut body.integration)
    {
        q.plastic_deformation = plastic;
    }
    if let Some(melting) = sim.melting {
        body.stiffness_scale = melting.stiffness_scales(&body.temperature);
    }
    if state.neighbour_overflow.is_some() {
        sim.update_reference();
        gpu.stale = true;
    }
    let change = demo.took_accelerator_state(state.ball);
    cut_on_device(demo, change).map_err(|failure| {
        demo.use_cpu();
        format!("the GPU could not take the cracks ({failure}); continuing on the CPU")
    })
}

/// The cracks the demo cut after a batch, written to the device for the next ([`CutChange`]).
fn cut_on_device(demo: &mut GpuDemo, change: CutChange) -> Result<(), GpuError> {
    let Some(gpu) = demo.accelerator.as_mut() else {
        return Ok(());
    };
    let sim = &demo.sim;
    if change.resampled {
        // New phyxels: the body is uploaded anew before the next batch, cuts and all.
        gpu.stale = true;
        gpu.drawing = None;
    } else if change.refitted {
        gpu.solver.set_cut_weights(&gpu.context, sim)?;
        if sim.plasticity.is_some() {
            gpu.solver.write_plastic_strain(&gpu.context, &sim.body)?;
        }
    } else if change.relaxed {
        gpu.solver.write_rest_corrections(&gpu.context, &sim.body)?;
    }
    Ok(())
}
