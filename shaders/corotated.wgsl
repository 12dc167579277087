// The corotated linear model (crates/phyxel/src/meshless/corotated.rs; Zhou et al. 2013 §3.1, Brunet
// et al. 2019 §3.4), the elastic model of the implicit step:
//
// * `corotated_stresses` — `corotated::rotations` and `corotated::stresses`: F_e = (I + ∇u) F_p⁻¹, its
//   polar rotation R (from the eigen-decomposition of F_eᵀF_e, as `polar_rotation`), the linear strain
//   ε = sym(RᵀF_e) − I (from F_e − I, elasticity.wgsl), Hooke's σ, and the force matrix M = −V R σ F_p⁻ᵀ;
// * `stiffness_stresses` / `cg_stiffness_stresses` — the per-phyxel half of `stiffness_product`: for the
//   vector q (the work buffer's Q section) δF_e = Σ_j (q_j − q_i) d_ijᵀ F_p⁻¹, δσ = C sym(RᵀδF_e),
//   δM = −V R δσ F_p⁻ᵀ; gather_forces then gives K·q. The cg_ variant takes q = S (z + β p), CG's next
//   direction, and does nothing once CG has finished. Force matrices are stored times A_i⁻¹, as the
//   gathers take them (phyxel_stresses.wgsl);
// * `stiffness_diagonal` — `stiffness_diagonal` and the block-Jacobi preconditioner of
//   `implicit::velocity_change`: P_k = S_k (m_k (1 + Δt α) I − (Δt β + Δt²) K_kk)⁻¹ S_k + (I − S_k).
//
// implicit_work.wgsl (prepended) lays out the work buffer and defines the constraint filter, the vector
// K is applied to (`product_input`) and the block-Jacobi block (`preconditioner_block`); polar.wgsl and
// elasticity.wgsl (prepended) the polar rotation and the corotated point, shared with quadrature.wgsl as
// the CPU shares them between the nodal model and the quadrature.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> displacement: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> start: array<u32>;
@group(0) @binding(3) var<storage, read> neighbour: array<u32>;
@group(0) @binding(4) var<storage, read> mls_frame: array<MlsFrame>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read_write> frames: array<Frame>;
@group(0) @binding(7) var<storage, read_write> force_matrix: array<mat3x3<f32>>;
@group(0) @binding(8) var<storage, read> work: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read> reverse_start: array<u32>;
// Reverse lists of owners.
@group(0) @binding(10) var<storage, read> reverse: array<u32>;
@group(0) @binding(12) var<storage, read> contact: array<vec4<f32>>;

fn lame(i: u32) -> vec2<f32> {
    return phyxel[i].stiffness_scale * vec2<f32>(params.lambda, params.mu);
}

// F_e,i = (I + ∇u_i) F_p,i⁻¹ (`corotated::elastic_deformation_gradient`; Zhou et al. 2013 eq. 13).
fn elastic_deformation_gradient(i: u32) -> mat3x3<f32> {
    return IDENTITY + elastic_displacement_gradient(i);
}

// F_e,i − I = ∇u_i F_p,i⁻¹ + (F_p,i⁻¹ − I), without forming I + ∇u_i (`corotated_stress` takes it).
fn elastic_displacement_gradient(i: u32) -> mat3x3<f32> {
    let plastic_inverse = frames[i].plastic_inverse;
    return displacement_gradient(i) * plastic_inverse + (plastic_inverse - IDENTITY);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn corotated_stresses(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || !owns_row(start[i])) {
        return;
    }
    let plastic_inverse = frames[i].plastic_inverse;
    let gradient = elastic_displacement_gradient(i);
    let rotation = polar_rotation(IDENTITY + gradient);
    frames[i].rotation = rotation;
    let lm = lame(i);
    let m = corotated_stress(gradient, rotation, plastic_inverse, phyxel[i].volume, lm.x, lm.y);
    force_matrix[i] = m * moment_inverse(mls_frame[i]);
}

fn differential_force_matrix(i: u32, in_cg: bool) {
    let q_i = product_input(i, in_cg);
    let frame_i = mls_frame[i];
    var sum = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var e = start[i]; e < start[i + 1u]; e++) {
        let j = neighbour[row_slot(e)];
        sum += outer(product_input(j, in_cg) - q_i, weighted_offset(frame_i, mls_frame[j].reference));
    }
    // Σ_j (q_j − q_i) d_ijᵀ, with A_i⁻¹ applied once (mls.wgsl's displacement_gradient).
    let dgrad = sum * transpose(moment_inverse(frame_i));
    let plastic_inverse = frames[i].plastic_inverse;
    let lm = lame(i);
    let dm = corotated_force_differential(dgrad * plastic_inverse, frames[i].rotation, plastic_inverse,
        phyxel[i].volume, lm.x, lm.y);
    force_matrix[i] = dm * moment_inverse(frame_i);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn stiffness_stresses(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < params.phyxels && owns_row(start[id.x])) {
        differential_force_matrix(id.x, false);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_stiffness_stresses(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < params.phyxels && cg_running() && owns_row(start[id.x])) {
        differential_force_matrix(id.x, true);
    }
}

// Phyxel i's share of a diagonal block (`corotated_diagonal_block` with c = F_p,i⁻ᵀ d).
fn diagonal_block(i: u32, d_ik: vec3<f32>) -> mat3x3<f32> {
    let lm = lame(i);
    let c = transpose(frames[i].plastic_inverse) * d_ik;
    return corotated_diagonal_block(c, frames[i].rotation, phyxel[i].volume, lm.x, lm.y);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn stiffness_diagonal(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= params.phyxels || !owns_reverse_list(reverse_start[k])) {
        return;
    }
    var block = diagonal_block(k, -(moment_inverse(mls_frame[k]) * work[section(OWN_OFFSETS) + k].xyz));
    let reference_k = mls_frame[k].reference;
    for (var r = reverse_start[k]; r < reverse_start[k + 1u]; r++) {
        let i = reverse[reverse_slot(r)];
        block += diagonal_block(i, mls_weight(mls_frame[i], reference_k));
    }
    frames[k].precondition = preconditioner_block(k, block);
}

// The multiplicative plastic flow after a step (`Simulation::flow_multiplicative`,
// `Plasticity::flow_multiplicative`; Zhou et al. 2013 §3.2 with Bargteil et al. 2007's flow rule): with
// F_e = (I + ∇u) F_p⁻¹ = U diag(σ) Vᵀ and e = dev ln σ, if ‖e‖ > c_yield s_i the fraction
// γ = min(c_creep Δt, 1) (‖e‖ − c_yield s_i)/‖e‖ of e flows (at most up to ‖ln σ(F_p)‖ = c_max):
// F_p ← V diag(exp(γ e)) Vᵀ F_p, kept here as its inverse (plasticity.wgsl's `flow_multiplicative`).
@compute @workgroup_size(WORKGROUP_SIZE)
fn plastic_flow_multiplicative(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || !owns_row(start[i])) {
        return;
    }
    let yield_strain = params.yield_strain * phyxel[i].stiffness_scale;
    frames[i].plastic_inverse = flow_multiplicative(elastic_deformation_gradient(i), frames[i].plastic_inverse,
        yield_strain);
}
