// Shared by the solver's compute passes (prepended to each, after the prelude of shared structs and
// constants that crates/phyxel-gpu/src/wgsl.rs writes: `Params`, `Phyxel`, `WORKGROUP_SIZE`, …) — and
// to the drawn surfaces' surface_vertices.wgsl.

// a bᵀ (`mls::outer`).
fn outer(a: vec3<f32>, b: vec3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(a * b.x, a * b.y, a * b.z);
}

// poly6(r, h) / poly6(0, h) = (1 − r²/h²)³ for r < h (MKN04 eq. 7 without its normalization, which
// cancels wherever the solver divides by a sum or by the value at the centre).
fn poly6_shape(r: f32, h: f32) -> f32 {
    if (r >= h) {
        return 0.0;
    }
    let q = 1.0 - (r * r) / (h * h);
    return q * q * q;
}
