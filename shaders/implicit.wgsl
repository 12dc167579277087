// One corotated implicit Euler step (crates/phyxel/src/meshless/implicit.rs, `velocity_change`, and
// `Simulation::advance_implicit` / `Simulation::step` in simulation.rs; Brunet et al. 2019 §3.6):
//
//   (M (1 + Δt α) − (Δt β + Δt²) K) Δv = Δt (f + m g + f_drag − α M v) + (Δt β + Δt²) K v,
//
// solved by conjugate_gradient.wgsl with fixed phyxels and resting contacts as Baraff & Witkin filters;
// a contact whose impulse comes out adhesive is released and the system solved once more. Then
// v ← v + Δv with Coulomb friction from the contact impulses, u ← u + Δt v, the blow-up checks and the
// colliders. The passes, in the order the host dispatches them:
//
//   corotated_stresses, gather_forces                 f_elastic (corotated.wgsl, gather_forces.wgsl)
//   implicit_begin                                    contacts, b without K v, Q = v
//   stiffness_stresses, gather_forces, implicit_rhs   b += (Δt β + Δt²) K v; x₀ = S Δv_last
//   stiffness_diagonal                                the block-Jacobi preconditioner
//   stiffness_stresses, gather_forces, cg_start, …    CG (conjugate_gradient.wgsl), then cg_finish
//   stiffness_stresses, gather_forces, contact_impulses
//   cg_restart, stiffness_diagonal, … contact_impulses the second solve, when a contact was released
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

// Fixed phyxels stop; find the resting contacts (within `touching` of an obstacle: the first such
// collider's normal); b = Δt (f_elastic + m g + f_drag − α m v), with the forces of fixed phyxels
// zeroed; Q = v for K v; reset the CG scalars.
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
    var touching = vec4<f32>(0.0, 0.0, 0.0, NO_CONTACT);
    for (var k = 0u; k < params.colliders; k++) {
        let hit = signed_distance(colliders[k], x);
        if (hit.x <= params.contact_distance) {
            touching = vec4<f32>(hit.yzw, IN_CONTACT);
            break;
        }
    }
    contact[i] = touching;
    let mass = phyxel[i].mass;
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
    store(B, i, dt * (force - params.mass_damping * mass * v));
    store(Q, i, v);
}

// b += (Δt β + Δt²) K v (K v in `forces`); the initial guess x₀ = S Δv_last, and Q = x₀.
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

// J = n·(A Δv − b) for each resting contact (A Δv unfiltered, K Δv in `forces`); in the first solve an
// adhesive one (J < 0) is released. J is kept, at least 0, for friction.
@compute @workgroup_size(WORKGROUP_SIZE)
fn contact_impulses(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    var impulse = 0.0;
    let c = contact[i];
    if (c.w == IN_CONTACT) {
        let dv = vector(DV, i);
        let a_dv = phyxel[i].mass * mass_factor() * dv - stiffness_factor() * forces[i].xyz;
        impulse = dot(c.xyz, a_dv - vector(B, i));
        if (impulse < 0.0 && work[scalar_index(2u)].x == 1.0) {
            contact[i] = vec4<f32>(c.xyz, RELEASED);
            let solve = work[scalar_index(2u)];
            work[scalar_index(2u)] = vec4<f32>(1.0, 1.0, solve.z, solve.w);
        }
    }
    work[section(IMPULSE) + i] = vec4<f32>(max(impulse, 0.0), 0.0, 0.0, 0.0);
}

// The second solve, from x₀ = S Δv with the released contacts free — or, when none was released,
// nothing (the state says so, and the CG kernels leave Δv as it is).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_restart(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let solve = work[scalar_index(2u)];
    let released = solve.y == 1.0;
    if (i == 0u) {
        work[scalar_index(2u)] = vec4<f32>(2.0, solve.y, select(1.0, 0.0, released), solve.w);
        let flags = work[scalar_index(1u)];
        if (released) {
            work[scalar_index(1u)] = vec4<f32>(flags.xyz, RUNNING);
        }
    }
    if (i >= params.phyxels || !released) {
        return;
    }
    let x0 = constraint_filter(i) * vector(DV, i);
    store(X, i, x0);
    store(Q, i, x0);
}

// v ← v + Δv, Coulomb friction at the contacts (the tangential speed loses at most μ J / m),
// u ← u + Δt v except for fixed phyxels; Δv is the next step's guess. Non-finite values raise the
// blow-up flag.
@compute @workgroup_size(WORKGROUP_SIZE)
fn implicit_integrate(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    let dv = vector(DV, i);
    store(GUESS, i, dv);
    var v = velocity[i].xyz + dv;
    let c = contact[i];
    if (c.w != NO_CONTACT) {
        let normal = c.xyz;
        let tangential = v - dot(v, normal) * normal;
        let speed = length(tangential);
        if (speed > 0.0) {
            let impulse = work[section(IMPULSE) + i].x;
            let loss = min(params.friction * impulse / phyxel[i].mass, speed);
            v -= (loss / speed) * tangential;
        }
    }
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
