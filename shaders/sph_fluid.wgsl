// The 3D SPH fluid's WCSPH step (crates/phyxel/src/fluids/wcsph.rs and fluid.rs, compiled in 3D by
// crates/phyxel/src/fluids3d.rs), one entry point per CPU pass, in the step's order: `pressure` (the
// Tait equation, seed 002 eqs. 47 and 54), `non_pressure_accelerations` (gravity),
// `pressure_accelerations` (eq. 51 with Akinci et al. 2012's wall term), `accelerate` (v += Δt a),
// `xsph_viscosity` (eq. 53) with `keep_xsph_velocities`, `drift` (x += Δt v), then
// `Fluid::find_neighbours` (fluid_cells.wgsl), `keep_off_walls` (seed 002 §6.4) and
// `compute_densities` (eq. 55 with Ψ_b = ρ₀ V_b). Single precision; the CPU's is double.
//
// Neighbours: the CPU keeps lists of the pairs closer than h at the positions of its last search and
// evaluates the kernel at the current ones (keep_off_walls moves particles between the two). So do
// these passes: a pair is kept when |searched_i − searched_j| < h, and its W and ∇W are taken at x.
// The fluid's grid is sorted by fluid_cells.wgsl each step, the walls' once on the host (by cell,
// each wall particle's V_b in w).

@group(0) @binding(0) var<uniform> fluid: FluidParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> density: array<f32>;
// (p_i, p_i/ρ_i²): `Fluid::pressure` and WCSPH's `scratch_scalar`.
@group(0) @binding(4) var<storage, read_write> pressures: array<vec2<f32>>;
// `Fluid::scratch`: accelerations, then XSPH's velocities.
@group(0) @binding(5) var<storage, read_write> scratch: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> searched: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> cell_end: array<u32>;
@group(0) @binding(8) var<storage, read> sorted: array<vec4<f32>>;
// The wall particles by cell: (x_b, V_b).
@group(0) @binding(9) var<storage, read> walls: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> wall_end: array<u32>;
@group(0) @binding(11) var<storage, read_write> status: array<atomic<u32>>;

// The support radius h = SUPPORT_RATIO Δx, the grid's cell edge.
fn support() -> f32 {
    return SUPPORT_RATIO * fluid.spacing;
}

// `SmoothingKernel::w_and_grad`: (∇W(d), W(|d|)) of the cubic spline with support h (KBST19 eq. 4),
// ∇W zero at d = 0 and beyond the support.
fn w_and_grad(d: vec3<f32>) -> vec4<f32> {
    let h = support();
    let r = length(d);
    let q = r / h;
    // Without a branch, as the CPU's `SmoothingKernel::shape`: f = 2 (1 − q)₊³ − 8 (½ − q)₊³,
    // f′ = −6 (1 − q)₊² + 24 (½ − q)₊².
    let outer = max(1.0 - q, 0.0);
    let inner = max(0.5 - q, 0.0);
    let f = 2.0 * outer * outer * outer - 8.0 * inner * inner * inner;
    let df = 24.0 * inner * inner - 6.0 * outer * outer;
    var grad = vec3<f32>(0.0);
    if (r > 1e-9 * h && r < h) {
        grad = d * (fluid.grad_scale * df / r);
    }
    return vec4<f32>(grad, fluid.w_scale * f);
}

// The slots of the 3 × 3 rows of three cells along x around the cell of p (`CellGrid::
// for_each_near_with_position`): (first, end) into a grid whose cell c ends at ends[c] (the fluid's
// `cell_end` or the walls' `wall_end`, chosen by `of_walls`); (0, 0) for rows outside the grid.
fn near_rows(p: vec3<f32>, of_walls: bool) -> array<vec2<u32>, 9> {
    var rows: array<vec2<u32>, 9>;
    let n = vec3<i32>(fluid.grid_cells.xyz);
    let c = vec3<i32>(floor((p - fluid.grid_lo) / support()));
    let lo = max(c - 1, vec3<i32>(0));
    let hi = min(c + 1, n - 1);
    for (var k = 0; k < 9; k++) {
        let z = c.z + k / 3 - 1;
        let y = c.y + k % 3 - 1;
        rows[k] = vec2<u32>(0u, 0u);
        if (lo.x <= hi.x && z >= lo.z && z <= hi.z && y >= lo.y && y <= hi.y) {
            let row = (z * n.y + y) * n.x;
            let before = max(row + lo.x - 1, 0);
            let last = row + hi.x;
            let starts = row + lo.x > 0;
            if (of_walls) {
                rows[k] = vec2<u32>(select(0u, wall_end[before], starts), wall_end[last]);
            } else {
                rows[k] = vec2<u32>(select(0u, cell_end[before], starts), cell_end[last]);
            }
        }
    }
    return rows;
}

// `Wcsph::pressure`: p = K((ρ/ρ₀)^γ − 1) (seed 002 eq. 47), negative pressures scaled by ζ (eq. 54);
// with p/ρ² for the pressure accelerations.
@compute @workgroup_size(WORKGROUP_SIZE)
fn pressure(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let rho = density[i];
    var p = fluid.stiffness * (pow(rho / fluid.rest_density, fluid.gamma) - 1.0);
    if (p < 0.0) {
        p = fluid.negative_pressure_scale * p;
    }
    pressures[i] = vec2<f32>(p, p / (rho * rho));
}

// `Fluid::non_pressure_accelerations`: gravity and the pointer's stirring.
@compute @workgroup_size(WORKGROUP_SIZE)
fn non_pressure_accelerations(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    var a = fluid.gravity;
    // The pointer's stir: a_i += rate (1 − d²/r²) (v_stir − v_i) within its radius r.
    if (fluid.stir_radius > 0.0) {
        let r2 = fluid.stir_radius * fluid.stir_radius;
        let d = x[i].xyz - fluid.stir_centre;
        let d2 = dot(d, d);
        if (d2 < r2) {
            a += fluid.stir_rate * (1.0 - d2 / r2) * (fluid.stir_velocity - v[i].xyz);
        }
    }
    scratch[i] = vec4<f32>(a, 0.0);
}

// `pressure_accelerations` (wcsph.rs): a_i −= Σ_j m (p_i/ρ_i² + p_j/ρ_j²) ∇W_ij (seed 002 eq. 51) +
// Σ_b ρ₀ V_b (p_i/ρ_i²) ∇W_ib (Akinci et al. 2012 §3: the wall takes p_i).
@compute @workgroup_size(WORKGROUP_SIZE)
fn pressure_accelerations(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let h2 = support() * support();
    let si = searched[i].xyz;
    let xi = x[i].xyz;
    let pi_rho2 = pressures[i].y;
    var a = vec3<f32>(0.0);
    let rows = near_rows(si, false);
    for (var k = 0u; k < 9u; k++) {
        for (var s = rows[k].x; s < rows[k].y; s++) {
            let near = sorted[s];
            let e = si - near.xyz;
            if (dot(e, e) < h2) {
                let j = u32(near.w);
                let grad = w_and_grad(xi - x[j].xyz).xyz;
                a -= (fluid.mass * (pi_rho2 + pressures[j].y)) * grad;
            }
        }
    }
    let wall_rows = near_rows(si, true);
    for (var k = 0u; k < 9u; k++) {
        for (var s = wall_rows[k].x; s < wall_rows[k].y; s++) {
            let b = walls[s];
            let e = si - b.xyz;
            if (dot(e, e) < h2) {
                let grad = w_and_grad(xi - b.xyz).xyz;
                a -= (fluid.rest_density * b.w * pi_rho2) * grad;
            }
        }
    }
    scratch[i] += vec4<f32>(a, 0.0);
}

// `Wcsph::step`'s v += Δt a.
@compute @workgroup_size(WORKGROUP_SIZE)
fn accelerate(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    v[i] = vec4<f32>(v[i].xyz + fluid.dt * scratch[i].xyz, 0.0);
}

// `Fluid::xsph_viscosity`: ṽ_i = v_i + ξ Σ_j (m/ρ_j)(v_j − v_i) W_ij (seed 002 eq. 53 in its
// difference form; the walls left out: free slip), into `scratch`.
@compute @workgroup_size(WORKGROUP_SIZE)
fn xsph_viscosity(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let h2 = support() * support();
    let si = searched[i].xyz;
    let xi = x[i].xyz;
    let vi = v[i].xyz;
    var sum = vec3<f32>(0.0);
    let rows = near_rows(si, false);
    for (var k = 0u; k < 9u; k++) {
        for (var s = rows[k].x; s < rows[k].y; s++) {
            let near = sorted[s];
            let e = si - near.xyz;
            if (dot(e, e) < h2) {
                let j = u32(near.w);
                let w = w_and_grad(xi - x[j].xyz).w;
                sum += (v[j].xyz - vi) * (fluid.mass / density[j] * w);
            }
        }
    }
    scratch[i] = vec4<f32>(vi + fluid.xsph * sum, 0.0);
}

// The end of `Fluid::xsph_viscosity`: the corrected velocities are kept (the CPU swaps v and scratch).
@compute @workgroup_size(WORKGROUP_SIZE)
fn keep_xsph_velocities(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    v[i] = scratch[i];
}

// `Fluid::drift`'s x += Δt v; a particle moved more than MAX_STEP_TRAVEL h, or not finite, is flagged
// (`Fluid::check_step`). The clock and the search after it are the host's and fluid_cells.wgsl's.
@compute @workgroup_size(WORKGROUP_SIZE)
fn drift(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let step = fluid.dt * v[i].xyz;
    if (!(length(step) <= MAX_STEP_TRAVEL * support())) {
        atomicMax(&status[FLUID_TOO_FAST], i + 1u);
    }
    x[i] = vec4<f32>(x[i].xyz + step, 0.0);
}

// `Fluid::keep_off_walls` (seed 002 §6.4's hard constraint): a particle closer than WALL_DISTANCE Δx
// to its nearest wall particle moves out by the difference along n̂ = −Σ_b V_b ∇W_ib / |…| and loses
// its velocity into the wall.
@compute @workgroup_size(WORKGROUP_SIZE)
fn keep_off_walls(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let h2 = support() * support();
    let d_min = WALL_DISTANCE * fluid.spacing;
    let si = searched[i].xyz;
    let xi = x[i].xyz;
    var nearest = 3.0e38;
    var normal = vec3<f32>(0.0);
    let wall_rows = near_rows(si, true);
    for (var k = 0u; k < 9u; k++) {
        for (var s = wall_rows[k].x; s < wall_rows[k].y; s++) {
            let b = walls[s];
            let e = si - b.xyz;
            if (dot(e, e) < h2) {
                let d = xi - b.xyz;
                nearest = min(nearest, length(d));
                // −∇W points away from x_b: the direction out of the wall.
                normal -= b.w * w_and_grad(d).xyz;
            }
        }
    }
    if (nearest < d_min && dot(normal, normal) > 0.0) {
        let n = normalize(normal);
        x[i] = vec4<f32>(xi + (d_min - nearest) * n, 0.0);
        var vi = v[i].xyz;
        let towards = dot(vi, n);
        if (towards < 0.0) {
            vi -= towards * n;
        }
        v[i] = vec4<f32>(vi, 0.0);
    }
}

// `Fluid::compute_densities`: ρ_i = Σ_j m W_ij + Σ_b ρ₀ V_b W_ib (seed 002 eq. 55 with Akinci's
// Ψ_b = ρ₀ V_b for the walls).
@compute @workgroup_size(WORKGROUP_SIZE)
fn compute_densities(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let h2 = support() * support();
    let si = searched[i].xyz;
    let xi = x[i].xyz;
    var rho = 0.0;
    let rows = near_rows(si, false);
    for (var k = 0u; k < 9u; k++) {
        for (var s = rows[k].x; s < rows[k].y; s++) {
            let near = sorted[s];
            let e = si - near.xyz;
            if (dot(e, e) < h2) {
                rho += w_and_grad(xi - x[u32(near.w)].xyz).w;
            }
        }
    }
    rho *= fluid.mass;
    let wall_rows = near_rows(si, true);
    for (var k = 0u; k < 9u; k++) {
        for (var s = wall_rows[k].x; s < wall_rows[k].y; s++) {
            let b = walls[s];
            let e = si - b.xyz;
            if (dot(e, e) < h2) {
                rho += fluid.rest_density * b.w * w_and_grad(xi - b.xyz).w;
            }
        }
    }
    density[i] = rho;
}
