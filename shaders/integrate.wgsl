// Pass 5, `Simulation::step` (crates/phyxel/src/meshless/simulation.rs) with symplectic Euler
// (integrators.rs): v ← v + Δt ((f + f_drag)/m + g − c v), u ← u + Δt v; a phyxel faster than the travel bound
// (MAX_TRAVEL_PER_STEP · h / Δt) or not finite raises the blow-up flag; then each collider projects the
// phyxel out and applies Coulomb friction (`collision::resolve_contact`).

// kind 0: plane n·x = offset (a: n, offset in shape.y); 1: sphere (a: centre, radius in shape.y);
// 2: box walls (a: min, b: max).
struct Collider {
    shape: vec4<f32>,
    a: vec4<f32>,
    b: vec4<f32>,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> displacement: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> velocity: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> forces: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read> colliders: array<Collider>;
@group(0) @binding(7) var<storage, read_write> status: array<atomic<u32>>;

// (signed distance, outward normal) of `x` to collider `c` (`Collider::signed_distance`).
fn signed_distance(c: Collider, x: vec3<f32>) -> vec4<f32> {
    let kind = u32(c.shape.x + 0.5);
    if (kind == 0u) {
        return vec4<f32>(dot(c.a.xyz, x) - c.shape.y, c.a.xyz);
    }
    if (kind == 1u) {
        let offset = x - c.a.xyz;
        let length_ = length(offset);
        var normal = vec3<f32>(0.0, 1.0, 0.0);
        if (length_ > 0.0) {
            normal = offset / length_;
        }
        return vec4<f32>(length_ - c.shape.y, normal);
    }
    var best = vec4<f32>(x.x - c.a.x, 1.0, 0.0, 0.0);
    var walls = array<vec4<f32>, 5>(
        vec4<f32>(c.b.x - x.x, -1.0, 0.0, 0.0),
        vec4<f32>(x.y - c.a.y, 0.0, 1.0, 0.0),
        vec4<f32>(c.b.y - x.y, 0.0, -1.0, 0.0),
        vec4<f32>(x.z - c.a.z, 0.0, 0.0, 1.0),
        vec4<f32>(c.b.z - x.z, 0.0, 0.0, -1.0),
    );
    for (var w = 0u; w < 5u; w++) {
        if (walls[w].x < best.x) {
            best = walls[w];
        }
    }
    return best;
}

fn finite(v: vec3<f32>) -> bool {
    // NaN fails every comparison; ±∞ exceeds the largest f32.
    return all(abs(v) <= vec3<f32>(3.0e38));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.counts.x) {
        return;
    }
    let dt = params.gravity_dt.w;
    var v = velocity[i].xyz;
    var u = displacement[i].xyz;
    var force = forces[i].xyz;
    if (params.counts.z == i + 1u) {
        // The drag spring k·(target − x), its stretch capped (`Drag::max_stretch`).
        let pull = params.drag.xyz - (reference[i].xyz + u);
        let stretch = length(pull);
        var capped = pull;
        if (stretch > params.contact.z) {
            capped = pull * (params.contact.z / stretch);
        }
        force += params.drag.w * capped;
    }
    let acceleration = force / phyxel[i].mass + params.gravity_dt.xyz - params.material.w * v;
    v += dt * acceleration;
    u += dt * v;
    if (!finite(u) || !finite(v) || length(v) > params.contact.y) {
        atomicOr(&status[0], 1u);
    }
    let friction = params.contact.x;
    for (var k = 0u; k < params.counts.y; k++) {
        let hit = signed_distance(colliders[k], reference[i].xyz + u);
        let phi = hit.x;
        if (phi < 0.0) {
            let normal = hit.yzw;
            let v_n = dot(v, normal);
            let normal_loss = max(-v_n, 0.0);
            if (v_n < 0.0) {
                v -= v_n * normal;
            }
            let tangential = v - dot(v, normal) * normal;
            let speed = length(tangential);
            if (speed > 0.0) {
                let kept = max(1.0 - friction * normal_loss / speed, 0.0);
                v -= (1.0 - kept) * tangential;
            }
            u -= phi * normal;
        }
    }
    velocity[i] = vec4<f32>(v, 0.0);
    displacement[i] = vec4<f32>(u, 0.0);
}
