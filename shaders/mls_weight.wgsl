// The MLS weights d_ij = A_i⁻¹ x̄_ij w_ij (MKN04 eq. 8; tutorial eq. 38), formed where a pass uses them
// (`MlsWeights::compute`, crates/phyxel/src/meshless/mls.rs, stores them per edge instead). A per-phyxel
// frame of 64 bytes replaces a vec4 per edge: with two to three dozen neighbours per phyxel that is a
// sixth of the memory, and the largest per-edge buffer left holds a u32 — a million phyxels' rows fit
// the 128 MiB a storage binding may hold on Mesa lavapipe. Prepended (alone, or after common.wgsl) to
// the passes that bind `mls_frame`.

// poly6(0, h) = 315 / (64 π h³).
fn poly6_at_centre(h: f32) -> f32 {
    return 315.0 / (64.0 * 3.14159265358979 * h * h * h);
}

// poly6(r, h) = 315 / (64 π h⁹) (h² − r²)³ = poly6(0, h) (1 − r²/h²)³ for r < h (MKN04 eq. 7), in the
// second form: h⁹ leaves single precision (below 1e-38) for supports under 60 µm, h³ does not.
fn poly6(r: f32, h: f32) -> f32 {
    if (r >= h) {
        return 0.0;
    }
    let s = 1.0 - (r * r) / (h * h);
    return poly6_at_centre(h) * s * s * s;
}

// Phyxel i's frame from A_i⁻¹ and (x̄_i, h_i).
fn mls_frame_of(inverse: mat3x3<f32>, reference: vec4<f32>) -> MlsFrame {
    let h = reference.w;
    return MlsFrame(
        vec4<f32>(inverse[0], 1.0 / (h * h)),
        vec4<f32>(inverse[1], poly6_at_centre(h)),
        vec4<f32>(inverse[2], 0.0),
        reference,
    );
}

fn moment_inverse(frame: MlsFrame) -> mat3x3<f32> {
    return mat3x3<f32>(frame.inverse_x.xyz, frame.inverse_y.xyz, frame.inverse_z.xyz);
}

// x̄_ij w_ij with x̄_ij = x̄_j − x̄_i and w_ij = poly6(|x̄_ij|, h_i), from |x̄_ij|² (no square root);
// `reference_j` is phyxel j's frame's reference (x̄_j, h_j). A row's sum of these times A_i⁻¹ is Σ_j d_ij.
fn weighted_offset(frame_i: MlsFrame, reference_j: vec4<f32>) -> vec3<f32> {
    let x_ij = reference_j.xyz - frame_i.reference.xyz;
    let s = max(1.0 - dot(x_ij, x_ij) * frame_i.inverse_x.w, 0.0);
    return x_ij * (frame_i.inverse_y.w * s * s * s);
}

// x̄_ij w_ij from the kernel's part of phyxel i's frame alone (x̄_i and h_i, 1/h_i², poly6(0, h_i)):
// the gathers over reverse lists meet a different i at every edge and need no more of its frame.
fn weighted_offset_from(reference_i: vec4<f32>, inverse_h2: f32, centre: f32, reference_j: vec4<f32>) -> vec3<f32> {
    let x_ij = reference_j.xyz - reference_i.xyz;
    let s = max(1.0 - dot(x_ij, x_ij) * inverse_h2, 0.0);
    return x_ij * (centre * s * s * s);
}

// d_ij = A_i⁻¹ x̄_ij w_ij.
fn mls_weight(frame_i: MlsFrame, reference_j: vec4<f32>) -> vec3<f32> {
    return moment_inverse(frame_i) * weighted_offset(frame_i, reference_j);
}
