// Pass 7, the plasticity of `Simulation::step` (crates/phyxel/src/meshless/simulation.rs and
// plasticity.rs; MKN04 §5.1, tutorial §7.3): at the new displacements each phyxel's total Green
// strain ε = ½(∇u + ∇uᵀ + ∇uᵀ∇u) (of the elastic J_i G_i in a cut body) feeds its plastic strain:
//   ε_elastic = ε − ε_plastic;  if ‖ε_elastic‖ > c_yield·s_i: ε_plastic += min(c_creep Δt, 1) ε_elastic;
//   if ‖ε_plastic‖ > c_max: ε_plastic ← ε_plastic · c_max / ‖ε_plastic‖,
// (s_i: the melting stiffness factor — a warm phyxel yields earlier), and the largest ‖ε‖ is kept
// (STATUS_LARGEST_STRAIN since the start, STATUS_STEP_STRAIN in this step; as f32 bits: non-negative floats order like their
// bits) for the reference update (reference_update.wgsl).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> displacement: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> start: array<u32>;
@group(0) @binding(3) var<storage, read> neighbour: array<u32>;
@group(0) @binding(4) var<storage, read> mls_frame: array<MlsFrame>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read_write> plastic_strain: array<mat3x3<f32>>;
@group(0) @binding(7) var<storage, read_write> status: array<atomic<u32>>;

// The Frobenius norm ‖A‖ = √(A:A).
fn norm(a: mat3x3<f32>) -> f32 {
    return sqrt(dot(a[0], a[0]) + dot(a[1], a[1]) + dot(a[2], a[2]));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn plastic_flow(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || !owns_row(start[i])) {
        return;
    }
    let total = green_strain(elastic_gradient(i, displacement_gradient(i)));
    atomicMax(&status[STATUS_LARGEST_STRAIN], bitcast<u32>(norm(total)));
    atomicMax(&status[STATUS_STEP_STRAIN], bitcast<u32>(norm(total)));
    var plastic = plastic_strain[i];
    let elastic = total - plastic;
    if (norm(elastic) > params.yield_strain * phyxel[i].stiffness_scale) {
        plastic += min(params.creep * params.dt, 1.0) * elastic;
    }
    let size = norm(plastic);
    if (size > params.max_strain) {
        plastic *= params.max_strain / size;
    }
    plastic_strain[i] = plastic;
}
