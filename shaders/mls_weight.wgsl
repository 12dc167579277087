// The MLS weights d_ij = A_i⁻¹ x̄_ij w_ij (MKN04 eq. 8; tutorial eq. 38), formed where a pass uses them
// (`MlsWeights::compute`, crates/phyxel/src/meshless/mls.rs, stores them per edge instead). A per-phyxel
// frame of 64 bytes replaces a vec4 per edge: with two to three dozen neighbours per phyxel that is a
// sixth of the memory, and the largest per-edge buffer left holds a u32 — a million phyxels' rows fit
// the 128 MiB a storage binding may hold on Mesa lavapipe. Prepended (alone, or after common.wgsl) to
// the passes that bind `mls_frame`.

// Phyxel i's MLS frame. Mirrors `layout::MlsFrame`.
struct MlsFrame {
    // The safe inverse A_i⁻¹ of the moment matrix by columns (xyz); in w the kernel's constants:
    // h_i² (x column) and the poly6 factor 315 / (64 π h_i⁹) (y column).
    inverse_x: vec4<f32>,
    inverse_y: vec4<f32>,
    inverse_z: vec4<f32>,
    // x̄_i, and the support radius h_i in w.
    reference: vec4<f32>,
};

// poly6(r, h) = 315 / (64 π h⁹) (h² − r²)³ for r < h (MKN04 eq. 7).
fn poly6(r: f32, h: f32) -> f32 {
    if (r >= h) {
        return 0.0;
    }
    let q = h * h - r * r;
    let h3 = h * h * h;
    return 315.0 / (64.0 * 3.14159265358979 * h3 * h3 * h3) * q * q * q;
}

// Phyxel i's frame from A_i⁻¹ and (x̄_i, h_i).
fn mls_frame_of(inverse: mat3x3<f32>, reference: vec4<f32>) -> MlsFrame {
    let h = reference.w;
    let h3 = h * h * h;
    let factor = 315.0 / (64.0 * 3.14159265358979 * h3 * h3 * h3);
    return MlsFrame(vec4<f32>(inverse[0], h * h), vec4<f32>(inverse[1], factor), vec4<f32>(inverse[2], 0.0), reference);
}

fn moment_inverse(frame: MlsFrame) -> mat3x3<f32> {
    return mat3x3<f32>(frame.inverse_x.xyz, frame.inverse_y.xyz, frame.inverse_z.xyz);
}

// x̄_ij w_ij with x̄_ij = x̄_j − x̄_i and w_ij = poly6(|x̄_ij|, h_i), from |x̄_ij|² (no square root);
// `reference_j` is phyxel j's frame's reference (x̄_j, h_j). A row's sum of these times A_i⁻¹ is Σ_j d_ij.
fn weighted_offset(frame_i: MlsFrame, reference_j: vec4<f32>) -> vec3<f32> {
    let x_ij = reference_j.xyz - frame_i.reference.xyz;
    let q = max(frame_i.inverse_x.w - dot(x_ij, x_ij), 0.0);
    return x_ij * (frame_i.inverse_y.w * q * q * q);
}

// d_ij = A_i⁻¹ x̄_ij w_ij.
fn mls_weight(frame_i: MlsFrame, reference_j: vec4<f32>) -> vec3<f32> {
    return moment_inverse(frame_i) * weighted_offset(frame_i, reference_j);
}
