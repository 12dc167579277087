// The weights of a body no crack cuts, for the passes that form ∇u_i or gather forces from the MLS
// frames (mls.wgsl, phyxel_stresses.wgsl, gather_forces.wgsl, plastic_flow.wgsl): every edge keeps
// its kernel weight and no phyxel has a rest correction. Its twin cut_weights.wgsl binds what a
// fracture body's cracks changed; one of the two is prepended after mls_weight.wgsl.

// t_ij of row edge e: ω'_ij / ω_ij.
fn edge_factor(e: u32) -> f32 {
    return 1.0;
}

// t_ik of reverse-list entry r (the edge i → k whose owner i it names).
fn reverse_factor(r: u32) -> f32 {
    return 1.0;
}

// ∇u_e,i = J_i G_i − I with J_i = I + ∇u_i: here G_i = I.
fn elastic_gradient(i: u32, grad_u: mat3x3<f32>) -> mat3x3<f32> {
    return grad_u;
}

// The force matrix at J_i G_i times G_iᵀ: here G_i = I.
fn corrected_force_matrix(i: u32, m: mat3x3<f32>) -> mat3x3<f32> {
    return m;
}
