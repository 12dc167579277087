//! The WGSL side's single source of shared numbers: every constant a shader and the Rust that drives
//! it both depend on is a Rust constant here (or in `phyxel`, for the physics), written with the
//! shared structs of [`crate::layout`] into a **prelude** that `crate::passes::pipeline` prepends to
//! every compute shader. The shader files declare none of them (shaders/README.md); a test
//! (`layout::tests`) checks the prelude's struct layouts against Rust's.

use crate::layout::wgsl_structs;
use phyxel::deflation::DEPENDENT_PIVOT;
use phyxel::fluids3d::fluid::{MAX_STEP_TRAVEL, SUPPORT_RATIO, WALL_DISTANCE};
use phyxel::meshless::implicit::STICKING_DRAG;
use phyxel::meshless::melting::AMBIENT_TEMPERATURE;
use phyxel::meshless::mls::DEFAULT_RELATIVE_THRESHOLD;
use phyxel::meshless::neighbours::HASH_PRIMES;
use phyxel::meshless::plasticity::SMALLEST_SQUARED_STRETCH;
use phyxel::meshless::simulation::MAX_ROTATION_PER_STEP;

/// Invocations per workgroup of the per-phyxel (and per-vertex) passes.
pub const WORKGROUP_SIZE: u32 = 64;

/// Values one `scan_blocks` workgroup of the prefix sum scans (two per invocation).
pub const SCAN_BLOCK: u32 = 256;

/// Workgroups of `size` invocations covering `items` items (at least one).
pub fn workgroups(items: u32, size: u32) -> u32 {
    items.div_ceil(size).max(1)
}

/// The slots of the solver's status buffer (u32 each; strains as f32 bits, which order like their
/// values when non-negative).
pub mod status {
    /// Non-zero when a step blew up (too fast, turned too far, or not finite).
    pub const BLOWN_UP: u32 = 0;
    /// The largest total strain ‖ε‖ since the last read-back.
    pub const LARGEST_STRAIN: u32 = 1;
    /// The largest total strain ‖ε‖ of this step (the reference update's test).
    pub const STEP_STRAIN: u32 = 2;
    /// Reference updates made on the device.
    pub const REFERENCE_UPDATES: u32 = 3;
    /// The edges an update needed that did not fit the buffers (0: none).
    pub const NEIGHBOUR_OVERFLOW: u32 = 4;
    /// 1 when this step's reference update is due.
    pub const UPDATE_DUE: u32 = 5;
    /// Slots in the buffer.
    pub const WORDS: u32 = 8;
}

/// The implicit step's work buffer (shaders/implicit_work.wgsl): sections of n vec4 each, then
/// the CG scalars, then `PARTIAL_SUMS` partial sums per workgroup.
pub mod work {
    /// Sections of n vec4.
    pub const SECTIONS: u32 = 12;
    /// The section of Σ_j x̄_ij w_ij per phyxel (A_i⁻¹ times it is Σ_j d_ij), written at the upload.
    pub const OWN_OFFSETS: u32 = 9;
    /// vec4 slots of CG scalars after the sections.
    pub const SCALAR_SLOTS: u32 = 5;
    /// The scalars' slot of the deflation's E⁻¹ along the deflated axes (xyz) and its switch (w: 1 when
    /// the body's solves are deflated, written at the upload).
    pub const DEFLATION_SLOT: u32 = 3;
    /// vec4 partial sums per workgroup (`translations` reduces nine numbers, `cg_update` eight).
    pub const PARTIAL_SUMS: u32 = 3;
    /// CG's states (in the scalars' slot 1, w).
    pub const RUNNING: f32 = 0.0;
    pub const CONVERGED: f32 = 1.0;
    /// Stopped on a non-positive curvature.
    pub const STOPPED: f32 = 2.0;
    /// A zero right-hand side: Δv = 0.
    pub const ZERO_RHS: f32 = 3.0;

    /// The buffer's length in vec4 for `phyxels` phyxels: the sections, the scalars, `PARTIAL_SUMS`
    /// partial sums per workgroup.
    pub fn len(phyxels: usize) -> usize {
        let groups = super::workgroups(phyxels as u32, super::WORKGROUP_SIZE) as usize;
        (SECTIONS as usize) * phyxels + SCALAR_SLOTS as usize + PARTIAL_SUMS as usize * groups
    }
}

/// The reference update's gates (reference_update.wgsl): which passes `reference_update_due` opens
/// (the search of the deformed shape) and which `neighbour_capacity` opens (the commit, when the new
/// rows fit).
pub mod gate {
    pub const SEARCH: u32 = 0;
    pub const COMMIT: u32 = 1;
}

/// The slots of the 3D fluid's status buffer (`GpuFluid`; u32 each, 0 while nothing happened).
pub mod fluid_status {
    /// The largest index plus one of a particle that left the neighbour grid (`FluidError::LeftDomain`
    /// on the CPU).
    pub const LEFT_DOMAIN: u32 = 0;
    /// The largest index plus one of a particle that moved more than `MAX_STEP_TRAVEL` h in one
    /// drift, or whose velocity is not finite (the CPU's `Fluid::check_step` refuses such a step).
    pub const TOO_FAST: u32 = 1;
    /// Slots in the buffer.
    pub const WORDS: u32 = 4;
}

/// The shader files (shaders/), each included once.
pub mod source {
    pub const COMMON: &str = include_str!("../../../shaders/common.wgsl");
    pub const HASH: &str = include_str!("../../../shaders/hash.wgsl");
    pub const HASH_GRID: &str = include_str!("../../../shaders/hash_grid.wgsl");
    pub const NEIGHBOUR_SEARCH: &str = include_str!("../../../shaders/neighbour_search.wgsl");
    pub const NEIGHBOURS: &str = include_str!("../../../shaders/neighbours.wgsl");
    pub const REVERSE_NEIGHBOURS: &str = include_str!("../../../shaders/reverse_neighbours.wgsl");
    pub const PREFIX_SUM: &str = include_str!("../../../shaders/prefix_sum.wgsl");
    pub const EDGE_WINDOW: &str = include_str!("../../../shaders/edge_window.wgsl");
    pub const MLS_WEIGHT: &str = include_str!("../../../shaders/mls_weight.wgsl");
    pub const UNCUT_WEIGHTS: &str = include_str!("../../../shaders/uncut_weights.wgsl");
    pub const CUT_WEIGHTS: &str = include_str!("../../../shaders/cut_weights.wgsl");
    pub const MLS: &str = include_str!("../../../shaders/mls.wgsl");
    pub const SYMMETRIC_EIGEN: &str = include_str!("../../../shaders/symmetric_eigen.wgsl");
    pub const POLAR: &str = include_str!("../../../shaders/polar.wgsl");
    pub const ELASTICITY: &str = include_str!("../../../shaders/elasticity.wgsl");
    pub const MOMENT_MATRICES: &str = include_str!("../../../shaders/moment_matrices.wgsl");
    pub const PHYXEL_STRESSES: &str = include_str!("../../../shaders/phyxel_stresses.wgsl");
    pub const GATHER_FORCES: &str = include_str!("../../../shaders/gather_forces.wgsl");
    pub const COLLISION: &str = include_str!("../../../shaders/collision.wgsl");
    pub const COLLIDERS: &str = include_str!("../../../shaders/colliders.wgsl");
    pub const GRIPS: &str = include_str!("../../../shaders/grips.wgsl");
    pub const BALL: &str = include_str!("../../../shaders/ball.wgsl");
    pub const INTEGRATE: &str = include_str!("../../../shaders/integrate.wgsl");
    pub const HEAT: &str = include_str!("../../../shaders/heat.wgsl");
    pub const PLASTIC_FLOW: &str = include_str!("../../../shaders/plastic_flow.wgsl");
    pub const REFERENCE_UPDATE: &str = include_str!("../../../shaders/reference_update.wgsl");
    pub const PLASTICITY: &str = include_str!("../../../shaders/plasticity.wgsl");
    pub const COROTATED: &str = include_str!("../../../shaders/corotated.wgsl");
    pub const QUADRATURE: &str = include_str!("../../../shaders/quadrature.wgsl");
    pub const CONJUGATE_GRADIENT: &str = include_str!("../../../shaders/conjugate_gradient.wgsl");
    pub const IMPLICIT_WORK: &str = include_str!("../../../shaders/implicit_work.wgsl");
    pub const IMPLICIT: &str = include_str!("../../../shaders/implicit.wgsl");
    pub const PHYXEL_INSTANCES: &str =
        include_str!("../../../shaders/render/phyxel_instances.wgsl");
    pub const SURFACE_VERTICES: &str =
        include_str!("../../../shaders/render/surface_vertices.wgsl");
    pub const FLUID_CELLS: &str = include_str!("../../../shaders/fluid_cells.wgsl");
    pub const SPH_FLUID: &str = include_str!("../../../shaders/sph_fluid.wgsl");

    /// Every file above.
    #[cfg(test)]
    pub const ALL: &[&str] = &[
        COMMON,
        HASH,
        HASH_GRID,
        NEIGHBOUR_SEARCH,
        NEIGHBOURS,
        REVERSE_NEIGHBOURS,
        PREFIX_SUM,
        EDGE_WINDOW,
        MLS_WEIGHT,
        UNCUT_WEIGHTS,
        CUT_WEIGHTS,
        MLS,
        SYMMETRIC_EIGEN,
        POLAR,
        ELASTICITY,
        MOMENT_MATRICES,
        PHYXEL_STRESSES,
        GATHER_FORCES,
        COLLISION,
        COLLIDERS,
        GRIPS,
        BALL,
        INTEGRATE,
        HEAT,
        PLASTIC_FLOW,
        REFERENCE_UPDATE,
        PLASTICITY,
        COROTATED,
        QUADRATURE,
        CONJUGATE_GRADIENT,
        IMPLICIT_WORK,
        IMPLICIT,
        PHYXEL_INSTANCES,
        SURFACE_VERTICES,
        FLUID_CELLS,
        SPH_FLUID,
    ];
}

/// A WGSL constant declaration.
fn constant(name: &str, wgsl_type: &str, value: String) -> String {
    format!("const {name}: {wgsl_type} = {value};\n")
}

fn float(value: f64) -> String {
    format!("{:?}", value as f32)
}

/// The prelude: the shared constants and structs, in WGSL.
pub fn prelude() -> String {
    let u = |name: &str, value: u32| constant(name, "u32", format!("{value}u"));
    let f = |name: &str, value: f64| constant(name, "f32", float(value));
    let [p1, p2, p3] = HASH_PRIMES;
    let mut text = String::from(
        "// The prelude (crates/phyxel-gpu/src/wgsl.rs and layout.rs): shared with Rust, prepended to \
         every compute shader.\n\n",
    );
    text += &u("WORKGROUP_SIZE", WORKGROUP_SIZE);
    text += &u("SCAN_BLOCK", SCAN_BLOCK);
    text += &u("SCAN_WORKGROUP_SIZE", SCAN_BLOCK / 2);
    text += "// Room temperature (°C): `melting::AMBIENT_TEMPERATURE`.\n";
    text += &f("AMBIENT_TEMPERATURE", AMBIENT_TEMPERATURE);
    text += "// `simulation::MAX_ROTATION_PER_STEP`: the largest angle (rad) an implicit step may turn a \
             neighbourhood by.\n";
    text += &f("MAX_ROTATION_PER_STEP", MAX_ROTATION_PER_STEP);
    text += "// `implicit::STICKING_DRAG`: Δt η / m of the obstacles' sticking friction in the implicit \
             step.\n";
    text += &f("STICKING_DRAG", STICKING_DRAG);
    text += "// `mls::DEFAULT_RELATIVE_THRESHOLD`: the safe inverse drops eigenvalues below this fraction \
             of the largest.\n";
    text += &f("SAFE_INVERSE_THRESHOLD", DEFAULT_RELATIVE_THRESHOLD);
    text += "// `plasticity::SMALLEST_SQUARED_STRETCH`: squared singular values are clamped to it \
             before logarithms.\n";
    text += &f("SMALLEST_SQUARED_STRETCH", SMALLEST_SQUARED_STRETCH);
    text += "// `neighbours::HASH_PRIMES` (Teschner et al. 2003).\n";
    text += &constant(
        "HASH_PRIMES",
        "vec3<i32>",
        format!("vec3<i32>({p1}i, {p2}i, {p3}i)"),
    );
    text += "// The status buffer's slots (`wgsl::status`).\n";
    for (name, slot) in [
        ("STATUS_BLOWN_UP", status::BLOWN_UP),
        ("STATUS_LARGEST_STRAIN", status::LARGEST_STRAIN),
        ("STATUS_STEP_STRAIN", status::STEP_STRAIN),
        ("STATUS_REFERENCE_UPDATES", status::REFERENCE_UPDATES),
        ("STATUS_NEIGHBOUR_OVERFLOW", status::NEIGHBOUR_OVERFLOW),
        ("STATUS_UPDATE_DUE", status::UPDATE_DUE),
    ] {
        text += &u(name, slot);
    }
    text += "// The implicit step's work buffer (`wgsl::work`).\n";
    text += &u("SECTIONS", work::SECTIONS);
    text += &u("OWN_OFFSETS", work::OWN_OFFSETS);
    text += &u("SCALAR_SLOTS", work::SCALAR_SLOTS);
    text += &u("DEFLATION_SLOT", work::DEFLATION_SLOT);
    text += &u("PARTIAL_SUMS", work::PARTIAL_SUMS);
    text += "// `deflation::DEPENDENT_PIVOT`: E's Cholesky pivot, over its largest diagonal, below which \
             the coarse space is refused.\n";
    text += &f("DEPENDENT_PIVOT", DEPENDENT_PIVOT);
    for (name, state) in [
        ("RUNNING", work::RUNNING),
        ("CONVERGED", work::CONVERGED),
        ("STOPPED", work::STOPPED),
        ("ZERO_RHS", work::ZERO_RHS),
    ] {
        text += &f(name, state.into());
    }
    text += "// The reference update's gates (`wgsl::gate`).\n";
    text += &u("GATE_SEARCH", gate::SEARCH);
    text += &u("GATE_COMMIT", gate::COMMIT);
    text += "// The 3D SPH fluid (`phyxel::fluids3d::fluid`): h over Δx, the closest a particle may come \
             to a wall particle over Δx (`Fluid::keep_off_walls`), the most a drift may move a particle \
             over h (`Fluid::check_step`).\n";
    text += &f("SUPPORT_RATIO", SUPPORT_RATIO);
    text += &f("WALL_DISTANCE", WALL_DISTANCE);
    text += &f("MAX_STEP_TRAVEL", MAX_STEP_TRAVEL);
    text += "// The fluid's status buffer's slots (`wgsl::fluid_status`).\n";
    text += &u("FLUID_LEFT_DOMAIN", fluid_status::LEFT_DOMAIN);
    text += &u("FLUID_TOO_FAST", fluid_status::TOO_FAST);
    text += "\n";
    text + &wgsl_structs()
}
