// One corotated implicit Euler step (crates/phyxel/src/meshless/implicit.rs, `velocity_change`, and
// `Simulation::advance_implicit` / `Simulation::step` in simulation.rs; Brunet et al. 2019 §3.6):
//
//   (M (1 + Δt α) − (Δt β + Δt²) K) Δv = Δt (f + m g + f_drag − α M v) + (Δt β + Δt²) K v,
//
// solved by conjugate_gradient.wgsl with fixed phyxels as Baraff & Witkin filters and the obstacles'
// contacts, found at the predicted positions x̃ = x + Δt v, as their constraints with a prescribed
// normal velocity change (Δv = z̄ + S y, CG on S A S y = S (b − A z̄)) and a friction drag lagged on
// the last step's impulse (implicit.rs, "Obstacles inside the solve"); then a held contact whose
// impulse comes out adhesive is let go, a free one the solve carried in is held, and if that changed
// the set the system is solved once more. Then v ← v + Δv, u ← u + Δt v, the blow-up checks and the
// colliders. The passes, in the order the host dispatches them:
//
//   corotated_stresses, gather_forces                 f_elastic (corotated.wgsl, gather_forces.wgsl)
//   implicit_begin                                    contacts, b − A z̄ without K, Q = v + z̄
//   stiffness_stresses, gather_forces, implicit_rhs   b += (Δt β + Δt²) K (v + z̄); x₀ = S Δv_last
//   stiffness_diagonal                                the block-Jacobi preconditioner
//   stiffness_stresses, gather_forces, cg_start, …    CG (conjugate_gradient.wgsl), then cg_finish
//   stiffness_stresses, gather_forces, contact_impulses  J; the set for solve 2, Q = its Δz̄
//   cg_restart, stiffness_stresses, gather_forces, prescribed_rhs, stiffness_diagonal, …,
//     contact_impulses                                the second solve, when the set changed
//   implicit_integrate, rotation_per_step, implicit_collide

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> displacement: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> velocity: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> forces: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(6) var<storage, read> colliders: array<Collider>;
@group(0) @binding(7) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> work: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> contact: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> start: array<u32>;
@group(0) @binding(11) var<storage, read> neighbour: array<u32>;
@group(0) @binding(12) var<storage, read> mls_frame: array<MlsFrame>;

fn vector(s: u32, i: u32) -> vec3<f32> {
    return work[section(s) + i].xyz;
}

fn store(s: u32, i: u32, v: vec3<f32>) {
    work[section(s) + i] = vec4<f32>(v, 0.0);
}

fn is_fixed(i: u32) -> bool {
    return phyxel[i].fixed > 0.5;
}

fn constraint_filter(i: u32) -> mat3x3<f32> {
    return filter_of(i, contact[i], phyxel[i].fixed);
}

// A unit vector along s, or zero.
fn direction(s: vec3<f32>) -> vec3<f32> {
    let length_s = length(s);
    if (length_s > 0.0) {
        return s / length_s;
    }
    return vec3<f32>(0.0);
}

// `Friction::start`: (Δt η, sliding impulse) — sticking (c m, 0) where μ J ≥ m |s|, else sliding
// (0, μ J); (0, 0) without a push.
fn friction_start(limit: f32, slip: vec3<f32>, mass: f32) -> vec2<f32> {
    if (limit <= 0.0) {
        return vec2<f32>(0.0);
    }
    if (limit >= mass * length(slip)) {
        return vec2<f32>(STICKING_DRAG * mass, 0.0);
    }
    return vec2<f32>(0.0, limit);
}

// `Friction::rhs`: −Δt η T v − μ J ŝ.
fn friction_rhs(i: u32, v: vec3<f32>) -> vec3<f32> {
    let n = contact[i].xyz;
    let obstacle = work[section(IMPULSE) + i];
    return -obstacle.z * (v - dot(v, n) * n) - obstacle.w * work[section(SLIP) + i].xyz;
}

// What holding phyxel i adds to b − A z̄ besides (Δt β + Δt²) K z̄: −(1 + Δt α) m z̄_i (A's mass part)
// and its friction's `friction_rhs`.
fn held_rhs(i: u32, v: vec3<f32>) -> vec3<f32> {
    let n = contact[i].xyz;
    let z = work[section(IMPULSE) + i].y;
    return -(phyxel[i].mass * mass_factor() * z) * n + friction_rhs(i, v);
}

// Fixed phyxels stop; find the obstacle contacts at x̃ = x + Δt v (the first collider within
// `contact_margin`: its normal at x̃, held where within `contact_distance`), each with its prescribed
// z = −max(φ(x), 0)/Δt − n·v and its friction drag from the last step's impulse; b − A z̄ without the
// K z̄ part: Δt (f_elastic + m g + f_drag − α m v) + the held ones' `held_rhs`, with the forces of
// fixed phyxels zeroed; Q = v + z̄ for K (v + z̄); reset the CG scalars.
@compute @workgroup_size(WORKGROUP_SIZE)
fn implicit_begin(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i == 0u) {
        work[scalar_index(0u)] = vec4<f32>(0.0);
        work[scalar_index(1u)] = vec4<f32>(0.0, 0.0, 0.0, RUNNING);
        work[scalar_index(2u)] = vec4<f32>(1.0, 0.0, 0.0, 0.0);
    }
    if (i >= params.phyxels) {
        return;
    }
    var v = velocity[i].xyz;
    if (is_fixed(i)) {
        v = vec3<f32>(0.0);
        velocity[i] = vec4<f32>(0.0);
    }
    let x = reference[i].xyz + displacement[i].xyz;
    let mass = phyxel[i].mass;
    let last_impulse = work[section(IMPULSE) + i].x;
    var touching = vec4<f32>(0.0, 0.0, 0.0, NO_CONTACT);
    var obstacle = vec4<f32>(0.0);
    for (var k = 0u; k < params.colliders && !is_fixed(i); k++) {
        let hit = signed_distance(colliders[k], x + params.dt * v);
        if (hit.x <= params.contact_margin) {
            let n = hit.yzw;
            touching = vec4<f32>(n, select(FREE, HELD, hit.x <= params.contact_distance));
            let change = -max(signed_distance(colliders[k], x).x, 0.0) / params.dt - dot(n, v);
            let limit = max(params.friction * last_impulse, 0.0);
            let slip = v - dot(v, n) * n;
            obstacle = vec4<f32>(0.0, change, friction_start(limit, slip, mass));
            work[section(SLIP) + i] = vec4<f32>(direction(slip), limit);
            break;
        }
    }
    contact[i] = touching;
    work[section(IMPULSE) + i] = obstacle;
    var force = forces[i].xyz + mass * params.gravity;
    if (params.dragged == i + 1u) {
        // The drag spring k·(target − x), its stretch capped (`Drag::force`).
        let pull = params.drag_target - x;
        let stretch = length(pull);
        var capped = pull;
        if (stretch > params.drag_max_stretch) {
            capped = pull * (params.drag_max_stretch / stretch);
        }
        force += params.drag_stiffness * capped;
    }
    if (is_fixed(i)) {
        force = vec3<f32>(0.0);
    }
    let dt = params.dt;
    var b = dt * (force - params.mass_damping * mass * v);
    if (touching.w == HELD) {
        b += held_rhs(i, v);
    }
    store(B, i, b);
    store(Q, i, v + prescribed(i));
}

// b += (Δt β + Δt²) K (v + z̄) (in `forces`); the initial guess x₀ = S Δv_last, and Q = x₀.
@compute @workgroup_size(WORKGROUP_SIZE)
fn implicit_rhs(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    store(B, i, vector(B, i) + stiffness_factor() * forces[i].xyz);
    let x0 = constraint_filter(i) * vector(GUESS, i);
    store(X, i, x0);
    store(Q, i, x0);
}

// J = n·(A Δv − b) = n·(A S y − (b − A z̄)) for each held contact (K S y in `forces`, S y in Q); kept,
// at least 0, for the next step's friction. After the first solve, a held contact with J < 0 is let
// go and a free one the solve carried in (n·Δv < z) is held: b − A z̄ changes by −A Δz̄, here all but
// its (Δt β + Δt²) K Δz̄ part, which prescribed_rhs adds from Q = Δz̄. Nothing after a skipped solve.
@compute @workgroup_size(WORKGROUP_SIZE)
fn contact_impulses(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || cg_skipped()) {
        return;
    }
    let c = contact[i];
    let obstacle = work[section(IMPULSE) + i];
    var impulse = 0.0;
    if (c.w == HELD) {
        let y = vector(Q, i);
        let a_y = phyxel[i].mass * mass_factor() * y - stiffness_factor() * forces[i].xyz;
        impulse = dot(c.xyz, a_y - vector(B, i));
    }
    work[section(IMPULSE) + i] = vec4<f32>(max(impulse, 0.0), obstacle.yzw);
    if (work[scalar_index(2u)].x != 1.0) {
        return;
    }
    var change = vec3<f32>(0.0);
    if (c.w == HELD && impulse >= 0.0) {
        // `Friction::after_solve`: a sticking drag beyond the cone slides along the slip it left, a
        // sliding impulse that turned the slip back sticks.
        let v = velocity[i].xyz;
        let v_end = v + vector(DV, i);
        let slip_end = v_end - dot(v_end, c.xyz) * c.xyz;
        let slip = work[section(SLIP) + i];
        var friction = obstacle.zw;
        var slip_direction = slip.xyz;
        if (obstacle.z > 0.0 && obstacle.z * length(slip_end) > slip.w) {
            friction = vec2<f32>(0.0, slip.w);
            slip_direction = direction(slip_end);
        } else if (obstacle.w > 0.0 && dot(slip_end, slip.xyz) < 0.0) {
            friction = vec2<f32>(STICKING_DRAG * phyxel[i].mass, 0.0);
        }
        if (any(friction != obstacle.zw)) {
            let before = friction_rhs(i, v);
            work[section(IMPULSE) + i] = vec4<f32>(max(impulse, 0.0), obstacle.y, friction);
            work[section(SLIP) + i] = vec4<f32>(slip_direction, slip.w);
            store(B, i, vector(B, i) + friction_rhs(i, v) - before);
            let solve = work[scalar_index(2u)];
            work[scalar_index(2u)] = vec4<f32>(1.0, 1.0, solve.z, solve.w);
        }
    } else if ((c.w == HELD && impulse < 0.0) || (c.w == FREE && dot(c.xyz, vector(DV, i)) < obstacle.y)) {
        let v = velocity[i].xyz;
        let rhs = held_rhs(i, v);
        if (c.w == HELD) {
            change = -prescribed(i);
            contact[i] = vec4<f32>(c.xyz, FREE);
            store(B, i, vector(B, i) - rhs);
        } else {
            contact[i] = vec4<f32>(c.xyz, HELD);
            change = prescribed(i);
            store(B, i, vector(B, i) + rhs);
        }
        let solve = work[scalar_index(2u)];
        work[scalar_index(2u)] = vec4<f32>(1.0, 1.0, solve.z, solve.w);
    }
    store(Q, i, change);
}

// Between the solves: the second runs only if the set of held contacts changed.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_restart(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x != 0u) {
        return;
    }
    let solve = work[scalar_index(2u)];
    let changed = solve.y == 1.0;
    work[scalar_index(2u)] = vec4<f32>(2.0, solve.y, select(1.0, 0.0, changed), solve.w);
    let flags = work[scalar_index(1u)];
    if (changed) {
        work[scalar_index(1u)] = vec4<f32>(flags.xyz, RUNNING);
    }
}

// `implicit::prescribed_rhs` for the second solve: b − A z̄ gets the (Δt β + Δt²) K Δz̄ of the changed
// contacts (K Δz̄ in `forces`); the second solve starts from x₀ = S Δv, and Q = x₀.
@compute @workgroup_size(WORKGROUP_SIZE)
fn prescribed_rhs(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || cg_skipped()) {
        return;
    }
    store(B, i, vector(B, i) + stiffness_factor() * forces[i].xyz);
    let x0 = constraint_filter(i) * vector(DV, i);
    store(X, i, x0);
    store(Q, i, x0);
}

// v ← v + Δv, u ← u + Δt v except for fixed phyxels; Δv is the next step's guess. Non-finite values
// raise the blow-up flag.
@compute @workgroup_size(WORKGROUP_SIZE)
fn implicit_integrate(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    let dv = vector(DV, i);
    store(GUESS, i, dv);
    let v = velocity[i].xyz + dv;
    var u = displacement[i].xyz;
    if (!is_fixed(i)) {
        u += params.dt * v;
    }
    if (!finite(u) || !finite(v)) {
        atomicOr(&status[STATUS_BLOWN_UP], 1u);
    }
    velocity[i] = vec4<f32>(v, 0.0);
    displacement[i] = vec4<f32>(u, 0.0);
}

// Δt |ω_i| beyond MAX_ROTATION_PER_STEP raises the blow-up flag (`largest_rotation_per_step`), with
// |ω| = ‖W‖/√2 from the spin W = ½(∇v − ∇vᵀ) of the MLS velocity gradient.
@compute @workgroup_size(WORKGROUP_SIZE)
fn rotation_per_step(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || !owns_row(start[i])) {
        return;
    }
    let v_i = velocity[i].xyz;
    let frame_i = mls_frame[i];
    var sum = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var e = start[i]; e < start[i + 1u]; e++) {
        let j = neighbour[row_slot(e)];
        let dvel = velocity[j].xyz - v_i;
        let w = weighted_offset(frame_i, mls_frame[j].reference);
        sum += mat3x3<f32>(dvel * w.x, dvel * w.y, dvel * w.z);
    }
    // ∇v_i = Σ_j (v_j − v_i) d_ijᵀ, with A_i⁻¹ applied once.
    let grad_v = sum * transpose(moment_inverse(frame_i));
    let spin = 0.5 * (grad_v - transpose(grad_v));
    let angular_speed = sqrt(dot(spin[0], spin[0]) + dot(spin[1], spin[1]) + dot(spin[2], spin[2])) / sqrt(2.0);
    if (!(params.dt * angular_speed <= MAX_ROTATION_PER_STEP)) {
        atomicOr(&status[STATUS_BLOWN_UP], 1u);
    }
}

// The colliders project the phyxels out, with friction (`resolve_contact`); fixed phyxels stay.
@compute @workgroup_size(WORKGROUP_SIZE)
fn implicit_collide(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || is_fixed(i)) {
        return;
    }
    var u = displacement[i].xyz;
    var v = velocity[i].xyz;
    resolve_contacts(reference[i].xyz, &u, &v);
    velocity[i] = vec4<f32>(v, 0.0);
    displacement[i] = vec4<f32>(u, 0.0);
}
