// Pass 3, `Body::phyxel_stresses_at` (crates/phyxel/src/meshless/body.rs and elasticity.rs): per
// phyxel, the MLS displacement gradient ∇u_i = Σ_j (u_j − u_i) d_ijᵀ (MKN04 eq. 8), the Green strain
// ε = ½(∇u + ∇uᵀ + ∇uᵀ∇u) minus the plastic strain, Hooke's stress σ = λ tr(ε) I + 2μ ε, and the
// force matrix M_i = −V_i (J σ + k_v (det J − 1) cof J) (MKN04 §4; thesis eqs. 3.42–3.43, 3.62), stored
// times A_i⁻¹: the gather's M_i d_ij is then (M_i A_i⁻¹)(x̄_ij w_ij), no moment inverse per edge. In a
// cut body (cut_weights.wgsl) J is the elastic J_i G_i and M_i is taken times G_iᵀ
// (`Body::phyxel_stress_of`).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> displacement: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> start: array<u32>;
@group(0) @binding(3) var<storage, read> neighbour: array<u32>;
@group(0) @binding(4) var<storage, read> mls_frame: array<MlsFrame>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read> plastic_strain: array<mat3x3<f32>>;
@group(0) @binding(7) var<storage, read_write> force_matrix: array<mat3x3<f32>>;

fn cofactor(j: mat3x3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(cross(j[1], j[2]), cross(j[2], j[0]), cross(j[0], j[1]));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn phyxel_stresses(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || !owns_row(start[i])) {
        return;
    }
    let grad_u = elastic_gradient(i, displacement_gradient(i));
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    let j = identity + grad_u;
    let strain = green_strain(grad_u) - plastic_strain[i];
    let scale = phyxel[i].stiffness_scale;
    let lambda = scale * params.lambda;
    let mu = scale * params.mu;
    let trace = strain[0].x + strain[1].y + strain[2].z;
    let stress = lambda * trace * identity + 2.0 * mu * strain;
    let volume_error = determinant(j) - 1.0;
    let piola = j * stress + params.volume_stiffness * volume_error * cofactor(j);
    force_matrix[i] = corrected_force_matrix(i, -phyxel[i].volume * piola) * moment_inverse(mls_frame[i]);
}
