// `conjugate_gradient::solve` (crates/phyxel/src/conjugate_gradient.rs) as `implicit::velocity_change`
// calls it: block-Jacobi preconditioned CG on Baraff & Witkin's filtered system
//
//   apply(z) = S A (S z) + (I − S) z,  A z = m (1 + Δt α) z − (Δt β + Δt²) K z + O z,
//
// right-hand side S b with b the prescribed solve's b − A z̄ (implicit.wgsl), O the held phyxels'
// friction drag (`obstacle_block`); Δv = z̄ + S x.
//
// The host dispatches, per iteration: cg_stiffness_stresses (the force matrices of K S p for the new
// direction p = z + β p, formed on the fly), cg_product (p = z + β p, its own row of the force gather
// K S p, A p, and the partial sums of p·Ap), cg_reduce_curvature (α), cg_update (x, r, z and the partial
// sums of r·r, r·z), cg_reduce_direction (convergence, β): five dispatches. For a body integrated by
// background quadrature, cg_stiffness_product and cg_gather (quadrature.wgsl) leave K S p in `forces`
// and cg_gathered_product takes cg_product's place: six.
// Once CG has converged or stopped, every kernel leaves the state alone: the host dispatches a fixed
// number of iterations (the iteration limit) in one submission, with no read-back in between.
// The reductions are two-level: a partial sum per workgroup, then one workgroup adds the partials.
// Not mirrored yet: the CPU's solve deflates the rigid translations (`crates/phyxel/src/deflation.rs`,
// `implicit::translations`); this one is plain block-Jacobi PCG, which needs more iterations for the
// same tolerance where the residual is a translation (a body falling freely with damping).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> forces: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> phyxel: array<Phyxel>;
@group(0) @binding(3) var<storage, read_write> work: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> contact: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> frames: array<Frame>;
@group(0) @binding(6) var<storage, read> force_matrix: array<mat3x3<f32>>;
@group(0) @binding(7) var<storage, read> mls_frame: array<MlsFrame>;
@group(0) @binding(8) var<storage, read> reverse_start: array<u32>;
// Reverse lists of owners.
@group(0) @binding(9) var<storage, read> reverse: array<u32>;

fn vector(s: u32, i: u32) -> vec3<f32> {
    return work[section(s) + i].xyz;
}

fn store(s: u32, i: u32, v: vec3<f32>) {
    work[section(s) + i] = vec4<f32>(v, 0.0);
}

fn constraint_filter(i: u32) -> mat3x3<f32> {
    return filter_of(i, contact[i], phyxel[i].fixed);
}

// apply(z)_i from z_i and (K S z)_i.
fn apply_row(i: u32, z: vec3<f32>, ksz: vec3<f32>) -> vec3<f32> {
    let s = constraint_filter(i);
    let a_sz = phyxel[i].mass * mass_factor() * (s * z) - stiffness_factor() * ksz + obstacle_block(i) * (s * z);
    return s * a_sz + (z - s * z);
}

// The sum of the partials of all workgroups, by one workgroup.
fn sum_partials(local: u32) -> vec4<f32> {
    var total = vec4<f32>(0.0);
    for (var g = local; g < workgroups(); g += WORKGROUP_SIZE) {
        total += work[partial_index(g)];
    }
    return workgroup_sum(local, total);
}

// CG set-up from x₀ (in X) and K S x₀ (in `forces`): r = S b − apply(x₀), z = P r, p = z, Q = S p;
// partial sums of (|S b|², r·r, r·z, S b·P S b) — the last for a start from x₀ = 0 instead (r = S b),
// should x₀ turn out worse than none. Skipped (the state kept) when the second solve is not needed.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_start(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    let skipped = cg_skipped();
    var sums = vec4<f32>(0.0);
    if (i < params.phyxels && !skipped) {
        let s = constraint_filter(i);
        let sb = s * vector(B, i);
        let r = sb - apply_row(i, vector(X, i), forces[i].xyz);
        let z = frames[i].precondition * r;
        store(R, i, r);
        store(Z, i, z);
        // With β = 0 the first direction z + β p is z.
        store(P, i, vec3<f32>(0.0));
        sums = vec4<f32>(dot(sb, sb), dot(r, r), dot(r, z), dot(sb, frames[i].precondition * sb));
    }
    let total = workgroup_sum(local, sums);
    if (local == 0u) {
        work[partial_index(group.x)] = total;
    }
}

// The residual's scale, max(‖S b‖, Δt ‖M g‖)² (`Tolerance::reference_norm`), in place of ‖S b‖² from
// here on; a guess x₀ worse than none (‖r‖ > ‖S b‖) is dropped (the flag 1 in α's slot, for
// cg_drop_guess): r = S b, r·z = S b·P S b. Converged at once if ‖r‖ ≤ tolerance · scale (or S b = 0).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_reduce_start(@builtin(local_invocation_index) local: u32) {
    let total = sum_partials(local);
    if (local != 0u || cg_skipped()) {
        return;
    }
    let weight_impulse = params.dt * params.weight_norm;
    let scale = max(total.x, weight_impulse * weight_impulse);
    let drop_guess = total.y > total.x;
    let residual = select(total.y, total.x, drop_guess);
    let rz = select(total.z, total.w, drop_guess);
    var state = RUNNING;
    if (total.x == 0.0) {
        state = ZERO_RHS;
    } else if (sqrt(residual) <= params.cg_tolerance * sqrt(scale)) {
        state = CONVERGED;
    }
    work[scalar_index(0u)] = vec4<f32>(scale, residual, rz, 0.0);
    let previous = work[scalar_index(1u)];
    work[scalar_index(1u)] = vec4<f32>(select(0.0, 1.0, drop_guess), 0.0, previous.z, state);
    var relative = 0.0;
    if (scale > 0.0) {
        relative = sqrt(residual / scale);
    }
    let flags = work[scalar_index(2u)];
    work[scalar_index(2u)] = vec4<f32>(flags.x, flags.y, flags.z, relative);
}

// The start from x₀ = 0 where cg_reduce_start dropped the guess: x = 0, r = S b, z = P r (also when
// that start has converged at once: the solution is then x = 0).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_drop_guess(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || cg_skipped() || work[scalar_index(1u)].x != 1.0) {
        return;
    }
    let sb = constraint_filter(i) * vector(B, i);
    store(X, i, vec3<f32>(0.0));
    store(R, i, sb);
    store(Z, i, frames[i].precondition * sb);
}

// p = z + β p (stored), and Ap = apply(p) from (K S p)_i (stored): p·Ap.
fn product_row(i: u32, ksp: vec3<f32>) -> f32 {
    let p = vector(Z, i) + work[scalar_index(1u)].y * vector(P, i);
    store(P, i, p);
    let ap = apply_row(i, p, ksp);
    store(AP, i, ap);
    return dot(p, ap);
}

// p = z + β p; (K S p)_i by the force gather (`gather_forces`, with Σ_j d_ij from the work buffer) of
// the force matrices cg_stiffness_stresses left; Ap = apply(p) and the partial sums of p·Ap.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    var sums = vec4<f32>(0.0);
    if (i < params.phyxels && cg_running() && owns_reverse_list(reverse_start[i])) {
        // The force matrices are stored times A⁻¹ (corotated.wgsl): M_i Σ_j d_ij = (M_i A_i⁻¹) Σ_j x̄_ij w_ij.
        var ksp = -(force_matrix[i] * vector(OWN_OFFSETS, i));
        let reference_i = mls_frame[i].reference;
        for (var r = reverse_start[i]; r < reverse_start[i + 1u]; r++) {
            let owner_i = reverse[reverse_slot(r)];
            let frame = &mls_frame[owner_i];
            ksp += force_matrix[owner_i] * weighted_offset_from((*frame).reference, (*frame).inverse_x.w, (*frame).inverse_y.w, reference_i);
        }
        sums.x = product_row(i, ksp);
    }
    let total = workgroup_sum(local, sums);
    // Run once per window, the dispatches add their partial sums (each row is in one window).
    if (local == 0u) {
        let previous = select(vec4<f32>(0.0), work[partial_index(group.x)], edge_window.reverse_window > 0u);
        work[partial_index(group.x)] = previous + total;
    }
}

// cg_product for a body integrated by background quadrature: (K S p)_i is already in `forces`
// (quadrature.wgsl's cg_stiffness_product and cg_gather); p = z + β p, Ap and the partial sums of p·Ap.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_gathered_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    var sums = vec4<f32>(0.0);
    if (i < params.phyxels && cg_running()) {
        sums.x = product_row(i, forces[i].xyz);
    }
    let total = workgroup_sum(local, sums);
    if (local == 0u) {
        work[partial_index(group.x)] = total;
    }
}

// α = r·z / p·Ap; a non-positive (or NaN) curvature stops CG (A is not positive definite along p).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_reduce_curvature(@builtin(local_invocation_index) local: u32) {
    let total = sum_partials(local);
    if (local != 0u || !cg_running()) {
        return;
    }
    let curvature = total.x;
    let scalars = work[scalar_index(0u)];
    work[scalar_index(0u)] = vec4<f32>(scalars.xyz, curvature);
    let flags = work[scalar_index(1u)];
    if (!(curvature > 0.0) || !(abs(scalars.z) <= 3.0e38)) {
        work[scalar_index(1u)] = vec4<f32>(flags.xyz, STOPPED);
        return;
    }
    work[scalar_index(1u)] = vec4<f32>(scalars.z / curvature, flags.yzw);
}

// x += α p, r −= α Ap, z = P r; partial sums of (r·r, r·z).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_update(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    var sums = vec4<f32>(0.0);
    if (i < params.phyxels && cg_running()) {
        let alpha = work[scalar_index(1u)].x;
        store(X, i, vector(X, i) + alpha * vector(P, i));
        let r = vector(R, i) - alpha * vector(AP, i);
        let z = frames[i].precondition * r;
        store(R, i, r);
        store(Z, i, z);
        sums = vec4<f32>(dot(r, r), dot(r, z), 0.0, 0.0);
    }
    let total = workgroup_sum(local, sums);
    if (local == 0u) {
        work[partial_index(group.x)] = total;
    }
}

// One more iteration; converged when ‖r‖ ≤ tolerance · scale, else β = r·z (new) / r·z (old).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_reduce_direction(@builtin(local_invocation_index) local: u32) {
    let total = sum_partials(local);
    if (local != 0u || !cg_running()) {
        return;
    }
    let scalars = work[scalar_index(0u)];
    let flags = work[scalar_index(1u)];
    let iterations = flags.z + 1.0;
    let relative = sqrt(total.x / scalars.x);
    let solve = work[scalar_index(2u)];
    work[scalar_index(2u)] = vec4<f32>(solve.xyz, relative);
    work[scalar_index(0u)] = vec4<f32>(scalars.x, total.x, total.y, scalars.w);
    if (relative <= params.cg_tolerance) {
        work[scalar_index(1u)] = vec4<f32>(flags.x, flags.y, iterations, CONVERGED);
        return;
    }
    work[scalar_index(1u)] = vec4<f32>(flags.x, total.y / scalars.z, iterations, RUNNING);
}

// Δv = z̄ + S x (S x zero for a zero right-hand side), and Q = S x for the contact impulses' K S x.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_finish(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels) {
        return;
    }
    if (cg_skipped()) {
        return; // the second solve was not needed: Δv stands
    }
    let state = work[scalar_index(1u)].w;
    var y = constraint_filter(i) * vector(X, i);
    if (state == ZERO_RHS) {
        y = vec3<f32>(0.0);
    }
    store(DV, i, prescribed(i) + y);
    store(Q, i, y);
}
