// `collision::resolve_contact` for every collider, shared by integrate.wgsl and implicit.wgsl (prepended
// to them): each collider a phyxel is inside projects it out along the normal, removes the approaching
// normal velocity and applies Coulomb friction. Needs `params` and `colliders`.

// (signed distance, outward normal) of `x` to collider `c` (`Collider::signed_distance`).
fn signed_distance(c: Collider, x: vec3<f32>) -> vec4<f32> {
    let kind = c.kind;
    if (kind == 0u) {
        return vec4<f32>(dot(c.a.xyz, x) - c.extent, c.a.xyz);
    }
    if (kind == 1u) {
        let offset = x - c.a.xyz;
        let length_ = length(offset);
        var normal = vec3<f32>(0.0, 1.0, 0.0);
        if (length_ > 0.0) {
            normal = offset / length_;
        }
        return vec4<f32>(length_ - c.extent, normal);
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

// Project the phyxel at x̄ + u out of every collider, with friction (params.friction).
fn resolve_contacts(reference_position: vec3<f32>, u_in: ptr<function, vec3<f32>>, v_in: ptr<function, vec3<f32>>) {
    var u = *u_in;
    var v = *v_in;
    let friction = params.friction;
    for (var k = 0u; k < params.colliders; k++) {
        let hit = signed_distance(colliders[k], reference_position + u);
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
    *u_in = u;
    *v_in = v;
}
