// Pass 2, `Body::rebuild_reference` and `MlsWeights::compute` (crates/phyxel/src/meshless/body.rs and
// mls.rs): per phyxel the density ρ_i = Σ_j m_j W(|x_ij|, h_i) (i itself included) and volume
// V_i = m_i/ρ_i, the moment matrix A_i = Σ_j x_ij x_ijᵀ w_ij (MKN04 eq. 8; tutorial eq. 38) and its
// safe inverse — Jacobi eigen-decomposition, eigenvalues below SAFE_INVERSE_THRESHOLD (10⁻⁴, `mls::DEFAULT_RELATIVE_THRESHOLD`) of the largest dropped
// (`symmetric_eigen`, `safe_inverse`) — stored with x̄_i and h_i as the phyxel's MLS frame, from which
// the passes form d_ij = A_i⁻¹ x_ij w_ij (mls_weight.wgsl). `mls_weights` writes those d_ij along each
// row, for comparing them with the CPU's.

// x: phyxels. Then reference positions x̄ (xyz) and support radii h (w); masses; the rows; results.
@group(0) @binding(0) var<uniform> phyxels: Count;
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> mass: array<f32>;
@group(0) @binding(3) var<storage, read> start: array<u32>;
@group(0) @binding(4) var<storage, read> neighbour: array<u32>;
@group(0) @binding(6) var<storage, read_write> mls_frame: array<MlsFrame>;
// x: density, y: volume, z: rank (as f32), w: unused.
@group(0) @binding(7) var<storage, read_write> density_volume_rank: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> d: array<vec4<f32>>;

// `poly6` and `MlsFrame` come from mls_weight.wgsl, prepended.
// `symmetric_eigen` comes from symmetric_eigen.wgsl, prepended.

@compute @workgroup_size(WORKGROUP_SIZE)
fn moment_matrices(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= phyxels.n || !owns_row(start[i])) {
        return;
    }
    let x_i = reference[i].xyz;
    let h = reference[i].w;
    var density = mass[i] * poly6(0.0, h);
    var a = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var e = start[i]; e < start[i + 1u]; e++) {
        let j = neighbour[row_slot(e)];
        let x_ij = reference[j].xyz - x_i;
        let w = poly6(length(x_ij), h);
        density += mass[j] * w;
        a += mat3x3<f32>(x_ij * x_ij.x, x_ij * x_ij.y, x_ij * x_ij.z) * w;
    }
    var eigen = a;
    let q = symmetric_eigen(&eigen);
    let lambda = vec3<f32>(eigen[0][0], eigen[1][1], eigen[2][2]);
    let largest = max(max(abs(lambda.x), abs(lambda.y)), abs(lambda.z));
    var inverse_diagonal = vec3<f32>(0.0);
    var rank = 0.0;
    for (var k = 0u; k < 3u; k++) {
        if (largest > 0.0 && lambda[k] > SAFE_INVERSE_THRESHOLD * largest) {
            inverse_diagonal[k] = 1.0 / lambda[k];
            rank += 1.0;
        }
    }
    let diagonal = mat3x3<f32>(
        vec3<f32>(inverse_diagonal.x, 0.0, 0.0),
        vec3<f32>(0.0, inverse_diagonal.y, 0.0),
        vec3<f32>(0.0, 0.0, inverse_diagonal.z),
    );
    mls_frame[i] = mls_frame_of(q * diagonal * transpose(q), reference[i]);
    density_volume_rank[i] = vec4<f32>(density, mass[i] / density, rank, 0.0);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn mls_weights(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= phyxels.n || !owns_row(start[i])) {
        return;
    }
    let frame_i = mls_frame[i];
    for (var e = start[i]; e < start[i + 1u]; e++) {
        d[e] = vec4<f32>(mls_weight(frame_i, mls_frame[neighbour[row_slot(e)]].reference), 0.0);
    }
}
