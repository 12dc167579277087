// The fracture scenes' grips (`Grips::step`, crates/phyxel/src/meshless/fracture/scenes.rs, and
// `PullingGrips::step`, fracture/ductile.rs): before each step, `hold_grips` moves every phyxel the
// grips hold to its place at the step's end, u_i = s_k a_i — a_i its direction (`GripPath`), s_k the
// grips' law at the end of step k of the batch, written by the host (`GpuSolver::set_grip_scales`; past
// the last value written the grips hold still) — and `next_grip_step` counts the step. integrate.wgsl
// then keeps a held phyxel there, at rest.

@group(0) @binding(0) var<storage, read> grips: array<Grip>;
@group(0) @binding(1) var<storage, read> grip_scales: array<f32>;
@group(0) @binding(2) var<storage, read_write> grip_params: GripParams;
@group(0) @binding(3) var<storage, read_write> displacement: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn hold_grips(@builtin(global_invocation_id) id: vec3<u32>) {
    let g = id.x;
    if (g >= grip_params.grips || grip_params.scales == 0u) {
        return;
    }
    let s = grip_scales[min(grip_params.step, grip_params.scales - 1u)];
    let grip = grips[g];
    displacement[grip.phyxel] = vec4<f32>(s * grip.direction, 0.0);
}

@compute @workgroup_size(1)
fn next_grip_step() {
    grip_params.step += 1u;
}
