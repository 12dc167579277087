// The polar decomposition F = R S of a deformation gradient and the symmetric part of a matrix
// (crates/phyxel/src/meshless/polar.rs): the rotation every corotated model takes out (Zhou et al. 2013
// §3.1; Brunet et al. 2019 §3.4), per phyxel in corotated.wgsl and per integration point in
// quadrature.wgsl. Prepended after symmetric_eigen.wgsl; no bindings.

// Singular values below this fraction of the largest count as zero (`DEGENERATE_SINGULAR_VALUE`,
// relaxed to f32).
const DEGENERATE_SINGULAR_VALUE: f32 = 1e-6;

const IDENTITY = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));

// ½(A + Aᵀ) (`symmetric_part`).
fn symmetric_part(a: mat3x3<f32>) -> mat3x3<f32> {
    return 0.5 * (a + transpose(a));
}

// Any unit vector orthogonal to the unit vector a (`orthogonal_unit`).
fn orthogonal_unit(a: vec3<f32>) -> vec3<f32> {
    var helper = vec3<f32>(0.0, 1.0, 0.0);
    if (abs(a.x) < 0.6) {
        helper = vec3<f32>(1.0, 0.0, 0.0);
    }
    return normalize(cross(a, helper));
}

// `polar_rotation`: R = U Vᵀ from F = U Σ Vᵀ, V from the eigenvectors of FᵀF sorted by decreasing
// eigenvalue and made proper, u₁ = F v₁/|F v₁|, u₂ from F v₂ orthogonalized, u₃ = u₁ × u₂.
fn polar_rotation(f: mat3x3<f32>) -> mat3x3<f32> {
    var a = transpose(f) * f;
    let vectors = symmetric_eigen(&a);
    let values = vec3<f32>(a[0].x, a[1].y, a[2].z);
    // Order the eigenpairs σ₁² ≥ σ₂² ≥ σ₃².
    var order = vec3<u32>(0u, 1u, 2u);
    if (values[order.y] > values[order.x]) {
        order = order.yxz;
    }
    if (values[order.z] > values[order.y]) {
        order = order.xzy;
    }
    if (values[order.y] > values[order.x]) {
        order = order.yxz;
    }
    var v = mat3x3<f32>(vectors[order.x], vectors[order.y], vectors[order.z]);
    if (determinant(v) < 0.0) {
        v[2] = -v[2];
    }
    let largest = sqrt(max(values[order.x], 0.0));
    if (!(largest > 0.0)) {
        return IDENTITY;
    }
    let u1 = normalize(f * v[0]);
    var fv2 = f * v[1];
    fv2 -= dot(fv2, u1) * u1;
    var u2 = orthogonal_unit(u1);
    if (length(fv2) > DEGENERATE_SINGULAR_VALUE * largest) {
        u2 = normalize(fv2);
    }
    let u = mat3x3<f32>(u1, u2, cross(u1, u2));
    return u * transpose(v);
}
