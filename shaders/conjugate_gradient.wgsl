// `conjugate_gradient::solve`, or `deflation::solve_deflated` (crates/phyxel/src/conjugate_gradient.rs,
// deflation.rs), as `implicit::velocity_change` calls them: block-Jacobi preconditioned CG on Baraff &
// Witkin's filtered system
//
//   apply(z) = S A (S z) + (I − S) z,  A z = m (1 + Δt α) z − (Δt β + Δt²) K z + O z,
//
// right-hand side S b with b the prescribed solve's b − A z̄ (implicit.wgsl), O the held phyxels'
// friction drag (`obstacle_block`); Δv = z̄ + S x.
//
// Deflated by the rigid translations (Nicolaides 1987; Saad, Yeung, Erhel & Guyomarc'h 2000, alg. 2.2
// with a preconditioner), as on the CPU (`implicit::translations`), unless the body is a quadrature
// body holding a surface by a penalty (the host then leaves the deflation's passes out and E⁻¹ = 0):
// the coarse space Z is e_d over all phyxels for each axis d that no filter touches (S_i e_d = e_d for
// every i), with A Z = S W e_d, W_i = m_i (1 + Δt α) I + O_i (K e_d = 0). Along such axes every held
// normal n_i has n_d = 0, so E = Zᵀ A Z = Σ_i W_i is diagonal there, and E⁻¹ is 1 / E_dd (refused, as
// the CPU's Cholesky refuses it, when a pivot is at most DEPENDENT_PIVOT of the largest). Then
//
//   x₀ ← x₀ + Z E⁻¹ Zᵀ r₀,  r₀ ← r₀ − A Z E⁻¹ Zᵀ r₀,  and each z = P r  ←  z − Z E⁻¹ (A Z)ᵀ z,
//
// with Zᵀ r = Σ_i r_i and (A Z)ᵀ z = Σ_i W_i S_i z_i, so the projection subtracts the same vector y
// from every phyxel's z and r·z loses (Σ_i r_i)·y: the CPU's iterates, with the coarse sums reduced
// beside r·r and r·z.
//
// The host dispatches, per solve: cg_start, cg_reduce_start, cg_drop_guess (`start`), then when
// deflated translations (E's diagonal, the touched axes, Zᵀ r₀), cg_reduce_translations (E⁻¹,
// y = E⁻¹ Zᵀ r₀), cg_deflate_start (the correction of x₀ and r₀, z = P r₀) and
// cg_reduce_deflated_start (convergence, y = E⁻¹ (A Z)ᵀ z). Per iteration: cg_stiffness_stresses (the
// force matrices of K S p for the new direction p = (z − y) + β p, formed on the fly), cg_product
// (p, its own row of the force gather K S p, A p, and the partial sums of p·Ap), cg_reduce_curvature
// (α), cg_update (x, r, z and the partial sums of r·r, r·z, Σ r and Σ W S z), cg_reduce_direction
// (convergence, y, β): five dispatches. For a body integrated by background quadrature,
// cg_stiffness_product and cg_gather (quadrature.wgsl) leave K S p in `forces` and cg_gathered_product
// takes cg_product's place: six.
// Once CG has converged or stopped, every kernel leaves the state alone: the host dispatches a fixed
// number of iterations (the iteration limit) in one submission, with no read-back in between.
// The reductions are two-level: partial sums per workgroup (PARTIAL_SUMS vec4 each), then one
// workgroup adds the partials.

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
    return sum_partials_of(0u, local);
}

// The sum of the k-th partials of all workgroups, by one workgroup.
fn sum_partials_of(k: u32, local: u32) -> vec4<f32> {
    var total = vec4<f32>(0.0);
    for (var g = local; g < workgroups(); g += WORKGROUP_SIZE) {
        total += work[partial_slot(k, g)];
    }
    return workgroup_sum(local, total);
}

// W_i = m_i (1 + Δt α) I + O_i: A's block on a translation, A e_d = S W e_d (K e_d = 0; the
// `rigid_system` of `implicit::velocity_change`).
fn rigid_block(i: u32) -> mat3x3<f32> {
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    return phyxel[i].mass * mass_factor() * identity + obstacle_block(i);
}

// Whether this body's solves are deflated (the host's switch in the deflation slot's w).
fn deflated() -> bool {
    return work[scalar_index(DEFLATION_SLOT)].w == 1.0;
}

// r and z = P r stored at phyxel i; the terms of (r·r, r·z, Σ r) and of (A Z)ᵀ z = Σ W S z.
struct ResidualSums {
    first: vec4<f32>,
    second: vec4<f32>,
}

fn residual_row(i: u32, r: vec3<f32>) -> ResidualSums {
    let z = frames[i].precondition * r;
    store(R, i, r);
    store(Z, i, z);
    let azz = rigid_block(i) * (constraint_filter(i) * z);
    return ResidualSums(vec4<f32>(dot(r, r), dot(r, z), r.x, r.y), vec4<f32>(r.z, azz));
}

// The two partial sums of `residual_row` of this workgroup (every invocation calls it).
fn store_residual_partials(local: u32, group: u32, sums: ResidualSums) {
    let first = workgroup_sum(local, sums.first);
    let second = workgroup_sum(local, sums.second);
    if (local == 0u) {
        work[partial_slot(0u, group)] = first;
        work[partial_slot(1u, group)] = second;
    }
}

// From the sums of `residual_row`: y = E⁻¹ (A Z)ᵀ z (zero along the axes not deflated) and the r·z of
// the deflated z − Z y, r·z − (Zᵀ r)·y (`CoarseSpace::project`; the CPU's `iterate` takes r·z of the
// projected z). Stores y for the next direction; returns the new r·z.
fn project(first: vec4<f32>, second: vec4<f32>) -> f32 {
    let y = second.yzw * work[scalar_index(DEFLATION_SLOT)].xyz;
    work[scalar_index(COARSE)] = vec4<f32>(y, 0.0);
    return first.y - dot(vec3<f32>(first.z, first.w, second.x), y);
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
    } else if (!deflated() && sqrt(residual) <= params.cg_tolerance * sqrt(scale)) {
        // (Deflated, the test waits for the coarse correction: cg_reduce_deflated_start.)
        state = CONVERGED;
    }
    work[scalar_index(COARSE)] = vec4<f32>(0.0);
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

// `implicit::translations`: the partial sums of E's diagonal Σ_i W_i (E = Zᵀ A Z along the axes no
// filter touches, module header), of how many filters touch each axis (S_i e_d ≠ e_d) and of
// Zᵀ r₀ = Σ_i r_i: (E_xx, E_yy, E_zz, touched x), (touched y, touched z, Σ r_x, Σ r_y), (Σ r_z, 0, 0, 0).
@compute @workgroup_size(WORKGROUP_SIZE)
fn translations(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    var first = vec4<f32>(0.0);
    var second = vec4<f32>(0.0);
    var third = vec4<f32>(0.0);
    if (i < params.phyxels && cg_running()) {
        let s = constraint_filter(i);
        let w = rigid_block(i);
        let touched = vec3<f32>(
            select(0.0, 1.0, any(s[0] != vec3<f32>(1.0, 0.0, 0.0))),
            select(0.0, 1.0, any(s[1] != vec3<f32>(0.0, 1.0, 0.0))),
            select(0.0, 1.0, any(s[2] != vec3<f32>(0.0, 0.0, 1.0))));
        let r = vector(R, i);
        first = vec4<f32>(w[0].x, w[1].y, w[2].z, touched.x);
        second = vec4<f32>(touched.y, touched.z, r.x, r.y);
        third = vec4<f32>(r.z, 0.0, 0.0, 0.0);
    }
    let galerkin_and_x = workgroup_sum(local, first);
    let touched_and_residual = workgroup_sum(local, second);
    let residual_z = workgroup_sum(local, third);
    if (local == 0u) {
        work[partial_slot(0u, group.x)] = galerkin_and_x;
        work[partial_slot(1u, group.x)] = touched_and_residual;
        work[partial_slot(2u, group.x)] = residual_z;
    }
}

// `CoarseSpace::new` and `coarse_solve` for the translations: the deflated axes (those no filter
// touches), E⁻¹ = 1 / E_dd along them (none if a pivot E_dd is at most DEPENDENT_PIVOT of the largest,
// or no axis is free: plain PCG then), and y = E⁻¹ Zᵀ r₀ for cg_deflate_start.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_reduce_translations(@builtin(local_invocation_index) local: u32) {
    let first = sum_partials_of(0u, local);
    let second = sum_partials_of(1u, local);
    let third = sum_partials_of(2u, local);
    if (local != 0u || !cg_running()) {
        return;
    }
    let free = vec3<f32>(first.w, second.x, second.y) == vec3<f32>(0.0);
    let diagonal = select(vec3<f32>(0.0), first.xyz, free);
    let largest = max(max(diagonal.x, diagonal.y), diagonal.z);
    let dependent = any(free & (diagonal <= vec3<f32>(DEPENDENT_PIVOT * largest)));
    var inverse = vec3<f32>(0.0);
    if (largest > 0.0 && !dependent) {
        inverse = select(vec3<f32>(0.0), vec3<f32>(1.0) / select(vec3<f32>(1.0), diagonal, free), free);
    }
    work[scalar_index(DEFLATION_SLOT)] = vec4<f32>(inverse, 1.0);
    let zr = vec3<f32>(second.z, second.w, third.x);
    work[scalar_index(COARSE)] = vec4<f32>(zr * inverse, 0.0);
}

// `solve_deflated`'s start: x₀ ← x₀ + Z y, r₀ ← r₀ − A Z y (y = E⁻¹ Zᵀ r₀; A Z y = S W y), so that
// Zᵀ r₀ = 0; z = P r₀ and the partial sums of cg_update.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_deflate_start(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    var sums = ResidualSums(vec4<f32>(0.0), vec4<f32>(0.0));
    if (i < params.phyxels && cg_running()) {
        let y = work[scalar_index(COARSE)].xyz;
        store(X, i, vector(X, i) + y);
        sums = residual_row(i, vector(R, i) - constraint_filter(i) * (rigid_block(i) * y));
    }
    store_residual_partials(local, group.x, sums);
}

// `iterate`'s start after the correction: converged at once if ‖r₀‖ ≤ tolerance · scale; else the
// first direction p = z − Z E⁻¹ (A Z)ᵀ z (β = 0) and its r·z.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_reduce_deflated_start(@builtin(local_invocation_index) local: u32) {
    let first = sum_partials_of(0u, local);
    let second = sum_partials_of(1u, local);
    if (local != 0u || !cg_running()) {
        return;
    }
    let scalars = work[scalar_index(0u)];
    let relative = sqrt(first.x / scalars.x);
    let solve = work[scalar_index(2u)];
    work[scalar_index(2u)] = vec4<f32>(solve.xyz, relative);
    let rz = project(first, second);
    work[scalar_index(0u)] = vec4<f32>(scalars.x, first.x, rz, scalars.w);
    if (relative <= params.cg_tolerance) {
        let flags = work[scalar_index(1u)];
        work[scalar_index(1u)] = vec4<f32>(flags.xyz, CONVERGED);
    }
}

// p = (z − y) + β p (stored), and Ap = apply(p) from (K S p)_i (stored): p·Ap.
fn product_row(i: u32, ksp: vec3<f32>) -> f32 {
    let p = next_direction(i);
    store(P, i, p);
    let ap = apply_row(i, p, ksp);
    store(AP, i, ap);
    return dot(p, ap);
}

// p = (z − y) + β p; (K S p)_i by the force gather (`gather_forces`, with Σ_j d_ij from the work buffer) of
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
// (quadrature.wgsl's cg_stiffness_product and cg_gather); p = (z − y) + β p, Ap and the partial sums
// of p·Ap.
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

// x += α p, r −= α Ap, z = P r; partial sums of (r·r, r·z, Σ r) and Σ W S z.
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_update(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = id.x;
    var sums = ResidualSums(vec4<f32>(0.0), vec4<f32>(0.0));
    if (i < params.phyxels && cg_running()) {
        let alpha = work[scalar_index(1u)].x;
        store(X, i, vector(X, i) + alpha * vector(P, i));
        sums = residual_row(i, vector(R, i) - alpha * vector(AP, i));
    }
    store_residual_partials(local, group.x, sums);
}

// One more iteration; converged when ‖r‖ ≤ tolerance · scale, else y = E⁻¹ (A Z)ᵀ z and
// β = r·(z − Z y) (new) / r·z (old).
@compute @workgroup_size(WORKGROUP_SIZE)
fn cg_reduce_direction(@builtin(local_invocation_index) local: u32) {
    let first = sum_partials_of(0u, local);
    let second = sum_partials_of(1u, local);
    if (local != 0u || !cg_running()) {
        return;
    }
    let scalars = work[scalar_index(0u)];
    let flags = work[scalar_index(1u)];
    let iterations = flags.z + 1.0;
    let relative = sqrt(first.x / scalars.x);
    let solve = work[scalar_index(2u)];
    work[scalar_index(2u)] = vec4<f32>(solve.xyz, relative);
    if (relative <= params.cg_tolerance) {
        work[scalar_index(0u)] = vec4<f32>(scalars.x, first.x, first.y, scalars.w);
        work[scalar_index(1u)] = vec4<f32>(flags.x, flags.y, iterations, CONVERGED);
        return;
    }
    let rz = project(first, second);
    work[scalar_index(0u)] = vec4<f32>(scalars.x, first.x, rz, scalars.w);
    work[scalar_index(1u)] = vec4<f32>(flags.x, rz / scalars.z, iterations, RUNNING);
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
