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

// R − I of a rotation R, accurate to f32 relative to its own size (R − I taken entry by entry keeps an
// absolute error of about 6·10⁻⁸ next to the identity, even for R = I): from R's unit quaternion
// (w, v), w = ½ √(1 + tr R), v = (R₃₂ − R₂₃, R₁₃ − R₃₁, R₂₁ − R₁₂) / 4w (Shepperd 1978),
// R − I = 2w [v]× + 2 [v]×² with [v]×² = v vᵀ − |v|² I. R − I itself beyond 120° (w < ½), where
// the quaternion's v loses precision and the difference does not.
fn rotation_deviation(rotation: mat3x3<f32>) -> mat3x3<f32> {
    let trace = rotation[0].x + rotation[1].y + rotation[2].z;
    let w = 0.5 * sqrt(max(1.0 + trace, 0.0));
    if (!(w >= 0.5)) {
        return rotation - IDENTITY;
    }
    let v = vec3<f32>(rotation[1].z - rotation[2].y, rotation[2].x - rotation[0].z,
        rotation[0].y - rotation[1].x) / (4.0 * w);
    let skew = mat3x3<f32>(vec3<f32>(0.0, v.z, -v.y), vec3<f32>(-v.z, 0.0, v.x), vec3<f32>(v.y, -v.x, 0.0));
    return 2.0 * w * skew + 2.0 * (outer(v, v) - dot(v, v) * IDENTITY);
}

// `corotated_stress`'s force matrix: with the elastic deformation gradient F_e = I + H, the rotation R
// (held fixed) and F_p⁻¹, ε = sym(RᵀF_e) − I, σ = λ tr(ε) I + 2μ ε, M = −V R σ F_p⁻ᵀ. It takes H, not
// F_e: with W = R − I (`rotation_deviation`), ε = sym(H + Wᵀ + Wᵀ H) — the same strain summed from
// small terms, which single precision resolves relative to ε rather than to the identity (formed as
// sym(RᵀF_e) − I it carries about 6·10⁻⁸ of strain noise, E·6·10⁻⁸ of stress, which CG then solves
// for at every step of a body at rest; phyxel-gpu's implicit module docs).
fn corotated_stress(gradient: mat3x3<f32>, rotation: mat3x3<f32>,
        plastic_inverse: mat3x3<f32>, volume: f32, lambda: f32, mu: f32) -> mat3x3<f32> {
    let deviation = transpose(rotation_deviation(rotation));
    let strain = symmetric_part(gradient + deviation + deviation * gradient);
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
