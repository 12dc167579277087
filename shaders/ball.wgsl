// The struck slab's ball (`Ball::step` and `Ball::strike`, crates/phyxel/src/meshless/fracture/slab.rs),
// after each step's motion (before its heat, plastic flow and fracture: `Simulation::step_with_contacts`): `move_ball` moves it by Δt V; `strike` resolves every free phyxel inside it against
// it in its frame (`resolve_contact` of collision.wgsl on v − V, with the environment's friction):
// projected onto its surface, the relative velocity into it removed, the momentum it gained,
// m (v' − v), kept per phyxel; `ball_recoil` takes their sum off the ball, V ← V − Σ/M, so that the
// contact never adds momentum (or energy).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> displacement: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> velocity: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(5) var<storage, read_write> ball: Ball;
@group(0) @binding(6) var<storage, read_write> gained: array<vec4<f32>>;

@compute @workgroup_size(1)
fn move_ball() {
    ball.centre += params.dt * ball.velocity;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn strike(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    gained[i] = vec4<f32>(0.0);
    if (phyxel[i].fixed > 0.5) {
        return;
    }
    let sphere = Collider(1u, ball.radius, 0.0, 0.0, vec4<f32>(ball.centre, 0.0), vec4<f32>(0.0));
    let x = reference[i].xyz + displacement[i].xyz;
    let v = velocity[i].xyz;
    var relative = v - ball.velocity;
    let correction = resolve_contact(sphere, x, &relative, params.friction);
    if (all(correction == vec3<f32>(0.0))) {
        return;
    }
    let struck = relative + ball.velocity;
    displacement[i] = vec4<f32>(displacement[i].xyz + correction, 0.0);
    velocity[i] = vec4<f32>(struck, 0.0);
    gained[i] = vec4<f32>(phyxel[i].mass * (struck - v), 0.0);
}

var<workgroup> partial: array<vec3<f32>, WORKGROUP_SIZE>;

// One workgroup: each invocation sums a stride of the phyxels' gains, then a tree sums the invocations'.
@compute @workgroup_size(WORKGROUP_SIZE)
fn ball_recoil(@builtin(local_invocation_index) lane: u32) {
    var sum = vec3<f32>(0.0);
    for (var i = lane; i < params.phyxels; i += WORKGROUP_SIZE) {
        sum += gained[i].xyz;
    }
    partial[lane] = sum;
    workgroupBarrier();
    for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
        if (lane < stride) {
            partial[lane] += partial[lane + stride];
        }
        workgroupBarrier();
    }
    if (lane == 0u) {
        ball.velocity -= partial[0] / ball.mass;
    }
}
