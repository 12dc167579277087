// `collision::resolve_contact` (crates/phyxel/src/meshless/collision.rs), shared by integrate.wgsl and
// implicit.wgsl (with colliders.wgsl, the environment's colliders) and ball.wgsl (the struck slab's ball),
// prepended to them: a collider a phyxel is inside projects it out along the normal, removes the
// approaching normal velocity and applies Coulomb friction. Functions of their arguments only.

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

// `resolve_contact`: the phyxel at `x` with velocity *v_in, inside collider `c`, gets its approaching
// normal velocity removed and Coulomb friction (coefficient `friction`) applied to its sliding; returns
// the correction −φ n that projects it onto the surface (zero outside).
fn resolve_contact(c: Collider, x: vec3<f32>, v_in: ptr<function, vec3<f32>>, friction: f32) -> vec3<f32> {
    let hit = signed_distance(c, x);
    let phi = hit.x;
    if (phi >= 0.0) {
        return vec3<f32>(0.0);
    }
    let normal = hit.yzw;
    var v = *v_in;
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
    *v_in = v;
    return -phi * normal;
}
