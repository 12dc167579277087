// The multiplicative plastic flow rule (crates/phyxel/src/meshless/plasticity.rs:
// `hencky_strain`, `plastic_stretch`, `Plasticity::flow_multiplicative`; Zhou et al. 2013 §3.2 with
// Bargteil et al. 2007's flow rule), shared by the nodal model's pass (corotated.wgsl's
// `plastic_flow_multiplicative`) and the background quadrature's (quadrature.wgsl's
// `point_plastic_flow`), as the CPU shares `Plasticity::flow_multiplicative` between them.

// F's principal Hencky strains ln σ_k and right singular vectors (columns of `axes`), from the
// eigen-decomposition of FᵀF (`plasticity::hencky_strain`).
struct Hencky {
    strains: vec3<f32>,
    axes: mat3x3<f32>,
};

fn hencky_strain(f: mat3x3<f32>) -> Hencky {
    var a = transpose(f) * f;
    let axes = symmetric_eigen(&a);
    let squares = max(vec3<f32>(a[0].x, a[1].y, a[2].z), vec3<f32>(SMALLEST_SQUARED_STRETCH));
    return Hencky(0.5 * log(squares), axes);
}

// ‖ln σ(F)‖: the norm of F's principal Hencky strains (`plasticity::plastic_stretch`; the same for F⁻¹).
fn plastic_stretch(f: mat3x3<f32>) -> f32 {
    return length(hencky_strain(f).strains);
}

// Squared singular values below SMALLEST_SQUARED_STRETCH (the prelude) are clamped before taking
// logarithms.

// One flow step of the elastic deformation gradient F_e = U diag(σ) Vᵀ with the inverse plastic
// deformation F_p⁻¹: e = dev ln σ; if ‖e‖ > c_yield (`yield_strain`, already softened) the fraction
// γ = min(c_creep Δt, 1) (‖e‖ − c_yield)/‖e‖ of e flows, at most up to ‖ln σ(F_p)‖ = c_max:
// F_p ← V diag(exp(γ e)) Vᵀ F_p, returned as its inverse F_p⁻¹ V diag(exp(−γ e)) Vᵀ. An inverted or
// degenerate F_e (det ≤ 0) does not flow.
fn flow_multiplicative(elastic: mat3x3<f32>, plastic_inverse: mat3x3<f32>, yield_strain: f32) -> mat3x3<f32> {
    if (!(determinant(elastic) > 0.0)) {
        return plastic_inverse;
    }
    let split = hencky_strain(elastic);
    let v = split.axes;
    let hencky = split.strains;
    let deviatoric = hencky - vec3<f32>((hencky.x + hencky.y + hencky.z) / 3.0);
    let size = length(deviatoric);
    if (size <= yield_strain) {
        return plastic_inverse;
    }
    let rate = min(params.creep * params.dt, 1.0) * (size - yield_strain) / size;
    let capacity = max(params.max_strain - plastic_stretch(plastic_inverse), 0.0) / size;
    let gamma = min(rate, capacity);
    if (gamma <= 0.0) {
        return plastic_inverse;
    }
    let shrink = exp(-gamma * deviatoric);
    let inverse_increment = v * mat3x3<f32>(
        vec3<f32>(shrink.x, 0.0, 0.0),
        vec3<f32>(0.0, shrink.y, 0.0),
        vec3<f32>(0.0, 0.0, shrink.z),
    ) * transpose(v);
    return plastic_inverse * inverse_increment;
}
