// `MlsWeights::displacement_gradient` (mls.rs, MKN04 eq. 8) and `green_strain` (elasticity.rs), for
// the passes that bind displacement, start, neighbour and d at bindings 1–4 (phyxel_stresses,
// plastic_flow): prepended to them after common.wgsl.

// a bᵀ
fn outer(a: vec3<f32>, b: vec3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(a * b.x, a * b.y, a * b.z);
}

// ∇u_i = Σ_j (u_j − u_i) d_ijᵀ.
fn displacement_gradient(i: u32) -> mat3x3<f32> {
    let u_i = displacement[i].xyz;
    var grad_u = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var e = start[i]; e < start[i + 1u]; e++) {
        grad_u += outer(displacement[neighbour[e]].xyz - u_i, d[e].xyz);
    }
    return grad_u;
}

// ε = ½(∇u + ∇uᵀ + ∇uᵀ∇u).
fn green_strain(grad_u: mat3x3<f32>) -> mat3x3<f32> {
    let g_t = transpose(grad_u);
    return 0.5 * (grad_u + g_t + g_t * grad_u);
}
