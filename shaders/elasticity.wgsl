// One corotated integration point — a phyxel (corotated.wgsl) or a Gauss point of the background
// quadrature (quadrature.wgsl) — as crates/phyxel/src/meshless/elasticity.rs writes it for both:
// Hooke's law, the force matrix of `corotated_stress`, the force differential of the stiffness
// product and the point's share of a diagonal stiffness block (Zhou et al. 2013 eqs. 6–8, 13, 19–22;
// Brunet et al. 2019 eqs. 12 and 14). Prepended after common.wgsl (`outer`) and polar.wgsl
// (`symmetric_part`, `IDENTITY`); no bindings.

// σ = λ tr(ε) I + 2μ ε (`hooke_stress`).
fn hooke_stress(strain: mat3x3<f32>, lambda: f32, mu: f32) -> mat3x3<f32> {
    let trace = strain[0].x + strain[1].y + strain[2].z;
    return lambda * trace * IDENTITY + 2.0 * mu * strain;
}

// `corotated_stress`'s force matrix: with the elastic deformation gradient F_e, the rotation R (held
// fixed) and F_p⁻¹, ε = sym(RᵀF_e) − I, σ = λ tr(ε) I + 2μ ε, M = −V R σ F_p⁻ᵀ.
fn corotated_stress(elastic: mat3x3<f32>, rotation: mat3x3<f32>, plastic_inverse: mat3x3<f32>,
        volume: f32, lambda: f32, mu: f32) -> mat3x3<f32> {
    let strain = symmetric_part(transpose(rotation) * elastic) - IDENTITY;
    let stress = hooke_stress(strain, lambda, mu);
    return -volume * (rotation * stress * transpose(plastic_inverse));
}

// `corotated_force_differential`: the force matrix of a differential δF_e at frozen rotation,
// δσ = C sym(Rᵀ δF_e), δM = −V R δσ F_p⁻ᵀ.
fn corotated_force_differential(elastic_differential: mat3x3<f32>, rotation: mat3x3<f32>,
        plastic_inverse: mat3x3<f32>, volume: f32, lambda: f32, mu: f32) -> mat3x3<f32> {
    let dstress = hooke_stress(symmetric_part(transpose(rotation) * elastic_differential), lambda, mu);
    return -volume * (rotation * dstress * transpose(plastic_inverse));
}

// `corotated_diagonal_block`: the point's share −V R (μ|c|² I + (λ + μ) c cᵀ) Rᵀ
// = −V (μ|c|² I + (λ + μ) (Rc)(Rc)ᵀ) of the diagonal block of a particle whose displacement enters F_e
// as δF_e = δu cᵀ (R is a rotation).
fn corotated_diagonal_block(c: vec3<f32>, rotation: mat3x3<f32>, volume: f32, lambda: f32, mu: f32) -> mat3x3<f32> {
    let rc = rotation * c;
    return -volume * (mu * dot(c, c) * IDENTITY + (lambda + mu) * outer(rc, rc));
}
