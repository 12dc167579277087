//! The GPU twin of `phyxel::meshless::simulation::Simulation`, the driver of the stages: [`GpuSolver`]
//! uploads the body ([`crate::body`]), sets the step parameters, and queues steps — the explicit
//! passes ([`crate::explicit`]) or the implicit step ([`crate::implicit`]), the heat passes
//! ([`crate::heat`]), the plastic flow and the reference update ([`crate::reference_update`]) — in one
//! submission per call, without waiting for the device; it times each pass of an explicit step
//! ([`GpuSolver::profile_step`]) and reads the state back ([`crate::state`]).

use crate::body::BodyBuffers;
use crate::context::{GpuContext, GpuError};
use crate::edge_windows::EdgeWindowPlan;
use crate::explicit::ExplicitStep;
use crate::heat::heat_passes;
use crate::implicit::ImplicitStep;
use crate::layout::{vec3, Params};
use crate::loading::{BallPasses, GripPasses, Loading};
use crate::passes::{profile_passes, Pass, PassTimes};
use crate::reference_update::ReferenceUpdate;
use crate::state::{read_neighbourhoods, read_state, GpuState};
use phyxel::meshless::fracture::scenes::GripPath;
use phyxel::meshless::fracture::slab::Ball;
use phyxel::meshless::implicit::OBSTACLE_MARGIN;
use phyxel::meshless::melting::Melting;
use phyxel::meshless::neighbours::Neighbourhoods;
use phyxel::meshless::plasticity::Plasticity;
use phyxel::meshless::simulation::{Drag, Simulation, CONTACT_DISTANCE, MAX_TRAVEL_PER_STEP};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The step a solver runs.
enum Step {
    /// MKN04's explicit step, with the reference update (made at the first plastic step).
    Explicit {
        passes: Box<ExplicitStep>,
        reference_update: Option<Box<ReferenceUpdate>>,
    },
    /// The corotated implicit step (no reference update).
    Implicit(Box<ImplicitStep>),
}

/// The body on the GPU and the passes that step it.
pub struct GpuSolver {
    body: BodyBuffers,
    params: Params,
    step: Step,
    /// Pass 6, run after either step when the material melts.
    heat: [Pass; 2],
    /// Edges a reference update may make (room for the neighbourhoods of a compressed rest shape).
    edge_capacity: u32,
    /// `Simulation::reference_update_strain`.
    reference_update_strain: f64,
    /// Passes that follow the rest shape at each update (the drawn surfaces').
    rest_shape_followers: Vec<Pass>,
    /// Submissions of steps the device has not finished yet.
    in_flight: Arc<AtomicUsize>,
    /// A fracture scene's grips or ball ([`GpuSolver::set_grips`], [`GpuSolver::set_ball`]).
    loading: Option<Loading>,
}

/// [`GpuSolver::step`] queues nothing while this many submissions are unfinished: a page that asks for
/// steps faster than the device does them would otherwise grow the queue without bound, and a read-back
/// queued behind it would never come back.
pub const MAX_SUBMISSIONS_IN_FLIGHT: usize = 2;

impl GpuSolver {
    /// Upload `sim` (its body, neighbourhoods, MLS weights, material and environment). Refuses what
    /// the GPU backend does not mirror yet, and bodies whose buffers exceed the device's limits.
    pub fn new(gpu: &GpuContext, sim: &Simulation) -> Result<Self, GpuError> {
        Self::with_edge_windows(gpu, sim, gpu.limits.max_storage_buffer_binding_size)
    }

    /// [`GpuSolver::new`] with the per-edge buffers — the neighbourhoods' rows and reverse lists, and
    /// a quadrature's — bound in windows of at most `window_bytes` (at most the device's binding
    /// limit): for tests and benchmarks of the windowed passes on small bodies.
    pub fn with_edge_windows(
        gpu: &GpuContext,
        sim: &Simulation,
        window_bytes: u64,
    ) -> Result<Self, GpuError> {
        let body = BodyBuffers::upload(gpu, sim, window_bytes)?;
        let device = &gpu.device;
        let step = match sim.corotated_implicit() {
            Some(settings) => Step::Implicit(Box::new(ImplicitStep::new(
                gpu, &body, &sim.body, settings,
            )?)),
            None => Step::Explicit {
                passes: Box::new(ExplicitStep::new(device, &body)),
                reference_update: None,
            },
        };
        let (lambda, mu) = sim.body.material.lame();
        let environment = &sim.environment;
        let mut params = Params {
            phyxels: body.phyxels,
            points: match &step {
                Step::Implicit(implicit) => implicit.points(),
                Step::Explicit { .. } => 0,
            },
            colliders: body.collider_count,
            gravity: vec3(environment.gravity),
            lambda: lambda as f32,
            mu: mu as f32,
            volume_stiffness: sim.body.material.volume_stiffness as f32,
            damping: environment.damping as f32,
            friction: environment.friction as f32,
            ..Params::default()
        };
        if let Step::Implicit(implicit) = &step {
            let settings = implicit.settings;
            params.mass_damping = (environment.damping + settings.rayleigh.mass) as f32;
            params.rayleigh_stiffness = settings.rayleigh.stiffness.max(0.0) as f32;
            params.cg_tolerance = settings.tolerance as f32;
            params.contact_distance = (CONTACT_DISTANCE * body.min_support_radius) as f32;
            params.contact_margin = (OBSTACLE_MARGIN * body.min_support_radius) as f32;
            let held = |i: usize| sim.fixed.get(i).copied().unwrap_or(false);
            let squares: f64 = (0..sim.body.len())
                .filter(|&i| !held(i))
                .map(|i| sim.body.mass[i] * sim.body.mass[i])
                .sum();
            params.weight_norm = (environment.gravity.length() * squares.sqrt()) as f32;
        }
        let mut solver = Self {
            heat: heat_passes(device, &body),
            edge_capacity: body.edges.plan.capacity,
            body,
            params,
            step,
            // The cracks live in the rest shape: a body that can crack never updates it (as the
            // CPU's `Simulation::flow_additive` skips the update with fracture on).
            reference_update_strain: if sim.fracture.is_some() {
                f64::INFINITY
            } else {
                sim.reference_update_strain
            },
            rest_shape_followers: Vec::new(),
            in_flight: Arc::new(AtomicUsize::new(0)),
            loading: None,
        };
        solver.set_drag(sim.drag);
        solver.set_melting(sim.melting);
        solver.set_plasticity(sim.plasticity);
        Ok(solver)
    }

    /// Hold the neighbour lists of reference updates on the device to at most `edges` edges (within
    /// the buffers' room, which is twice the upload's): an update needing more is not made, and
    /// [`GpuState::neighbour_overflow`] says how many it needed — the host makes it on the CPU then.
    pub fn limit_edge_capacity(&mut self, edges: u32) {
        self.edge_capacity = self.edge_capacity.min(edges);
        // Made again, with the new limit, at the next plastic step.
        if let Step::Explicit {
            reference_update, ..
        } = &mut self.step
        {
            *reference_update = None;
        }
    }

    /// How the rows and reverse lists are bound: one window, or several (each pass over them then
    /// runs once per window).
    pub fn edge_windows(&self) -> EdgeWindowPlan {
        self.body.edges.plan
    }

    /// How a body integrated by background quadrature has its shape-function rows and reverse lists
    /// (16 bytes per edge) bound: in one window, or several (each point pass then runs once per window
    /// of the rows, each particle pass once per window of the reverse lists). None without quadrature.
    pub fn quadrature_edge_windows(&self) -> Option<EdgeWindowPlan> {
        match &self.step {
            Step::Implicit(implicit) => implicit.quadrature_edge_windows(),
            Step::Explicit { .. } => None,
        }
    }

    /// Run `passes` at each reference update on the device, before the rest shape moves (the drawn
    /// surfaces take their deformed shape as their new rest shape there).
    pub(crate) fn follow_rest_shape(&mut self, gpu: &GpuContext, passes: Vec<Pass>) {
        if let Step::Explicit {
            reference_update: Some(update),
            ..
        } = &mut self.step
        {
            update.set_followers(&gpu.queue, &passes);
        }
        self.rest_shape_followers = passes;
    }

    /// The buffers the 3D view draws from (crate::instances, crate::surface).
    pub(crate) fn body(&self) -> &BodyBuffers {
        &self.body
    }

    /// The implicit step's frames (rotation, F_p⁻¹, preconditioner block per phyxel), if it runs.
    pub(crate) fn implicit_frames(&self) -> Option<&wgpu::Buffer> {
        match &self.step {
            Step::Implicit(implicit) => Some(&implicit.frames),
            Step::Explicit { .. } => None,
        }
    }

    /// Queue at most `iterations` CG iterations per solve of an implicit step until the next read-back
    /// adjusts the budget (see `implicit.rs`; it starts at the iteration limit, which suits a single
    /// read-back after many steps). A page that reads back a few times per second starts lower, so
    /// that its first steps do not queue the whole limit's worth of dispatches.
    pub fn set_iteration_budget(&mut self, iterations: usize) {
        if let Step::Implicit(implicit) = &self.step {
            let limit = implicit.settings.max_iterations;
            implicit
                .budget
                .store(iterations.clamp(1, limit), Ordering::Relaxed);
        }
    }

    /// Mirror `sim`'s cracks for the next steps: its edge factors (`Fracture::weight_factors`), rest
    /// corrections and refit MLS frames, written where the passes read them (the host's crack
    /// bookkeeping, on the CPU, calls it after the weights changed). Refused for a simulation without
    /// fracture or a solver uploaded without it (the upload of a `sim` with fracture takes its cuts
    /// as they are then).
    pub fn set_cut_weights(&mut self, gpu: &GpuContext, sim: &Simulation) -> Result<(), GpuError> {
        let Some(fracture) = &sim.fracture else {
            return Err(GpuError(
                "this simulation has no fracture: nothing is cut".into(),
            ));
        };
        let factors = fracture.weight_factors(&sim.body);
        self.body.write_cut_weights(&gpu.queue, &sim.body, &factors)
    }

    /// Hold the phyxels of `path` at u_i = s_k a_i before step k of each batch (`Grips::step`,
    /// `PullingGrips::step`), s_k from [`GpuSolver::set_grip_scales`]; replaces a ball. Refused for a
    /// path that does not fit the body.
    pub fn set_grips(&mut self, gpu: &GpuContext, path: &GripPath) -> Result<(), GpuError> {
        let grips = GripPasses::new(&gpu.device, &self.body, path)?;
        self.loading = Some(Loading::Grips(grips));
        Ok(())
    }

    /// The grips' law s_k at the end of each step of the next batch (at most
    /// [`crate::MAX_GRIP_SCALES`]; past the last value the grips hold still). Refused without grips.
    pub fn set_grip_scales(&mut self, gpu: &GpuContext, scales: &[f64]) -> Result<(), GpuError> {
        match &self.loading {
            Some(Loading::Grips(grips)) => {
                grips.write_scales(&gpu.queue, scales);
                Ok(())
            }
            _ => Err(GpuError("this solver holds no grips".into())),
        }
    }

    /// Strike the body with `ball` after each step (`Ball::step`): the ball's state lives on the
    /// device from now on and comes back with [`GpuSolver::read_state`]; replaces grips. Refused for a
    /// ball that is not finite or has no mass or size.
    pub fn set_ball(&mut self, gpu: &GpuContext, ball: &Ball) -> Result<(), GpuError> {
        let passes = BallPasses::new(&gpu.device, &self.body, ball)?;
        self.loading = Some(Loading::Ball(passes));
        Ok(())
    }

    /// Write `body`'s rest corrections G_i to the device (a crack's bookkeeping on the host relaxes
    /// them towards I while no weight changes). Refused for a solver uploaded without fracture, or
    /// another body's.
    pub fn write_rest_corrections(
        &self,
        gpu: &GpuContext,
        body: &phyxel::meshless::body::Body,
    ) -> Result<(), GpuError> {
        self.body.write_rest_corrections(&gpu.queue, body)
    }

    /// Write `body`'s plastic strains to the device (a crack's bookkeeping on the host drops the
    /// plastic strain of a phyxel it releases). Refused for another body's.
    pub fn write_plastic_strain(
        &self,
        gpu: &GpuContext,
        body: &phyxel::meshless::body::Body,
    ) -> Result<(), GpuError> {
        self.body.write_plastic_strain(&gpu.queue, body)
    }

    /// Pull a phyxel with the drag spring, or (None) let go.
    pub fn set_drag(&mut self, drag: Option<Drag>) {
        let drag = drag.filter(|d| d.phyxel < self.body.phyxels as usize);
        self.params.dragged = drag.map_or(0, |d| d.phyxel as u32 + 1);
        if let Some(d) = drag {
            self.params.drag_target = vec3(d.target);
            self.params.drag_stiffness = d.stiffness as f32;
            self.params.drag_max_stretch = d.max_stretch.min(f32::MAX as f64) as f32;
        }
    }

    /// Plastic flow with these parameters (at the phyxels, or at the integration points of a body with
    /// background quadrature), or (None) a purely elastic material.
    pub fn set_plasticity(&mut self, plasticity: Option<Plasticity>) {
        let p = plasticity.unwrap_or(Plasticity {
            yield_strain: 0.0,
            creep: 0.0,
            max_strain: 0.0,
        });
        self.params.yield_strain = p.yield_strain as f32;
        self.params.creep = p.creep as f32;
        self.params.max_strain = p.max_strain as f32;
        self.params.plastic = u32::from(plasticity.is_some());
    }

    /// Heat and soften (`Melting`; a body with background quadrature softens its integration points
    /// from its phyxels), or (None) keep temperatures and stiffness as they are.
    pub fn set_melting(&mut self, melting: Option<Melting>) {
        self.params.melts = u32::from(melting.is_some());
        if let Some(m) = melting {
            let source = m.heat_source;
            self.params.heat_source = source.map_or([0.0; 3], |s| vec3(s.position));
            self.params.heat_rate = source.map_or(0.0, |s| s.rate as f32);
            self.params.heat_radius = source.map_or(1.0, |s| s.radius as f32);
            self.params.diffusivity = m.diffusivity as f32;
            self.params.melting_point = m.melting_point as f32;
            self.params.molten_stiffness = m.molten_stiffness as f32;
        }
    }

    fn melts(&self) -> bool {
        self.params.melts == 1
    }

    fn plastic(&self) -> bool {
        self.params.plastic == 1
    }

    /// Queue `steps` steps of `dt` in one submission — unless `MAX_SUBMISSIONS_IN_FLIGHT` are still
    /// unfinished: then nothing is queued and the answer is false (the device is behind; ask again
    /// later).
    pub fn step(&mut self, gpu: &GpuContext, dt: f64, steps: u32) -> bool {
        if self.in_flight.load(Ordering::Acquire) >= MAX_SUBMISSIONS_IN_FLIGHT {
            return false;
        }
        self.write_params(gpu, dt);
        let (melts, plastic) = (self.melts(), self.plastic());
        if let Step::Explicit {
            reference_update: update @ None,
            ..
        } = &mut self.step
        {
            if plastic {
                let mut made = ReferenceUpdate::new(
                    &gpu.device,
                    &self.body,
                    self.edge_capacity,
                    self.reference_update_strain as f32,
                );
                made.set_followers(&gpu.queue, &self.rest_shape_followers);
                *update = Some(Box::new(made));
            }
        }
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("phyxel steps"),
            });
        {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("phyxel steps"),
                timestamp_writes: None,
            });
            for _ in 0..steps {
                if let Some(loading) = &self.loading {
                    loading.before_step(&mut compute);
                }
                match &self.step {
                    Step::Explicit { passes, .. } => {
                        for pass in passes.elastic() {
                            pass.dispatch(&mut compute);
                        }
                    }
                    Step::Implicit(implicit) => implicit.encode(&mut compute),
                }
                // A driver's moving obstacle (the ball) after the motion, before heat, plastic flow
                // and the host's fracture (`Simulation::step_with_contacts`).
                if let Some(loading) = &self.loading {
                    loading.after_motion(&mut compute);
                }
                if melts {
                    for pass in &self.heat {
                        pass.dispatch(&mut compute);
                    }
                    if let Step::Implicit(implicit) = &self.step {
                        implicit.encode_softening(&mut compute);
                    }
                }
                if plastic {
                    match &self.step {
                        Step::Explicit {
                            passes,
                            reference_update,
                        } => {
                            passes.plastic_flow.dispatch(&mut compute);
                            // After the plastic flow: the rest shape moves when it is due.
                            if let Some(update) = reference_update {
                                update.encode(&mut compute);
                            }
                        }
                        Step::Implicit(implicit) => implicit.encode_plastic_flow(&mut compute),
                    }
                }
            }
        }
        gpu.queue.submit([encoder.finish()]);
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let in_flight = self.in_flight.clone();
        gpu.queue.on_submitted_work_done(move || {
            in_flight.fetch_sub(1, Ordering::AcqRel);
        });
        true
    }

    /// The step parameters for steps of `dt`, uploaded.
    fn write_params(&mut self, gpu: &GpuContext, dt: f64) {
        self.params.dt = dt as f32;
        self.params.max_speed = (MAX_TRAVEL_PER_STEP * self.body.min_support_radius / dt) as f32;
        gpu.queue
            .write_buffer(&self.body.params, 0, bytemuck::bytes_of(&self.params));
    }

    /// One explicit step with every pass in a compute pass of its own, timed by timestamp queries:
    /// resolves to (entry point, GPU milliseconds) in the order the step runs them. None where the
    /// device writes no timestamps, or for the implicit step (its thousands of dispatches are timed
    /// as a whole by [`GpuSolver::step`] and a read-back).
    pub fn profile_step(
        &mut self,
        gpu: &GpuContext,
        dt: f64,
    ) -> Option<impl Future<Output = PassTimes> + 'static> {
        if !gpu.timestamps || !matches!(self.step, Step::Explicit { .. }) {
            return None;
        }
        // Written before the submission, which reads them.
        self.write_params(gpu, dt);
        let Step::Explicit { passes: step, .. } = &self.step else {
            return None;
        };
        let mut passes: Vec<&Pass> = step.elastic().to_vec();
        if self.melts() {
            passes.extend(&self.heat);
        }
        if self.plastic() {
            passes.push(&step.plastic_flow);
        }
        Some(profile_passes(gpu, &passes, "profiled step"))
    }

    /// Read the neighbourhoods back as the solver holds them now (rows, reverse lists), in the CPU's
    /// form (reverse lists of edges, owners): after reference updates on the device, they are the
    /// device's own rebuild.
    pub fn read_neighbourhoods(
        &self,
        gpu: &GpuContext,
    ) -> impl Future<Output = Result<Neighbourhoods, GpuError>> + 'static {
        read_neighbourhoods(gpu, &self.body)
    }

    /// Read the displacements, velocities, temperatures, plastic strains, the flags and the struck
    /// ball back.
    /// (The future owns what it needs — handles to the device, queue and buffers — so the solver can
    /// go on stepping while it is pending.)
    pub fn read_state(
        &self,
        gpu: &GpuContext,
    ) -> impl Future<Output = Result<GpuState, GpuError>> + 'static {
        let implicit = match &self.step {
            Step::Implicit(implicit) => Some(implicit.as_ref()),
            Step::Explicit { .. } => None,
        };
        let ball = match &self.loading {
            Some(Loading::Ball(ball)) => Some(ball.read_back()),
            _ => None,
        };
        read_state(gpu, &self.body, implicit, ball)
    }
}
