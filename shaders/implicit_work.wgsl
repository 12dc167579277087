// Shared by the implicit step's passes (corotated.wgsl, quadrature.wgsl, conjugate_gradient.wgsl,
// implicit.wgsl; prepended after common.wgsl and mls.wgsl): the layout of the work buffer, the
// constraint filters and prescribed velocity changes, the obstacles' friction blocks, the vector K is
// applied to, the block-Jacobi blocks and inverse and the workgroup sums of the reductions. The constants it shares with
// crates/phyxel-gpu/src/implicit.rs (SECTIONS, OWN_OFFSETS, SCALAR_SLOTS, the CG states) and the
// per-phyxel `Frame` (R_i, F_p,i⁻¹, P_i) come from the prelude (`wgsl::work`, `layout::ImplicitFrame`).
//
// The work buffer holds, for n phyxels, sections of n vec4 each (xyz used), then the CG scalars, then
// PARTIAL_SUMS (the prelude) vec4 partial sums per workgroup: the k-th of every workgroup together.

const X: u32 = 0u; // CG iterate (Δv)
const R: u32 = 1u; // residual
const Z: u32 = 2u; // preconditioned residual
const P: u32 = 3u; // search direction
const AP: u32 = 4u; // A p
const B: u32 = 5u; // right-hand side b = Δt (f + m g + drag − α m v) + (Δt β + Δt²) K v
const Q: u32 = 6u; // the vector K is applied to next (stiffness_stresses reads it)
const DV: u32 = 7u; // the step's Δv = z̄ + S x
const GUESS: u32 = 8u; // the last step's Δv: the next CG's initial guess
// OWN_OFFSETS (the prelude) = 9: Σ_j x̄_ij w_ij, which A_i⁻¹ makes Σ_j d_ij (constant with the reference shape)
// The obstacle contact (`implicit::ObstacleContact`, `implicit::Friction`): its impulse J_i ≥ 0 (N·s),
// the prescribed n·Δv_i = z_i (m/s), the sticking drag Δt η_i (kg), the sliding impulse (N·s).
const IMPULSE: u32 = 10u;
// Its friction's slip direction ŝ_i (xyz) and Coulomb's limit μ J_i of the last step (w).
const SLIP: u32 = 11u;
// SECTIONS (the prelude) = 12 sections in all.

// CG scalars at section(SECTIONS) + 0..SCALAR_SLOTS (the prelude; crates/phyxel-gpu/src/implicit.rs
// `solve_stats` reads [1].z, [1].w and [2].w):
//   [0] = (‖S b‖², r·r, r·z, p·Ap)
//   [1] = (α, β, CG iterations this step, state: 0 running, 1 converged, 2 stopped on non-positive
//          curvature, 3 zero right-hand side)
//   [2] = (solve 1 or 2, 1 when the held contacts changed, 1 when the second solve is skipped (they
//          did not), final relative residual)
//   [3] = DEFLATION_SLOT (the prelude): (E⁻¹ along the axes this solve deflates, 0 along the others
//          (`deflation::CoarseSpace`; E is diagonal there, conjugate_gradient.wgsl), 1 when the body's
//          solves are deflated: written at the upload, 0 for a quadrature body holding a surface)
//   [4] = (y = E⁻¹ (A Z)ᵀ z, the coarse part taken out of the next direction (0 undeflated), 0)
const SCALARS: u32 = 0u;
const COARSE: u32 = 4u;
const PARTIALS: u32 = SCALAR_SLOTS;

// CG's states RUNNING, CONVERGED, STOPPED and ZERO_RHS come from the prelude.

// Obstacle contact states in contact[i].w (the obstacle's normal at x̃_i in xyz): none, a candidate
// this solve holds, a candidate it leaves free.
const NO_CONTACT: f32 = 0.0;
const HELD: f32 = 1.0;
const FREE: f32 = 2.0;

fn section(s: u32) -> u32 {
    return s * params.phyxels;
}

fn scalar_index(k: u32) -> u32 {
    return section(SECTIONS) + SCALARS + k;
}

fn partial_index(group: u32) -> u32 {
    return partial_slot(0u, group);
}

// The k-th (k < PARTIAL_SUMS) partial sum of workgroup `group`.
fn partial_slot(k: u32, group: u32) -> u32 {
    return section(SECTIONS) + PARTIALS + k * workgroups() + group;
}

fn workgroups() -> u32 {
    return (params.phyxels + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
}

// The second solve is not needed: the CG kernels leave everything as the first one left it.
fn cg_skipped() -> bool {
    return work[scalar_index(2u)].z == 1.0;
}

fn cg_running() -> bool {
    return work[scalar_index(1u)].w == RUNNING && !cg_skipped();
}

// 1 + Δt α (α: the environment's damping plus Rayleigh's mass term).
fn mass_factor() -> f32 {
    return 1.0 + params.dt * params.mass_damping;
}

// Δt β + Δt² (β: Rayleigh's stiffness term).
fn stiffness_factor() -> f32 {
    let dt = params.dt;
    return dt * params.rayleigh_stiffness + dt * dt;
}

// Baraff & Witkin's filter S_i (`Loads::filters`): 0 for a fixed phyxel, I − n nᵀ where held, else I.
fn filter_of(i: u32, c: vec4<f32>, fixed: f32) -> mat3x3<f32> {
    if (fixed > 0.5) {
        return mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    if (c.w == HELD) {
        let n = c.xyz;
        return identity - mat3x3<f32>(n * n.x, n * n.y, n * n.z);
    }
    return identity;
}

// Baraff & Witkin's prescribed velocity change z̄_i = z_i n_i of a held phyxel, 0 elsewhere
// (`Loads::prescribed`).
fn prescribed(i: u32) -> vec3<f32> {
    let c = contact[i];
    if (c.w == HELD) {
        return work[section(IMPULSE) + i].y * c.xyz;
    }
    return vec3<f32>(0.0);
}

// A held phyxel's friction drag in its diagonal block of A, Δt η_i (I − n nᵀ); zero elsewhere
// (`implicit::velocity_change`).
fn obstacle_block(i: u32) -> mat3x3<f32> {
    let c = contact[i];
    if (c.w != HELD) {
        return mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let n = c.xyz;
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    return work[section(IMPULSE) + i].z * (identity - mat3x3<f32>(n * n.x, n * n.y, n * n.z));
}

// The new search direction p = (z − y) + β p at phyxel j: z = P r deflated by y = E⁻¹ (A Z)ᵀ z
// (`CoarseSpace::project`, Saad et al. 2000 alg. 2.2; y = 0 undeflated), then conjugated.
fn next_direction(j: u32) -> vec3<f32> {
    let beta = work[scalar_index(1u)].y;
    let y = work[scalar_index(COARSE)].xyz;
    return (work[section(Z) + j].xyz - y) + beta * work[section(P) + j].xyz;
}

// The vector K is applied to: Q, or in a CG iteration the filtered new direction S p
// (corotated.wgsl's and quadrature.wgsl's stiffness products read it; every file this is prepended to
// binds `work`, `contact` and `phyxel`).
fn product_input(j: u32, in_cg: bool) -> vec3<f32> {
    if (in_cg) {
        return filter_of(j, contact[j], phyxel[j].fixed) * next_direction(j);
    }
    return work[section(Q) + j].xyz;
}

// The block-Jacobi preconditioner block of particle k from its diagonal stiffness block K_kk
// (`implicit::velocity_change`): P_k = S_k (m_k (1 + Δt α) I − (Δt β + Δt²) K_kk + O_k)⁻¹ S_k + (I − S_k),
// O_k the friction drag of a held phyxel.
fn preconditioner_block(k: u32, stiffness: mat3x3<f32>) -> mat3x3<f32> {
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    let system = phyxel[k].mass * mass_factor() * identity - stiffness_factor() * stiffness + obstacle_block(k);
    let s = filter_of(k, contact[k], phyxel[k].fixed);
    return s * inverse3(system) * s + (identity - s);
}

// `block_jacobi_inverses`: the inverse, or 1/max diagonal for a (nearly) singular block.
fn inverse3(m: mat3x3<f32>) -> mat3x3<f32> {
    let det = determinant(m);
    let scale = max(max(max(abs(m[0].x), abs(m[0].y)), max(abs(m[0].z), abs(m[1].x))),
        max(max(abs(m[1].y), abs(m[1].z)), max(max(abs(m[2].x), abs(m[2].y)), abs(m[2].z))));
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    if (scale > 0.0 && abs(det) > 1e-6 * scale * scale * scale) {
        let c0 = cross(m[1], m[2]);
        let c1 = cross(m[2], m[0]);
        let c2 = cross(m[0], m[1]);
        return transpose(mat3x3<f32>(c0, c1, c2)) * (1.0 / det);
    }
    let diagonal = max(max(m[0].x, m[1].y), m[2].z);
    if (diagonal > 0.0) {
        return identity * (1.0 / diagonal);
    }
    return identity;
}

var<workgroup> scratch: array<vec4<f32>, WORKGROUP_SIZE>;

// The sum of `value` over the workgroup (every invocation must call it: it has barriers).
fn workgroup_sum(local: u32, value: vec4<f32>) -> vec4<f32> {
    scratch[local] = value;
    workgroupBarrier();
    for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride = stride / 2u) {
        if (local < stride) {
            scratch[local] += scratch[local + stride];
        }
        workgroupBarrier();
    }
    let total = scratch[0];
    workgroupBarrier();
    return total;
}
