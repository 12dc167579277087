// The background quadrature (crates/phyxel/src/meshless/quadrature/; Brunet et al. 2019, seed 003
// §3.3–3.4) in the corotated implicit step: the particles carry the degrees of freedom, the elastic
// energy is integrated at the Gauss points I of a background grid, each with volume v_I, Lamé's λ_I, μ_I,
// F_p,I⁻¹ and its MLS shape-function gradients ∇φ_i(x_I) (built on the CPU, uploaded once:
// crates/phyxel-gpu/src/quadrature.rs). In the step's order (implicit.wgsl's header), these replace the
// nodal model's corotated.wgsl passes and gather_forces:
//
// * `point_stress` — the per-point half of `Quadrature::rotations_and_forces` (`Quadrature::rotations`
//   and `Quadrature::point_stress`, quadrature/elasticity.rs) at every point: F_I = I + Σ_i u_i
//   ∇φ_i(x_I)ᵀ, F_e,I = F_I F_p,I⁻¹, R_I = polar(F_e,I) (seed 003 §3.4), and `corotated_stress`'s force
//   matrix M_I = −v_I R_I σ_I F_p,I⁻ᵀ (seed 003 eqs. 9–12);
// * `gather` — the per-particle half of `Quadrature::rotations_and_forces` (`Quadrature::scatter`):
//   f_i = Σ_I M_I ∇φ_i(x_I) over the points whose row holds particle i (its reverse list; seed 003
//   eq. 12). The CPU scatters each point's shares into per-range sums; here one invocation per
//   particle gathers its own force: no atomics, no write conflicts;
// * `stiffness_product` / `cg_stiffness_product` — the per-point half of `Quadrature::stiffness_product`
//   (seed 003 eq. 14 without assembling K): δF_e,I = Σ_i q_i ∇φ_iᵀ F_p,I⁻¹ and
//   `corotated_force_differential`'s δM_I = −v_I R_I C(sym(R_Iᵀ δF_e,I)) F_p,I⁻ᵀ at the rotations
//   `point_stress` froze; `gather` / `cg_gather` then give K q. The cg_ variants take CG's next direction
//   q = S (z + β p) (`product_input`) and do nothing once CG has finished; conjugate_gradient.wgsl's
//   `cg_gathered_product` reads the gathered K S p;
// * `stiffness_diagonal` — `Quadrature::stiffness_diagonal`: K_ii = Σ_I `corotated_diagonal_block`
//   (c = F_p,I⁻ᵀ ∇φ_i(x_I)), then the block-Jacobi preconditioner block (`preconditioner_block`).
//
// A held surface (`HeldSurface`: the penalty energy α/2 Σ_s A_s |ũ(x_s)|², seed 003 eq. 5's ũ = 0 on
// Γ_D imposed weakly) rides along as points after the integration points (`held` = 1), their volume
// α A_s, their rows' edges holding (φ_i(x_s), 0, 0) in place of ∇φ_i: the same sum Σ_i u_i ∇φ_iᵀ then
// has ũ(x_s) = Σ_i φ_i u_i (seed 003 eq. 6) as its first column, the force matrix −α A_s [ũ(x_s) 0 0]
// gathers to f_i = −α A_s φ_i(x_s) ũ(x_s) (`HeldSurface::add_forces`, linear: the stiffness product is
// the same), and the diagonal share is −α A_s φ_i² I (`HeldSurface::add_diagonal`).
//
// After the step, as `Simulation`'s post-step does at the points:
//
// * `soften` — `Quadrature::soften` (melting carried to the points, MKN04 §5.2): s_I = Σ_i φ_i(x_I) s_i
//   from the particles' stiffness factors (heat.wgsl's), clamped to the range of the s_i it
//   interpolates; λ_I, μ_I = s_I × the cold point's (`point_cold`);
// * `point_plastic_flow` — `Simulation::flow_multiplicative` at the points: F_p,I flows by
//   plasticity.wgsl's `flow_multiplicative` from F_e,I = F_I F_p,I⁻¹, with the yield strain softened as
//   the point is (c_yield s_I, s_I = μ_I / μ_I,cold).
//
// The per-edge buffers — point_edge and point_value (the rows), particle_edge (the reverse lists) — are
// bound in edge windows (edge_window.wgsl; crates/phyxel-gpu/src/edge_windows.rs) where they exceed one
// storage binding: a point pass runs once per window of the rows and handles the points whose row
// starts in it (`owns_row`), reading edge e at `row_slot(e)`; a particle pass runs once per window of
// the reverse lists and handles the particles whose list starts in it (`owns_reverse_list`,
// `reverse_slot`). The windows overlap by the longest row or list, so each lies wholly in the window
// that handles it. With one window every row and list is owned and slot e is edge e.
//
// Prepended: edge_window.wgsl, common.wgsl (`outer`), symmetric_eigen.wgsl, polar.wgsl, elasticity.wgsl
// (shared with the nodal corotated.wgsl, as the CPU shares meshless/elasticity.rs), plasticity.wgsl,
// implicit_work.wgsl.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> displacement: array<vec4<f32>>;
// Point I's row: point_edge[point_start[I]..point_start[I + 1]], each ∇φ_i(x_I) with its particle i (edge
// e at row_slot(e) of the bound window).
@group(0) @binding(2) var<storage, read> point_start: array<u32>;
@group(0) @binding(3) var<storage, read> point_edge: array<ShapeEdge>;
@group(0) @binding(4) var<storage, read_write> point: array<IntegrationPoint>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read_write> point_frame: array<PointFrame>;
// M_I per point (`point_stress`), or δM_I (`stiffness_product`).
@group(0) @binding(7) var<storage, read_write> point_force: array<mat3x3<f32>>;
@group(0) @binding(8) var<storage, read> work: array<vec4<f32>>;
// Particle i's reverse list: particle_edge[particle_start[i]..particle_start[i + 1]], each ∇φ_i(x_I)
// with its point I, in the order of the rows' edges (the CPU's `edges_into`; entry r at reverse_slot(r)).
@group(0) @binding(9) var<storage, read> particle_start: array<u32>;
@group(0) @binding(10) var<storage, read> particle_edge: array<ShapeEdge>;
@group(0) @binding(11) var<storage, read_write> forces: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read> contact: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read_write> frames: array<Frame>;
// φ_i(x_I) of each edge of the points' rows (0 on a held-surface point's row), in the rows' window.
@group(0) @binding(14) var<storage, read> point_value: array<f32>;
// The cold λ_I, μ_I of each point (`Quadrature::lame`), which `soften` scales.
@group(0) @binding(15) var<storage, read> point_cold: array<vec2<f32>>;

// What a point's row sums: the displacements u, K's input Q, or CG's direction S (z + β p).
const DISPLACEMENT: u32 = 0u;
const PRODUCT_INPUT: u32 = 1u;
const CG_DIRECTION: u32 = 2u;

fn nodal_value(i: u32, input: u32) -> vec3<f32> {
    if (input == DISPLACEMENT) {
        return displacement[i].xyz;
    }
    return product_input(i, input == CG_DIRECTION);
}

// Σ_i q_i ∇φ_i(x_I)ᵀ over point I's row (`Quadrature::deformation_gradient` without the I; at a held
// surface point its first column is q̃(x_s)), summed as Σ_i (q_i − q_o) ∇φ_i(x_I)ᵀ with q_o the row's
// first particle's: the same sum, the shape functions reproducing constants (Σ_i ∇φ_i = 0, seed 003
// §3.3's MLS with a linear basis), but without the common translation, which single precision would
// round to 2⁻²⁴ of itself (a cube that fell 0.35 m: steps of 3·10⁻⁸ m in every term) and whose share of the f32
// gradients' Σ_i ∇φ_i ≠ 0 would strain a rigid motion. Held surface points keep q_o = 0 (their row
// holds φ_i, which sum to 1). The CPU takes δu's mean out of its f32 product for the same reason and
// sums the forces in f64 (`Quadrature::stiffness_product`).
fn row_sum(i_point: u32, input: u32) -> mat3x3<f32> {
    var sum = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    let first = point_start[i_point];
    var origin = vec3<f32>(0.0);
    if (!is_held(i_point) && first < point_start[i_point + 1u]) {
        origin = nodal_value(point_edge[row_slot(first)].index, input);
    }
    for (var e = first; e < point_start[i_point + 1u]; e++) {
        let edge = point_edge[row_slot(e)];
        sum += outer(nodal_value(edge.index, input) - origin, edge.gradient);
    }
    return sum;
}

fn is_held(i_point: u32) -> bool {
    return point[i_point].held == 1u;
}

// Is point I handled in this dispatch (its row starts in the bound window's own range)?
fn handles_point(i_point: u32) -> bool {
    return i_point < params.points && owns_row(point_start[i_point]);
}

// Is particle i handled in this dispatch (its reverse list starts in the bound window's own range)?
fn handles_particle(i: u32) -> bool {
    return i < params.phyxels && owns_reverse_list(particle_start[i]);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn point_stress(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (!handles_point(k)) {
        return;
    }
    let sum = row_sum(k, DISPLACEMENT);
    let p = point[k];
    if (is_held(k)) {
        point_force[k] = -p.volume * sum;
        return;
    }
    let plastic_inverse = point_frame[k].plastic_inverse;
    // H = F_e − I = Σ_i u_i ∇φ_iᵀ F_p⁻¹ + (F_p⁻¹ − I), without forming I + Σ_i u_i ∇φ_iᵀ.
    let gradient = sum * plastic_inverse + (plastic_inverse - IDENTITY);
    let rotation = polar_rotation(IDENTITY + gradient);
    point_frame[k].rotation = rotation;
    point_force[k] = corotated_stress(gradient, rotation, plastic_inverse, p.volume, p.lambda, p.mu);
}

fn point_force_differential(k: u32, input: u32) {
    let sum = row_sum(k, input);
    let p = point[k];
    if (is_held(k)) {
        point_force[k] = -p.volume * sum;
        return;
    }
    let plastic_inverse = point_frame[k].plastic_inverse;
    point_force[k] = corotated_force_differential(sum * plastic_inverse, point_frame[k].rotation,
        plastic_inverse, p.volume, p.lambda, p.mu);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn stiffness_product(@builtin(global_invocation_id) id: vec3<u32>) {
    if (handles_point(id.x)) {
        point_force_differential(id.x, PRODUCT_INPUT);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_stiffness_product(@builtin(global_invocation_id) id: vec3<u32>) {
    if (handles_point(id.x) && cg_running()) {
        point_force_differential(id.x, CG_DIRECTION);
    }
}

// f_i = Σ_I M_I ∇φ_i(x_I) over particle i's reverse list.
fn gathered(i: u32) -> vec3<f32> {
    var force = vec3<f32>(0.0);
    for (var r = particle_start[i]; r < particle_start[i + 1u]; r++) {
        let edge = particle_edge[reverse_slot(r)];
        force += point_force[edge.index] * edge.gradient;
    }
    return force;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn gather(@builtin(global_invocation_id) id: vec3<u32>) {
    if (handles_particle(id.x)) {
        forces[id.x] = vec4<f32>(gathered(id.x), 0.0);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_gather(@builtin(global_invocation_id) id: vec3<u32>) {
    if (handles_particle(id.x) && cg_running()) {
        forces[id.x] = vec4<f32>(gathered(id.x), 0.0);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn stiffness_diagonal(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (!handles_particle(i)) {
        return;
    }
    var block = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var r = particle_start[i]; r < particle_start[i + 1u]; r++) {
        let edge = particle_edge[reverse_slot(r)];
        let p = point[edge.index];
        if (p.held == 1u) {
            block -= p.volume * dot(edge.gradient, edge.gradient) * IDENTITY;
        } else {
            let c = transpose(point_frame[edge.index].plastic_inverse) * edge.gradient;
            block += corotated_diagonal_block(c, point_frame[edge.index].rotation, p.volume, p.lambda, p.mu);
        }
    }
    frames[i].precondition = preconditioner_block(i, block);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn soften(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (!handles_point(k) || is_held(k)) {
        return;
    }
    var sum = 0.0;
    var low = 3.0e38;
    var high = -3.0e38;
    for (var e = point_start[k]; e < point_start[k + 1u]; e++) {
        let s = phyxel[point_edge[row_slot(e)].index].stiffness_scale;
        sum += point_value[row_slot(e)] * s;
        low = min(low, s);
        high = max(high, s);
    }
    var softening = 1.0;
    if (low <= high) {
        softening = clamp(sum, low, high);
    }
    point[k].lambda = softening * point_cold[k].x;
    point[k].mu = softening * point_cold[k].y;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn point_plastic_flow(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (!handles_point(k) || is_held(k)) {
        return;
    }
    let cold = point_cold[k].y;
    var softening = 1.0;
    if (cold > 0.0) {
        softening = point[k].mu / cold;
    }
    // F_I = I + Σ_i (u_i − u_o) ∇φ_i(x_I)ᵀ (row_sum without its other inputs: this pass binds only what
    // it uses).
    var f = IDENTITY;
    let origin = displacement[point_edge[row_slot(point_start[k])].index].xyz;
    for (var e = point_start[k]; e < point_start[k + 1u]; e++) {
        let edge = point_edge[row_slot(e)];
        f += outer(displacement[edge.index].xyz - origin, edge.gradient);
    }
    let plastic_inverse = point_frame[k].plastic_inverse;
    let elastic = f * plastic_inverse;
    point_frame[k].plastic_inverse = flow_multiplicative(elastic, plastic_inverse,
        params.yield_strain * softening);
}
