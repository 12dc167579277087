//! The body on the device: every buffer the passes share — the state (u, v, T, ε_p), the rest shape
//! with its neighbourhoods (rows and reverse lists in edge windows) and MLS frames, the per-phyxel
//! constants, forces and force matrices, colliders, the step parameters and the status flags, and for
//! a body with fracture the cracks' weight factors and rest corrections ([`CutWeights`]) — uploaded
//! from a `Simulation`, after the checks that refuse what the GPU backend does not mirror and bodies
//! whose buffers exceed the device's limits.

use crate::context::{bytes_in_words, GpuContext, GpuError};
use crate::edge_windows::{EdgeWindowPlan, EdgeWindows};
use crate::layout::{mat3, vec4, GpuCollider, ImplicitFrame, MlsFrame, Params, PhyxelConstants};
use crate::passes::{storage_buffer, uniform, zeroed};
use crate::wgsl::{source, status, work, workgroups, WORKGROUP_SIZE};
use glam::{DMat3, DVec3};
use phyxel::integrators::Method;
use phyxel::meshless::body::Body;
use phyxel::meshless::simulation::{Elasticity, Simulation};

/// Bytes of the largest per-phyxel buffer the solver binds whole for `phyxels` phyxels: the MLS
/// frames (64 bytes per phyxel; the force matrices and plastic strains hold a mat3x3, 48), and with the
/// implicit step its work buffer and frames. A body needing more than one binding holds is refused
/// with this number. (The per-edge buffers — rows and reverse lists, a u32 per neighbour pair; the MLS
/// weights d_ij are formed from the frames where they are used, not stored per edge — are bound in
/// windows instead: [`EdgeWindowPlan`].)
pub fn largest_binding_bytes(phyxels: usize, implicit: bool) -> u64 {
    let explicit = phyxels * size_of::<MlsFrame>();
    let largest = if implicit {
        let work = work::len(phyxels) * 16;
        let frames = phyxels * size_of::<ImplicitFrame>();
        explicit.max(work).max(frames)
    } else {
        explicit
    };
    largest as u64
}

/// Refuse what the GPU backend does not mirror.
fn check_supported(sim: &Simulation) -> Result<(), GpuError> {
    let implicit = sim.corotated_implicit().is_some();
    if sim.body.quadrature().is_some() && !implicit {
        return Err(GpuError(
            "the GPU backend steps a body with background quadrature with corotated implicit \
             Euler only (explicit GPU steps use MKN04's nodal model)"
                .into(),
        ));
    }
    if sim.surface_contact.is_some() && sim.surfaces.len() > 1 {
        return Err(GpuError(
            "the GPU backend has no contact between objects through their surfaces (the CPU's \
             meshless::contact): a scene of objects that collide runs on the CPU"
                .into(),
        ));
    }
    if !implicit && sim.integrator() != Method::SymplecticEuler {
        return Err(GpuError(format!(
            "the GPU backend integrates with symplectic Euler or corotated implicit Euler only (not {})",
            sim.integrator().name()
        )));
    }
    if !implicit && sim.elasticity != Elasticity::Mkn04 {
        return Err(GpuError(
            "the GPU backend steps the corotated model implicitly only (explicit steps use MKN04's)"
                .into(),
        ));
    }
    Ok(())
}

/// Each phyxel's MLS frame (A_i⁻¹ as the CPU fitted it, x̄_i, h_i): what the passes form d_ij from.
fn mls_frames(body: &Body) -> Vec<MlsFrame> {
    (0..body.len())
        .map(|i| {
            MlsFrame::new(
                body.mls.moment_inverse[i],
                body.reference[i],
                body.support_radius[i],
            )
        })
        .collect()
}

/// Refuse cut weights whose per-edge factors would not fit one binding (they are bound whole).
fn check_cut_binding(gpu: &GpuContext, edges: usize) -> Result<(), GpuError> {
    let bytes = edges as u64 * 4;
    let binding = gpu
        .limits
        .max_storage_buffer_binding_size
        .min(gpu.limits.max_buffer_size);
    if bytes > binding {
        return Err(GpuError(format!(
            "the cut weights of {edges} neighbour pairs need a {} buffer; this GPU binds at most {}: \
             lower the resolution",
            bytes_in_words(bytes),
            bytes_in_words(binding)
        )));
    }
    Ok(())
}

/// How the per-edge buffers are laid out for `sim`'s body within `gpu`'s limits: the edges they hold
/// and their windows of at most `window_bytes`. Refuses a body whose buffers exceed the device's
/// limits, with the size it needs.
fn plan_edges(
    gpu: &GpuContext,
    sim: &Simulation,
    window_bytes: u64,
) -> Result<EdgeWindowPlan, GpuError> {
    let body = &sim.body;
    let implicit = sim.corotated_implicit().is_some();
    let largest = largest_binding_bytes(body.len(), implicit);
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
    // The per-phyxel passes run a thread per phyxel (and one more: the rows' last start) in one
    // dispatch's workgroups.
    let groups = workgroups(body.len().saturating_add(1) as u32, WORKGROUP_SIZE);
    if body.len() >= u32::MAX as usize || groups > limits.max_compute_workgroups_per_dimension {
        let most =
            u64::from(limits.max_compute_workgroups_per_dimension) * u64::from(WORKGROUP_SIZE) - 1;
        return Err(GpuError(format!(
            "{} phyxels need {groups} workgroups per pass; this GPU dispatches at most {} \
             (max_compute_workgroups_per_dimension), {most} phyxels: lower the resolution",
            body.len(),
            limits.max_compute_workgroups_per_dimension
        )));
    }
    // Per-edge buffers hold up to twice the edges (within the largest buffer): room for the rows
    // of a rest shape that a reference update finds compressed. (The implicit step has no
    // reference update.) They are bound in windows where they exceed one binding.
    let edges = body.neighbours.neighbour.len();
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
    let edge_capacity = if implicit {
        edges
    } else {
        (2 * edges).min(largest_edges).max(edges)
    };
    // The windows overlap by as many edges as the body has phyxels: no row or reverse list, of
    // this rest shape or one a reference update makes, can be longer. (With the device's own
    // binding limit that is at most a sixteenth of a window: the MLS frames, 64 B per phyxel, must
    // fit one binding too.)
    EdgeWindowPlan::new(
        edge_capacity as u32,
        window_bytes.min(binding),
        limits.min_storage_buffer_offset_alignment,
        body.len() as u32,
    )
    .map_err(GpuError)
}

/// The body's buffers on the device.
pub struct BodyBuffers {
    pub phyxels: u32,
    /// [`Params`] (uniform, binding 0 of the step's passes).
    pub params: wgpu::Buffer,
    /// x̄_i with the support radius h_i in w.
    pub reference: wgpu::Buffer,
    pub displacement: wgpu::Buffer,
    pub velocity: wgpu::Buffer,
    /// f_i (pass 4's result).
    pub forces: wgpu::Buffer,
    /// The neighbourhoods: rows `start[i]..start[i + 1]` of `edges.neighbour`, and the reverse lists
    /// `reverse_start[k]..reverse_start[k + 1]` of `edges.reverse` (owners i of the edges i → k).
    pub start: wgpu::Buffer,
    pub edges: EdgeWindows,
    pub reverse_start: wgpu::Buffer,
    /// Per phyxel the MLS frame (A_i⁻¹, x̄_i, h_i) the passes form the weights d_ij from
    /// (shaders/mls_weight.wgsl).
    pub mls_frame: wgpu::Buffer,
    /// [`PhyxelConstants`] per phyxel.
    pub phyxel: wgpu::Buffer,
    /// m_i as f32 (the reference update's moment_matrices weighs densities with it).
    pub mass: wgpu::Buffer,
    /// P_i V_i per phyxel (mat3x3; pass 3's result, pass 4's input).
    pub force_matrix: wgpu::Buffer,
    pub colliders: wgpu::Buffer,
    /// The status slots of [`crate::wgsl::status`].
    pub status: wgpu::Buffer,
    /// T_i, and the next step's beside them (the heat pass writes, commit_temperature copies).
    pub temperature: wgpu::Buffer,
    pub temperature_next: wgpu::Buffer,
    /// ε_p of the MKN04 model (mat3x3 per phyxel).
    pub plastic_strain: wgpu::Buffer,
    /// Colliders in `colliders` (an empty list binds one unused collider).
    pub collider_count: u32,
    /// The hash grid's cell edge: the largest support radius (m).
    pub max_support_radius: f64,
    /// The smallest support radius (m): the travel bound is MAX_TRAVEL_PER_STEP · h / Δt.
    pub min_support_radius: f64,
    /// The most bytes a window of per-edge buffers binds (`GpuSolver::with_edge_windows`; the device's
    /// binding limit bounds it too): a quadrature's rows take windows by it as well.
    pub window_bytes: u64,
    /// The cracks' changes to the weights, for a body with fracture (None: the passes take
    /// shaders/uncut_weights.wgsl and bind none of these).
    pub cut: Option<CutWeights>,
}

/// What a body's cracks change in its passes (shaders/cut_weights.wgsl, bindings 10–12): per row edge
/// the factor t_ij = ω'_ij / ω_ij (`Fracture::weight_factors`), per reverse-list entry the factor of
/// its edge, per phyxel the rest correction as D_i = G_i − I (a mat3x3). With the CPU's refit moment
/// inverses in the MLS frames the passes form the CPU's cut d_ij. Bound whole, not in edge windows.
pub struct CutWeights {
    pub weight_factor: wgpu::Buffer,
    pub reverse_weight_factor: wgpu::Buffer,
    pub rest_deviation: wgpu::Buffer,
}

/// The contents of [`CutWeights`] for `body` with the edge factors `factors`: (t per edge, t per
/// reverse-list entry, D_i = G_i − I per phyxel).
fn cut_contents(body: &Body, factors: &[f64]) -> (Vec<f32>, Vec<f32>, Vec<[f32; 12]>) {
    let edge: Vec<f32> = factors.iter().map(|&t| t as f32).collect();
    let reverse = body
        .neighbours
        .reverse
        .iter()
        .map(|&e| edge[e as usize])
        .collect();
    (edge, reverse, rest_deviations(body))
}

/// D_i = G_i − I per phyxel, the rest corrections as the passes take them (summed from small terms).
fn rest_deviations(body: &Body) -> Vec<[f32; 12]> {
    body.rest_correction
        .iter()
        .map(|g| mat3(*g - DMat3::IDENTITY))
        .collect()
}

impl BodyBuffers {
    /// Upload `sim`'s body, neighbourhoods, MLS frames and colliders, with the per-edge buffers in
    /// windows of at most `window_bytes`.
    pub fn upload(gpu: &GpuContext, sim: &Simulation, window_bytes: u64) -> Result<Self, GpuError> {
        check_supported(sim)?;
        let plan = plan_edges(gpu, sim, window_bytes)?;
        let device = &gpu.device;
        let body = &sim.body;
        let hoods = &body.neighbours;
        let n = body.len();
        let storage = |label: &str, bytes: &[u8]| storage_buffer(device, label, bytes);
        let vectors = |label: &str, v: &[DVec3]| {
            let v: Vec<[f32; 4]> = v.iter().map(|x| vec4(*x)).collect();
            storage(label, bytemuck::cast_slice(&v))
        };
        let f32s = |label: &str, v: &[f64]| {
            let v: Vec<f32> = v.iter().map(|x| *x as f32).collect();
            storage(label, bytemuck::cast_slice(&v))
        };
        // Reference positions with the support radius in w (the heat pass weighs neighbours with it).
        let reference_and_radius: Vec<[f32; 4]> = body
            .reference
            .iter()
            .zip(&body.support_radius)
            .map(|(x, h)| [x.x as f32, x.y as f32, x.z as f32, *h as f32])
            .collect();
        // The device's reverse lists name the owners i of the edges (i → k) the CPU's name.
        let reverse_owners: Vec<u32> = hoods
            .reverse
            .iter()
            .map(|&e| hoods.owner[e as usize])
            .collect();
        let frames = mls_frames(body);
        let constants: Vec<PhyxelConstants> = (0..n)
            .map(|i| PhyxelConstants {
                mass: body.mass[i] as f32,
                volume: body.volume[i] as f32,
                stiffness_scale: body.stiffness_scale[i] as f32,
                fixed: f32::from(u8::from(sim.fixed.get(i).copied().unwrap_or(false))),
            })
            .collect();
        let plastic: Vec<[f32; 12]> = body.plastic_strain.iter().map(|m| mat3(*m)).collect();
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
        let radii = body.support_radius.iter().cloned();
        Ok(Self {
            phyxels: n as u32,
            params: uniform(device, "params", &Params::default()),
            reference: storage("reference", bytemuck::cast_slice(&reference_and_radius)),
            displacement: vectors("displacement", &body.displacement),
            velocity: vectors("velocity", &body.velocity),
            forces: zeroed(device, "forces", n * 16),
            start: storage("start", bytemuck::cast_slice(&hoods.start)),
            edges: EdgeWindows::new(device, plan, &hoods.neighbour, &reverse_owners),
            reverse_start: storage("reverse start", bytemuck::cast_slice(&hoods.reverse_start)),
            mls_frame: storage("MLS frames", bytemuck::cast_slice(&frames)),
            phyxel: storage("phyxel constants", bytemuck::cast_slice(&constants)),
            mass: f32s("mass", &body.mass),
            force_matrix: zeroed(device, "force matrix", n * 48),
            colliders: storage("colliders", bytemuck::cast_slice(&padded)),
            status: zeroed(device, "status", status::WORDS as usize * 4),
            temperature: f32s("temperature", &body.temperature),
            temperature_next: f32s("next temperature", &body.temperature),
            plastic_strain: storage("plastic strain", bytemuck::cast_slice(&plastic)),
            collider_count: colliders.len() as u32,
            max_support_radius: radii.clone().fold(0.0, f64::max),
            min_support_radius: radii.fold(f64::INFINITY, f64::min),
            window_bytes,
            cut: match &sim.fracture {
                Some(fracture) => {
                    let factors = fracture.weight_factors(body);
                    check_cut_binding(gpu, factors.len())?;
                    let (edge, reverse, deviation) = cut_contents(body, &factors);
                    Some(CutWeights {
                        weight_factor: storage("weight factors", bytemuck::cast_slice(&edge)),
                        reverse_weight_factor: storage(
                            "reverse weight factors",
                            bytemuck::cast_slice(&reverse),
                        ),
                        rest_deviation: storage(
                            "rest deviations",
                            bytemuck::cast_slice(&deviation),
                        ),
                    })
                }
                None => None,
            },
        })
    }

    /// Write `body`'s cut weights — the edge factors `factors` (`Fracture::weight_factors`), its rest
    /// corrections and its MLS frames (the refit moment inverses) — to the device, for the passes'
    /// next steps. Refused for a body uploaded without fracture, or with other neighbourhoods.
    pub fn write_cut_weights(
        &self,
        queue: &wgpu::Queue,
        body: &Body,
        factors: &[f64],
    ) -> Result<(), GpuError> {
        let Some(cut) = &self.cut else {
            return Err(GpuError(
                "this body was uploaded without fracture: its passes take no cut weights".into(),
            ));
        };
        let edges = body.neighbours.neighbour.len();
        if body.len() != self.phyxels as usize || factors.len() != edges {
            return Err(GpuError(format!(
                "{} edge factors for a body of {} phyxels and {edges} edges (the device holds {} \
                 phyxels)",
                factors.len(),
                body.len(),
                self.phyxels
            )));
        }
        let (edge, reverse, deviation) = cut_contents(body, factors);
        if !edge.is_empty() {
            queue.write_buffer(&cut.weight_factor, 0, bytemuck::cast_slice(&edge));
            queue.write_buffer(
                &cut.reverse_weight_factor,
                0,
                bytemuck::cast_slice(&reverse),
            );
        }
        queue.write_buffer(&cut.rest_deviation, 0, bytemuck::cast_slice(&deviation));
        let frames = mls_frames(body);
        queue.write_buffer(&self.mls_frame, 0, bytemuck::cast_slice(&frames));
        Ok(())
    }

    /// Write `body`'s rest corrections, as D_i = G_i − I. Refused for a body uploaded without
    /// fracture, or of another size.
    pub fn write_rest_corrections(&self, queue: &wgpu::Queue, body: &Body) -> Result<(), GpuError> {
        let Some(cut) = &self.cut else {
            return Err(GpuError(
                "this body was uploaded without fracture: it has no rest corrections".into(),
            ));
        };
        if body.len() != self.phyxels as usize {
            return Err(GpuError(format!(
                "rest corrections of {} phyxels for a body of {}",
                body.len(),
                self.phyxels
            )));
        }
        queue.write_buffer(
            &cut.rest_deviation,
            0,
            bytemuck::cast_slice(&rest_deviations(body)),
        );
        Ok(())
    }

    /// Write `body`'s plastic strains ε_p,i. Refused for a body of another size.
    pub fn write_plastic_strain(&self, queue: &wgpu::Queue, body: &Body) -> Result<(), GpuError> {
        if body.len() != self.phyxels as usize {
            return Err(GpuError(format!(
                "plastic strains of {} phyxels for a body of {}",
                body.len(),
                self.phyxels
            )));
        }
        let plastic: Vec<[f32; 12]> = body.plastic_strain.iter().map(|m| mat3(*m)).collect();
        queue.write_buffer(&self.plastic_strain, 0, bytemuck::cast_slice(&plastic));
        Ok(())
    }

    /// The weights file the passes that form ∇u_i or gather forces take: shaders/cut_weights.wgsl for
    /// a body with fracture, else shaders/uncut_weights.wgsl.
    pub fn weights_source(&self) -> &'static str {
        if self.cut.is_some() {
            source::CUT_WEIGHTS
        } else {
            source::UNCUT_WEIGHTS
        }
    }

    /// The cut weights' buffers at `bindings` (10: edge factors, 11: reverse-list factors, 12: rest
    /// deviations) that a pass reads; none for an uncut body.
    pub fn cut_bindings(&self, bindings: &[u32]) -> Vec<(u32, &wgpu::Buffer)> {
        let Some(cut) = &self.cut else {
            return Vec::new();
        };
        bindings
            .iter()
            .map(|&b| match b {
                10 => (b, &cut.weight_factor),
                11 => (b, &cut.reverse_weight_factor),
                _ => (b, &cut.rest_deviation),
            })
            .collect()
    }

    /// The bindings of the passes that form ∇u_i (mls.wgsl's `displacement_gradient` reads 1–4) with
    /// the per-phyxel constants at 5: phyxel_stresses, plastic_flow and their corotated twins.
    pub fn gradient_bindings(&self) -> [(u32, &wgpu::Buffer); 5] {
        [
            (1, &self.displacement),
            (2, &self.start),
            (3, &self.edges.neighbour),
            (4, &self.mls_frame),
            (5, &self.phyxel),
        ]
    }

    /// Workgroups of the per-phyxel passes.
    pub fn workgroups(&self) -> u32 {
        crate::wgsl::workgroups(self.phyxels, crate::wgsl::WORKGROUP_SIZE)
    }
}
