// `MlsWeights::displacement_gradient` (mls.rs, MKN04 eq. 8) and `green_strain` (elasticity.rs), for
// the passes that bind displacement, start, neighbour and mls_frame at bindings 1–4 (phyxel_stresses,
// plastic_flow, the reference update): prepended to them after common.wgsl (`outer`), mls_weight.wgsl,
// uncut_weights.wgsl or cut_weights.wgsl (`edge_factor`) and edge_window.wgsl. The caller handles phyxel i only in the window that owns its row (`owns_row`).

// ∇u_i = Σ_j (u_j − u_i) d_ijᵀ = [Σ_j (u_j − u_i)(x̄_ij w_ij t_ij)ᵀ] A_i⁻ᵀ: A_i⁻¹ applied once per row
// (t_ij the cracks' weight factor, 1 in an uncut body).
fn displacement_gradient(i: u32) -> mat3x3<f32> {
    let frame_i = mls_frame[i];
    let u_i = displacement[i].xyz;
    var sum = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var e = start[i]; e < start[i + 1u]; e++) {
        let j = neighbour[row_slot(e)];
        sum += outer(displacement[j].xyz - u_i, weighted_offset(frame_i, mls_frame[j].reference) * edge_factor(e));
    }
    return sum * transpose(moment_inverse(frame_i));
}

// ε = ½(∇u + ∇uᵀ + ∇uᵀ∇u).
fn green_strain(grad_u: mat3x3<f32>) -> mat3x3<f32> {
    let g_t = transpose(grad_u);
    return 0.5 * (grad_u + g_t + g_t * grad_u);
}
