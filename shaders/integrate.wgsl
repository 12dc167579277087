// Pass 5, `Simulation::step` (crates/phyxel/src/meshless/simulation.rs) with symplectic Euler
// (integrators.rs): v ← v + Δt ((f + f_drag)/m + g − c v), u ← u + Δt v; a phyxel faster than the travel bound
// (MAX_TRAVEL_PER_STEP · h / Δt) or not finite raises the blow-up flag; then each collider projects the
// phyxel out and applies Coulomb friction (`collision::resolve_contact`); a fixed phyxel is then held
// where it was, at rest (`Settle::phyxel`: a grip or a clamp, whose displacement the host sets).

// signed_distance, finite and resolve_contacts come from collision.wgsl, prepended; Collider from the prelude.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> displacement: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> velocity: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> forces: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read> colliders: array<Collider>;
@group(0) @binding(7) var<storage, read_write> status: array<atomic<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    let dt = params.dt;
    var v = velocity[i].xyz;
    let held = displacement[i].xyz;
    var u = held;
    var force = forces[i].xyz;
    if (params.dragged == i + 1u) {
        // The drag spring k·(target − x), its stretch capped (`Drag::max_stretch`).
        let pull = params.drag_target - (reference[i].xyz + u);
        let stretch = length(pull);
        var capped = pull;
        if (stretch > params.drag_max_stretch) {
            capped = pull * (params.drag_max_stretch / stretch);
        }
        force += params.drag_stiffness * capped;
    }
    let acceleration = force / phyxel[i].mass + params.gravity - params.damping * v;
    v += dt * acceleration;
    u += dt * v;
    if (!finite(u) || !finite(v) || length(v) > params.max_speed) {
        atomicOr(&status[STATUS_BLOWN_UP], 1u);
    }
    resolve_contacts(reference[i].xyz, &u, &v);
    if (phyxel[i].fixed > 0.5) {
        u = held;
        v = vec3<f32>(0.0);
    }
    velocity[i] = vec4<f32>(v, 0.0);
    displacement[i] = vec4<f32>(u, 0.0);
}
