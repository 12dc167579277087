//! The GPU twin of `phyxel::meshless::simulation::Simulation`: the body's state in storage buffers and
//! one compute pipeline per solver pass.

use crate::context::{GpuContext, GpuError};
use crate::edge_windows::{EdgeWindowPlan, EdgeWindows};
use crate::implicit::{next_budget, solve_stats, ImplicitStep};
use crate::layout::{from_mat3, mat3, vec4, GpuCollider, MlsFrame, Params, PhyxelConstants};
use crate::passes::{pipeline, storage_buffer};
use crate::prefix_sum::Dispatch;
use crate::readback::read_buffer;
use crate::reference_update::{ReferenceUpdate, UpdatedBuffers};
use glam::{DMat3, DVec3};
use phyxel::integrators::Method;
use phyxel::meshless::implicit::SolveStats;
use phyxel::meshless::melting::Melting;
use phyxel::meshless::neighbours::Neighbourhoods;
use phyxel::meshless::plasticity::Plasticity;
use phyxel::meshless::simulation::{
    Drag, Elasticity, Simulation, CONTACT_DISTANCE, MAX_TRAVEL_PER_STEP,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// Phyxels per workgroup (`WORKGROUP_SIZE` in shaders/common.wgsl).
pub(crate) const WORKGROUP_SIZE: u32 = 64;

/// What the GPU holds of the simulation, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuState {
    pub displacement: Vec<DVec3>,
    pub velocity: Vec<DVec3>,
    /// Temperatures T_i (°C).
    pub temperature: Vec<f64>,
    /// Plastic strains ε_plastic,i.
    pub plastic_strain: Vec<DMat3>,
    /// The largest total strain ‖ε‖ seen by the plastic flow since the last read: above the
    /// simulation's `reference_update_strain` the rest shape is due for an update.
    pub largest_total_strain: f64,
    /// Some step moved a phyxel faster than the travel bound (explicit), turned a neighbourhood by
    /// more than `MAX_ROTATION_PER_STEP` (implicit), or produced a non-finite value.
    pub blown_up: bool,
    /// CG iterations and residual of the last implicit step (None for explicit steps).
    pub last_solve: Option<SolveStats>,
    /// The corotated model's plastic deformations F_p (implicit steps only).
    pub plastic_deformation: Option<Vec<DMat3>>,
    /// The rest shape x̄ (moved by the reference updates).
    pub reference: Vec<DVec3>,
    /// Reference updates the device has made since the upload.
    pub reference_updates: u32,
    /// A reference update was due but the deformed shape's neighbour lists would not fit the edge
    /// buffers: the edges it needed (the device kept the old rest shape).
    pub neighbour_overflow: Option<u32>,
}

/// When a pass runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Always,
    /// When the material melts.
    Melting,
    /// When the material is plastic.
    Plastic,
}

/// One compute pass: its pipeline and its bindings, one bind group per edge window it reads
/// (`EdgeWindows::bind`).
pub(crate) struct Pass {
    /// The WGSL entry point.
    name: String,
    stage: Stage,
    pipeline: wgpu::ComputePipeline,
    bindings: Vec<wgpu::BindGroup>,
}

impl Pass {
    /// The entry point `name` of the WGSL `sources` (concatenated, after edge_window.wgsl), bound to
    /// the step parameters at binding 0 and `buffers` at theirs (the per-edge ones by window).
    pub fn new(
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        edges: &EdgeWindows,
        sources: &[&str],
        name: &str,
        buffers: &[(u32, &wgpu::Buffer)],
    ) -> Self {
        let window = include_str!("../../../shaders/edge_window.wgsl");
        let separated: Vec<&str> = std::iter::once(window)
            .chain(sources.iter().copied())
            .flat_map(|s| [s, "\n"])
            .collect();
        let pipeline = pipeline(device, &separated, name);
        let mut entries = vec![(0, params)];
        entries.extend_from_slice(buffers);
        let bindings = edges.bind(device, &pipeline, &entries);
        Pass {
            name: name.to_string(),
            stage: Stage::Always,
            pipeline,
            bindings,
        }
    }

    fn at(self, stage: Stage) -> Self {
        Pass { stage, ..self }
    }

    pub fn dispatch(&self, compute: &mut wgpu::ComputePass, groups: u32) {
        compute.set_pipeline(&self.pipeline);
        for bindings in &self.bindings {
            compute.set_bind_group(0, bindings, &[]);
            compute.dispatch_workgroups(groups, 1, 1);
        }
    }
}

/// The buffers the passes share.
pub(crate) struct SolverBuffers<'a> {
    pub params: &'a wgpu::Buffer,
    pub reference: &'a wgpu::Buffer,
    pub displacement: &'a wgpu::Buffer,
    pub velocity: &'a wgpu::Buffer,
    pub forces: &'a wgpu::Buffer,
    pub start: &'a wgpu::Buffer,
    /// The rows and reverse lists (`edges.neighbour`, `edges.reverse`) and their windows.
    pub edges: &'a EdgeWindows,
    pub neighbour: &'a wgpu::Buffer,
    pub reverse_start: &'a wgpu::Buffer,
    pub reverse: &'a wgpu::Buffer,
    pub mls_frame: &'a wgpu::Buffer,
    pub phyxel: &'a wgpu::Buffer,
    pub force_matrix: &'a wgpu::Buffer,
    pub colliders: &'a wgpu::Buffer,
    pub status: &'a wgpu::Buffer,
}

/// Pass 4, the force gather: `forces` from the force matrices.
pub(crate) fn gather_forces_pass(device: &wgpu::Device, b: &SolverBuffers) -> Pass {
    Pass::new(
        device,
        b.params,
        b.edges,
        &[
            include_str!("../../../shaders/common.wgsl"),
            include_str!("../../../shaders/mls_weight.wgsl"),
            include_str!("../../../shaders/gather_forces.wgsl"),
        ],
        "gather_forces",
        &[
            (1, b.force_matrix),
            (2, b.start),
            (3, b.mls_frame),
            (4, b.reverse_start),
            (5, b.reverse),
            (7, b.forces),
            (8, b.neighbour),
        ],
    )
}

/// The body on the GPU.
/// `bytes` as B, KiB, MiB or GiB, one decimal.
fn bytes_in_words(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Bytes of the largest per-phyxel buffer the solver binds whole for `phyxels` phyxels: the MLS
/// frames (64 bytes per phyxel; the force matrices and plastic strains hold a mat3x3, 48), and with the
/// implicit step its work buffer and frames. A body needing more than one binding holds is refused
/// with this number. (The per-edge buffers — rows and reverse lists, a u32 per neighbour pair; the MLS
/// weights d_ij are formed from the frames where they are used, not stored per edge — are bound in
/// windows instead: [`EdgeWindowPlan`].)
pub fn largest_binding_bytes(phyxels: usize, implicit: bool) -> u64 {
    let explicit = (phyxels * size_of::<MlsFrame>()) as u64;
    if implicit {
        explicit.max(crate::implicit::largest_buffer_bytes(phyxels))
    } else {
        explicit
    }
}

/// The solver's per-phyxel state on the device (see [`GpuSolver::state_buffers`]).
pub(crate) struct StateBuffers<'a> {
    pub phyxels: u32,
    pub reference: &'a wgpu::Buffer,
    pub start: &'a wgpu::Buffer,
    /// The rows (`edges.neighbour`) and their windows.
    pub edges: &'a EdgeWindows,
    pub mls_frame: &'a wgpu::Buffer,
    pub displacement: &'a wgpu::Buffer,
    pub velocity: &'a wgpu::Buffer,
    pub temperature: &'a wgpu::Buffer,
    /// ε_p of the MKN04 model (mat3x3 per phyxel).
    pub plastic_strain: &'a wgpu::Buffer,
    /// The implicit step's frames (rotation, F_p⁻¹, preconditioner block per phyxel), if it runs.
    pub frames: Option<&'a wgpu::Buffer>,
}

pub struct GpuSolver {
    phyxels: u32,
    params: Params,
    params_buffer: wgpu::Buffer,
    /// x̄_i with the support radius in w.
    reference: wgpu::Buffer,
    /// The neighbourhoods (rows `start`, columns `neighbour`), and per phyxel the MLS frame (A_i⁻¹,
    /// x̄_i, h_i) the passes form the weights d_ij from (shaders/mls_weight.wgsl).
    start: wgpu::Buffer,
    /// The rows' columns and the reverse lists, bound in windows.
    edge_windows: EdgeWindows,
    mls_frame: wgpu::Buffer,
    displacement: wgpu::Buffer,
    velocity: wgpu::Buffer,
    status: wgpu::Buffer,
    temperature: wgpu::Buffer,
    plastic_strain: wgpu::Buffer,
    /// What the reference update rewrites besides: the reverse lists' starts, the per-phyxel
    /// constants (volumes), and the masses it weighs densities with.
    reverse_start: wgpu::Buffer,
    phyxel: wgpu::Buffer,
    mass: wgpu::Buffer,
    /// Edges the per-edge buffers hold (room for the neighbourhoods of a compressed rest shape).
    edge_capacity: u32,
    /// The hash grid's cell edge: the largest support radius (m).
    max_support_radius: f64,
    /// `Simulation::reference_update_strain`.
    reference_update_strain: f64,
    /// The reference update's passes, made at the first plastic step.
    reference_update: Option<ReferenceUpdate>,
    /// Passes that follow the rest shape at each update (the drawn surfaces').
    rest_shape_followers: Vec<Dispatch>,
    /// phyxel_stresses, gather_forces, integrate, then (when the material melts) heat and
    /// commit_temperature, then (when it is plastic) plastic_flow: in the order a step runs them.
    passes: Vec<Pass>,
    /// The corotated implicit step instead of phyxel_stresses, gather_forces and integrate.
    implicit: Option<ImplicitStep>,
    /// Smallest support radius (m): the travel bound is MAX_TRAVEL_PER_STEP · h / Δt.
    min_support_radius: f64,
    /// Submissions of steps the device has not finished yet.
    in_flight: Arc<AtomicUsize>,
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

    /// [`GpuSolver::new`] with the per-edge buffers bound in windows of at most `window_bytes` (at
    /// most the device's binding limit): for tests and benchmarks of the windowed passes on small
    /// bodies.
    pub fn with_edge_windows(
        gpu: &GpuContext,
        sim: &Simulation,
        window_bytes: u64,
    ) -> Result<Self, GpuError> {
        let implicit = sim.corotated_implicit();
        if implicit.is_none() && sim.integrator() != Method::SymplecticEuler {
            return Err(GpuError(format!(
                "the GPU backend integrates with symplectic Euler or corotated implicit Euler only (not {})",
                sim.integrator().name()
            )));
        }
        if implicit.is_none() && sim.elasticity != Elasticity::Mkn04 {
            return Err(GpuError(
                "the GPU backend steps the corotated model implicitly only (explicit steps use MKN04's)"
                    .into(),
            ));
        }
        if implicit.is_none() && sim.fixed.iter().any(|&fixed| fixed) {
            return Err(GpuError(
                "the GPU backend holds fixed phyxels in implicit steps only".into(),
            ));
        }
        let body = &sim.body;
        let hoods = &body.neighbours;
        let largest = largest_binding_bytes(body.len(), implicit.is_some());
        let limits = &gpu.limits;
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if largest > binding {
            return Err(GpuError(format!(
                "{} phyxels need a {} buffer; this GPU binds at most {}: lower the resolution",
                body.len(),
                bytes_in_words(largest),
                bytes_in_words(binding)
            )));
        }
        // Per-edge buffers hold up to twice the edges (within the largest buffer): room for the rows
        // of a rest shape that a reference update finds compressed. (The implicit step has no
        // reference update.) They are bound in windows where they exceed one binding.
        let edges = hoods.neighbour.len();
        let largest_edges = (limits.max_buffer_size / 4).min(u64::from(u32::MAX)) as usize;
        if edges > largest_edges {
            return Err(GpuError(format!(
                "{} phyxels have {edges} neighbour pairs, which need a {} buffer; this GPU's \
                 largest buffer is {}: lower the resolution",
                body.len(),
                bytes_in_words(edges as u64 * 4),
                bytes_in_words(limits.max_buffer_size)
            )));
        }
        let edge_capacity = if implicit.is_some() {
            edges
        } else {
            (2 * edges).min(largest_edges).max(edges)
        };
        // The windows overlap by as many edges as the body has phyxels: no row or reverse list, of
        // this rest shape or one a reference update makes, can be longer. (With the device's own
        // binding limit that is at most a sixteenth of a window: the MLS frames, 64 B per phyxel, must
        // fit one binding too.)
        let plan = EdgeWindowPlan::new(
            edge_capacity as u32,
            window_bytes.min(binding),
            limits.min_storage_buffer_offset_alignment,
            body.len() as u32,
        )
        .map_err(GpuError)?;
        let device = &gpu.device;
        let storage = |label: &str, bytes: &[u8]| storage_buffer(device, label, bytes);
        let vectors = |v: &[DVec3]| -> Vec<[f32; 4]> { v.iter().map(|x| vec4(*x)).collect() };
        // Reference positions with the support radius in w (the heat pass weighs neighbours with it).
        let reference_and_radius: Vec<[f32; 4]> = body
            .reference
            .iter()
            .zip(&body.support_radius)
            .map(|(x, h)| [x.x as f32, x.y as f32, x.z as f32, *h as f32])
            .collect();
        let reference = storage("reference", bytemuck::cast_slice(&reference_and_radius));
        let displacement = storage(
            "displacement",
            bytemuck::cast_slice(&vectors(&body.displacement)),
        );
        let velocity = storage("velocity", bytemuck::cast_slice(&vectors(&body.velocity)));
        let forces = storage("forces", &vec![0u8; body.len() * 16]);
        let start = storage("start", bytemuck::cast_slice(&hoods.start));
        let reverse_start = storage("reverse start", bytemuck::cast_slice(&hoods.reverse_start));
        // The device's reverse lists name the owners i of the edges (i → k) the CPU's name.
        let reverse_owners: Vec<u32> = hoods
            .reverse
            .iter()
            .map(|&e| hoods.owner[e as usize])
            .collect();
        let edge_windows = EdgeWindows::new(device, plan, &hoods.neighbour, &reverse_owners);
        let (neighbour, reverse) = (edge_windows.neighbour.clone(), edge_windows.reverse.clone());
        let frames: Vec<MlsFrame> = (0..body.len())
            .map(|i| {
                MlsFrame::new(
                    body.mls.moment_inverse[i],
                    body.reference[i],
                    body.support_radius[i],
                )
            })
            .collect();
        let mls_frame = storage("MLS frames", bytemuck::cast_slice(&frames));
        let masses: Vec<f32> = body.mass.iter().map(|m| *m as f32).collect();
        let mass = storage("mass", bytemuck::cast_slice(&masses));
        let constants: Vec<PhyxelConstants> = (0..body.len())
            .map(|i| PhyxelConstants {
                mass: body.mass[i] as f32,
                volume: body.volume[i] as f32,
                stiffness_scale: body.stiffness_scale[i] as f32,
                fixed: f32::from(u8::from(sim.fixed.get(i).copied().unwrap_or(false))),
            })
            .collect();
        let phyxel = storage("phyxel constants", bytemuck::cast_slice(&constants));
        let plastic: Vec<[f32; 12]> = body.plastic_strain.iter().map(|m| mat3(*m)).collect();
        let plastic_strain = storage("plastic strain", bytemuck::cast_slice(&plastic));
        let force_matrix = storage("force matrix", &vec![0u8; body.len() * 48]);
        let colliders: Vec<GpuCollider> = sim
            .environment
            .colliders
            .iter()
            .map(GpuCollider::from)
            .collect();
        // An empty list still binds one (unused) collider: a binding is at least one element long.
        let padded = if colliders.is_empty() {
            vec![GpuCollider::default()]
        } else {
            colliders.clone()
        };
        let collider_buffer = storage("colliders", bytemuck::cast_slice(&padded));
        // [0] blown up, [1] largest ‖ε‖ so far, [2] … in this step, [3] reference updates, [4] edges
        // an update needed that did not fit (shaders/reference_update.wgsl).
        let status = storage("status", &[0u8; 32]);
        let temperatures: Vec<f32> = body.temperature.iter().map(|t| *t as f32).collect();
        let temperature = storage("temperature", bytemuck::cast_slice(&temperatures));
        let temperature_next = storage("next temperature", bytemuck::cast_slice(&temperatures));

        let (lambda, mu) = body.material.lame();
        let environment = &sim.environment;
        let params = Params {
            counts: [body.len() as u32, colliders.len() as u32, 0, 0],
            gravity_dt: [
                environment.gravity.x as f32,
                environment.gravity.y as f32,
                environment.gravity.z as f32,
                0.0,
            ],
            material: [
                lambda as f32,
                mu as f32,
                body.material.volume_stiffness as f32,
                environment.damping as f32,
            ],
            contact: [environment.friction as f32, 0.0, 0.0, 0.0],
            ..Params::default()
        };
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let common = include_str!("../../../shaders/common.wgsl");
        // phyxel_stresses and plastic_flow also share the MLS gradient and the Green strain.
        let mls_weight = include_str!("../../../shaders/mls_weight.wgsl");
        let mls = include_str!("../../../shaders/mls.wgsl");
        let collision = include_str!("../../../shaders/collision.wgsl");
        let pass = |stage: Stage, name: &str, source: &str, buffers: &[(u32, &wgpu::Buffer)]| {
            let sources: &[&str] = match name {
                "phyxel_stresses" | "plastic_flow" => &[common, mls_weight, mls, source],
                "gather_forces" => &[common, mls_weight, source],
                "integrate" => &[common, collision, source],
                _ => &[common, source],
            };
            Pass::new(
                device,
                &params_buffer,
                &edge_windows,
                sources,
                name,
                buffers,
            )
            .at(stage)
        };
        let heat = include_str!("../../../shaders/heat.wgsl");
        let passes = vec![
            pass(
                Stage::Always,
                "phyxel_stresses",
                include_str!("../../../shaders/phyxel_stresses.wgsl"),
                &[
                    (1, &displacement),
                    (2, &start),
                    (3, &neighbour),
                    (4, &mls_frame),
                    (5, &phyxel),
                    (6, &plastic_strain),
                    (7, &force_matrix),
                ],
            ),
            pass(
                Stage::Always,
                "gather_forces",
                include_str!("../../../shaders/gather_forces.wgsl"),
                &[
                    (1, &force_matrix),
                    (2, &start),
                    (3, &mls_frame),
                    (4, &reverse_start),
                    (5, &reverse),
                    (7, &forces),
                    (8, &neighbour),
                ],
            ),
            pass(
                Stage::Always,
                "integrate",
                include_str!("../../../shaders/integrate.wgsl"),
                &[
                    (1, &reference),
                    (2, &displacement),
                    (3, &velocity),
                    (4, &forces),
                    (5, &phyxel),
                    (6, &collider_buffer),
                    (7, &status),
                ],
            ),
            pass(
                Stage::Melting,
                "heat",
                heat,
                &[
                    (1, &reference),
                    (2, &displacement),
                    (3, &start),
                    (4, &neighbour),
                    (5, &temperature),
                    (6, &temperature_next),
                    (7, &phyxel),
                ],
            ),
            pass(
                Stage::Melting,
                "commit_temperature",
                heat,
                &[(5, &temperature), (6, &temperature_next)],
            ),
            pass(
                Stage::Plastic,
                "plastic_flow",
                include_str!("../../../shaders/plastic_flow.wgsl"),
                &[
                    (1, &displacement),
                    (2, &start),
                    (3, &neighbour),
                    (4, &mls_frame),
                    (5, &phyxel),
                    (6, &plastic_strain),
                    (7, &status),
                ],
            ),
        ];
        let min_support_radius = body
            .support_radius
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        let shared = SolverBuffers {
            params: &params_buffer,
            reference: &reference,
            displacement: &displacement,
            velocity: &velocity,
            forces: &forces,
            start: &start,
            edges: &edge_windows,
            neighbour: &neighbour,
            reverse_start: &reverse_start,
            reverse: &reverse,
            mls_frame: &mls_frame,
            phyxel: &phyxel,
            force_matrix: &force_matrix,
            colliders: &collider_buffer,
            status: &status,
        };
        let implicit = implicit.map(|settings| ImplicitStep::new(device, &shared, body, settings));
        let mut solver = Self {
            phyxels: body.len() as u32,
            params,
            params_buffer,
            reference: reference.clone(),
            start: start.clone(),
            edge_windows,
            mls_frame: mls_frame.clone(),
            displacement,
            velocity,
            status,
            temperature,
            plastic_strain,
            reverse_start,
            phyxel,
            mass,
            edge_capacity: edge_capacity as u32,
            max_support_radius: body.support_radius.iter().cloned().fold(0.0, f64::max),
            reference_update_strain: sim.reference_update_strain,
            reference_update: None,
            rest_shape_followers: Vec::new(),
            passes,
            implicit,
            min_support_radius,
            in_flight: Arc::new(AtomicUsize::new(0)),
        };
        let touching = CONTACT_DISTANCE * min_support_radius;
        if let Some(settings) = solver.implicit.as_ref().map(|s| s.settings) {
            solver.params.implicit = [
                (sim.environment.damping + settings.rayleigh.mass) as f32,
                settings.rayleigh.stiffness.max(0.0) as f32,
                settings.tolerance as f32,
                touching as f32,
            ];
        }
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
        self.reference_update = None;
    }

    /// How the rows and reverse lists are bound: one window, or several (each pass over them then
    /// runs once per window).
    pub fn edge_windows(&self) -> EdgeWindowPlan {
        self.edge_windows.plan
    }

    /// Run `passes` at each reference update on the device, before the rest shape moves (the drawn
    /// surfaces take their deformed shape as their new rest shape there).
    pub(crate) fn follow_rest_shape(&mut self, gpu: &GpuContext, passes: Vec<Dispatch>) {
        if let Some(update) = &mut self.reference_update {
            update.set_followers(&gpu.queue, &passes);
        }
        self.rest_shape_followers = passes;
    }

    /// The buffers the 3D view draws from (crate::instances).
    pub(crate) fn state_buffers(&self) -> StateBuffers<'_> {
        StateBuffers {
            phyxels: self.phyxels,
            reference: &self.reference,
            start: &self.start,
            edges: &self.edge_windows,
            mls_frame: &self.mls_frame,
            displacement: &self.displacement,
            velocity: &self.velocity,
            temperature: &self.temperature,
            plastic_strain: &self.plastic_strain,
            frames: self.implicit.as_ref().map(|implicit| &implicit.frames),
        }
    }

    /// Queue at most `iterations` CG iterations per solve of an implicit step until the next read-back
    /// adjusts the budget (see `implicit.rs`; it starts at the iteration limit, which suits a single
    /// read-back after many steps). A page that reads back a few times per second starts lower, so
    /// that its first steps do not queue the whole limit's worth of dispatches.
    pub fn set_iteration_budget(&mut self, iterations: usize) {
        if let Some(implicit) = &self.implicit {
            let limit = implicit.settings.max_iterations;
            implicit
                .budget
                .store(iterations.clamp(1, limit), Ordering::Relaxed);
        }
    }

    /// Pull a phyxel with the drag spring, or (None) let go.
    pub fn set_drag(&mut self, drag: Option<Drag>) {
        let drag = drag.filter(|d| d.phyxel < self.phyxels as usize);
        self.params.counts[2] = drag.map_or(0, |d| d.phyxel as u32 + 1);
        if let Some(d) = drag {
            self.params.drag = [
                d.target.x as f32,
                d.target.y as f32,
                d.target.z as f32,
                d.stiffness as f32,
            ];
            self.params.contact[2] = d.max_stretch.min(f32::MAX as f64) as f32;
        }
    }

    /// Plastic flow with these parameters, or (None) a purely elastic material.
    pub fn set_plasticity(&mut self, plasticity: Option<Plasticity>) {
        self.params.plasticity = plasticity.map_or([0.0; 4], |p| {
            [
                p.yield_strain as f32,
                p.creep as f32,
                p.max_strain as f32,
                1.0,
            ]
        });
    }

    /// Heat and soften (`Melting`), or (None) keep temperatures and stiffness as they are.
    pub fn set_melting(&mut self, melting: Option<Melting>) {
        self.params.counts[3] = u32::from(melting.is_some());
        if let Some(m) = melting {
            let source = m.heat_source;
            self.params.heat_source = source.map_or([0.0; 4], |s| {
                [
                    s.position.x as f32,
                    s.position.y as f32,
                    s.position.z as f32,
                    s.rate as f32,
                ]
            });
            self.params.melting = [
                source.map_or(1.0, |s| s.radius as f32),
                m.diffusivity as f32,
                m.melting_point as f32,
                m.molten_stiffness as f32,
            ];
        }
    }

    /// Queue `steps` steps of `dt` in one submission — unless [`MAX_SUBMISSIONS_IN_FLIGHT`] are still
    /// unfinished: then nothing is queued and the answer is false (the device is behind; ask again
    /// later).
    pub fn step(&mut self, gpu: &GpuContext, dt: f64, steps: u32) -> bool {
        if self.in_flight.load(Ordering::Acquire) >= MAX_SUBMISSIONS_IN_FLIGHT {
            return false;
        }
        self.write_params(gpu, dt);
        let plastic = self.params.plasticity[3] == 1.0;
        if plastic && self.implicit.is_none() && self.reference_update.is_none() {
            let mut update = ReferenceUpdate::new(
                &gpu.device,
                &UpdatedBuffers {
                    reference: &self.reference,
                    displacement: &self.displacement,
                    start: &self.start,
                    edges: &self.edge_windows,
                    reverse_start: &self.reverse_start,
                    mls_frame: &self.mls_frame,
                    plastic_strain: &self.plastic_strain,
                    phyxel: &self.phyxel,
                    mass: &self.mass,
                    status: &self.status,
                },
                self.phyxels,
                self.edge_capacity,
                self.max_support_radius as f32,
                self.reference_update_strain as f32,
            );
            update.set_followers(&gpu.queue, &self.rest_shape_followers);
            self.reference_update = Some(update);
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
            let groups = self.phyxels.div_ceil(WORKGROUP_SIZE);
            let runs = |stage: Stage| match stage {
                // The implicit step replaces the explicit one (and refuses plasticity).
                Stage::Always | Stage::Plastic if self.implicit.is_some() => false,
                Stage::Always => true,
                Stage::Melting => self.params.counts[3] == 1,
                Stage::Plastic => self.params.plasticity[3] == 1.0,
            };
            for _ in 0..steps {
                if let Some(implicit) = &self.implicit {
                    implicit.encode(&mut compute);
                }
                for pass in self.passes.iter().filter(|p| runs(p.stage)) {
                    pass.dispatch(&mut compute, groups);
                }
                // After the plastic flow (explicit steps): the rest shape moves when it is due.
                if let (Some(update), true, None) =
                    (&self.reference_update, plastic, &self.implicit)
                {
                    update.encode(&mut compute);
                }
                if let Some(implicit) = &self.implicit {
                    if self.params.plasticity[3] == 1.0 {
                        implicit.encode_plastic_flow(&mut compute);
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
        self.params.gravity_dt[3] = dt as f32;
        self.params.contact[1] = (MAX_TRAVEL_PER_STEP * self.min_support_radius / dt) as f32;
        gpu.queue
            .write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&self.params));
    }

    /// One explicit step with every pass in a compute pass of its own, timed by timestamp queries:
    /// resolves to (entry point, GPU milliseconds) in the order the step runs them. None where the
    /// device writes no timestamps, or for the implicit step (its thousands of dispatches are timed
    /// as a whole by [`GpuSolver::step`] and a read-back).
    pub fn profile_step(
        &mut self,
        gpu: &GpuContext,
        dt: f64,
    ) -> Option<impl std::future::Future<Output = Result<Vec<(String, f64)>, GpuError>> + 'static>
    {
        if !gpu.timestamps || self.implicit.is_some() {
            return None;
        }
        self.write_params(gpu, dt);
        let passes: Vec<&Pass> = self
            .passes
            .iter()
            .filter(|p| match p.stage {
                Stage::Always => true,
                Stage::Melting => self.params.counts[3] == 1,
                Stage::Plastic => self.params.plasticity[3] == 1.0,
            })
            .collect();
        let count = 2 * passes.len() as u32;
        let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass times"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolved = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pass times"),
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("profiled step"),
            });
        let groups = self.phyxels.div_ceil(WORKGROUP_SIZE);
        for (k, pass) in passes.iter().enumerate() {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&pass.name),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * k as u32),
                    end_of_pass_write_index: Some(2 * k as u32 + 1),
                }),
            });
            pass.dispatch(&mut compute, groups);
        }
        encoder.resolve_query_set(&queries, 0..count, &resolved, 0);
        gpu.queue.submit([encoder.finish()]);
        let names: Vec<String> = passes.iter().map(|p| p.name.clone()).collect();
        let nanoseconds_per_tick = f64::from(gpu.queue.get_timestamp_period());
        let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
        Some(async move {
            let raw = read_buffer(&device, &queue, &resolved, u64::from(count) * 8)
                .await
                .map_err(GpuError)?;
            let ticks = bytemuck::cast_slice::<u8, u64>(&raw);
            Ok(names
                .into_iter()
                .zip(ticks.chunks(2))
                .map(|(name, t)| {
                    let elapsed = t[1].saturating_sub(t[0]) as f64 * nanoseconds_per_tick;
                    (name, elapsed * 1e-6)
                })
                .collect())
        })
    }

    /// Read the neighbourhoods back as the solver holds them now (rows, reverse lists), in the CPU's
    /// form (reverse lists of edges, owners): after reference updates on the device, they are the
    /// device's own rebuild.
    pub fn read_neighbourhoods(
        &self,
        gpu: &GpuContext,
    ) -> impl std::future::Future<Output = Result<Neighbourhoods, GpuError>> + 'static {
        let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
        let n = u64::from(self.phyxels);
        let (start, reverse_start) = (self.start.clone(), self.reverse_start.clone());
        let per_edge = [
            self.edge_windows.neighbour.clone(),
            self.edge_windows.reverse.clone(),
        ];
        async move {
            let read = |buffer: wgpu::Buffer, len: u64| {
                let (device, queue) = (device.clone(), queue.clone());
                async move {
                    if len == 0 {
                        return Ok(Vec::new());
                    }
                    read_buffer(&device, &queue, &buffer, len * 4)
                        .await
                        .map(|bytes| bytemuck::pod_collect_to_vec::<u8, u32>(&bytes))
                        .map_err(GpuError)
                }
            };
            let start = read(start, n + 1).await?;
            let edges = u64::from(start[n as usize]);
            let [neighbour, reverse] = per_edge;
            let neighbour = read(neighbour, edges).await?;
            let reverse_start = read(reverse_start, n + 1).await?;
            let reverse_owners = read(reverse, edges).await?;
            Ok(crate::neighbours::from_reverse_owners(
                start,
                neighbour,
                reverse_start,
                &reverse_owners,
            ))
        }
    }

    /// Read the displacements, velocities, temperatures, plastic strains and the flags back.
    /// (The future owns what it needs — handles to the device, queue and buffers — so the solver can
    /// go on stepping while it is pending.)
    pub fn read_state(
        &self,
        gpu: &GpuContext,
    ) -> impl std::future::Future<Output = Result<GpuState, GpuError>> + 'static {
        let bytes = u64::from(self.phyxels) * 16;
        let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
        let failure = gpu.failure_slot();
        let buffers = [
            (self.displacement.clone(), bytes),
            (self.velocity.clone(), bytes),
            (self.temperature.clone(), bytes / 4),
            (self.plastic_strain.clone(), bytes * 3),
            (self.status.clone(), 32),
            (self.reference.clone(), bytes),
        ];
        // The CG scalars of an implicit step: copied out of the work buffer first.
        let scalars = self.implicit.as_ref().map(|implicit| {
            let (offset, size) = implicit.scalars_range();
            let copy = storage_buffer(&gpu.device, "CG scalars", &vec![0u8; size as usize]);
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            encoder.copy_buffer_to_buffer(&implicit.work, offset, &copy, 0, size);
            gpu.queue.submit([encoder.finish()]);
            (
                copy,
                size,
                implicit.frames.clone(),
                implicit.budget.clone(),
                implicit.settings.max_iterations,
            )
        });
        async move {
            let mut raw = Vec::with_capacity(buffers.len());
            for (buffer, size) in &buffers {
                raw.push(
                    read_buffer(&device, &queue, buffer, *size)
                        .await
                        .map_err(GpuError)?,
                );
            }
            if let Some(failure) = failure.lock().unwrap().clone() {
                return Err(GpuError(failure));
            }
            let (last_solve, plastic_deformation) = match &scalars {
                Some((buffer, size, frames, budget, limit)) => {
                    let raw = read_buffer(&device, &queue, buffer, *size)
                        .await
                        .map_err(GpuError)?;
                    let solve = solve_stats(bytemuck::cast_slice::<u8, f32>(&raw));
                    let queued = budget.load(Ordering::Relaxed);
                    budget.store(next_budget(&solve, queued, *limit), Ordering::Relaxed);
                    let frames = read_buffer(&device, &queue, frames, bytes * 9)
                        .await
                        .map_err(GpuError)?;
                    // Each frame: rotation, F_p⁻¹, preconditioner (3 × 12 floats).
                    let plastic = bytemuck::cast_slice::<u8, [f32; 36]>(&frames)
                        .iter()
                        .map(|frame| from_mat3(&frame[12..24]).inverse())
                        .collect();
                    (Some(solve), Some(plastic))
                }
                None => (None, None),
            };
            let [displacement, velocity, temperature, plastic, status, reference] =
                <[Vec<u8>; 6]>::try_from(raw).expect("six buffers read");
            let status: Vec<u32> = bytemuck::pod_collect_to_vec(&status);
            let vectors = |raw: &[u8]| -> Vec<DVec3> {
                bytemuck::cast_slice::<u8, [f32; 4]>(raw)
                    .iter()
                    .map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64))
                    .collect()
            };
            let (displacement, velocity) = (vectors(&displacement), vectors(&velocity));
            Ok(GpuState {
                displacement,
                velocity,
                temperature: bytemuck::cast_slice::<u8, f32>(&temperature)
                    .iter()
                    .map(|t| *t as f64)
                    .collect(),
                plastic_strain: bytemuck::cast_slice::<u8, [f32; 12]>(&plastic)
                    .iter()
                    .map(|m| from_mat3(m))
                    .collect(),
                largest_total_strain: f32::from_bits(status[1]) as f64,
                blown_up: status[0] != 0,
                last_solve,
                plastic_deformation,
                reference: vectors(&reference),
                reference_updates: status[3],
                neighbour_overflow: (status[4] != 0).then_some(status[4]),
            })
        }
    }
}
