// The weights of a body whose cracks cut its neighbourhoods (`meshless::fracture`, seed 002 §7.3;
// the twin of uncut_weights.wgsl), as the CPU leaves them after its crack bookkeeping and the host
// writes them (`GpuSolver::set_cut_weights`): each row edge's factor t_ij = ω'_ij / ω_ij of its
// modified weight over the kernel's (`Fracture::weight_factors`; 0 across a crack under visibility
// and for a released row, between 0 and 1 under transparency), the same factor per reverse-list entry,
// and each phyxel's rest correction as D_i = G_i − I (`Body::rest_correction`). With the refit moment
// inverses in the MLS frames the passes then form the CPU's d_ij = A_i⁻¹ X_ij ω_ij t_ij. The factors
// are bound whole (not in edge windows): `cut_weights` refuses a body whose factors exceed a binding.

@group(0) @binding(10) var<storage, read> weight_factor: array<f32>;
@group(0) @binding(11) var<storage, read> reverse_weight_factor: array<f32>;
@group(0) @binding(12) var<storage, read> rest_deviation: array<mat3x3<f32>>;

fn edge_factor(e: u32) -> f32 {
    return weight_factor[e];
}

fn reverse_factor(r: u32) -> f32 {
    return reverse_weight_factor[r];
}

// ∇u_e,i = (I + ∇u_i) G_i − I = ∇u_i + ∇u_i D_i + D_i, summed from small terms (formed next to the
// identity, f32 would leave about 6·10⁻⁸ of strain noise; elasticity.wgsl's `corotated_stress`).
fn elastic_gradient(i: u32, grad_u: mat3x3<f32>) -> mat3x3<f32> {
    let d = rest_deviation[i];
    return grad_u + grad_u * d + d;
}

// ∂U(J G)/∂J = (∂U/∂J)(J G) Gᵀ (`Body::phyxel_stress_of`): M_i Gᵀ = M_i + M_i D_iᵀ.
fn corrected_force_matrix(i: u32, m: mat3x3<f32>) -> mat3x3<f32> {
    return m + m * transpose(rest_deviation[i]);
}
