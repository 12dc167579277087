// `Fluid::find_neighbours` of the 3D SPH fluid (crates/phyxel/src/fluids/grid.rs, `CellGrid::build`,
// compiled in 3D by crates/phyxel/src/fluids3d.rs): the particles counting-sorted into the uniform
// grid of cells of edge h over the fluid's domain — count (count_cells), exclusive prefix sum
// (prefix_sum.wgsl), scatter (scatter_cells). The neighbour lists are not written out: every pass of
// sph_fluid.wgsl scans the 3 × 3 × 3 cells around its particle and keeps the pairs closer than h at the
// positions of this search (`searched`), as the CPU's lists are. After the scatter `cell_end[c]` is
// the end of cell c's slots in `sorted` and `cell_end[c − 1]` its start (CellGrid's `cell_start`,
// shifted by one). The wall particles' grid is sorted once, on the host (crates/phyxel-gpu/src/fluid/
// cells.rs).

@group(0) @binding(0) var<uniform> fluid: FluidParams;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
// The positions of this search, per particle (the query's side of every pair test).
@group(0) @binding(6) var<storage, read_write> searched: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> cell_end: array<atomic<u32>>;
// The particles by cell: (x_j as searched, j) — CellGrid's `sorted` and `sorted_x` in one.
@group(0) @binding(8) var<storage, read_write> sorted: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> cell_of: array<u32>;

// Zero the counts.
@compute @workgroup_size(WORKGROUP_SIZE)
fn clear_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < fluid.grid_cells.w) {
        atomicStore(&cell_end[id.x], 0u);
    }
}

// Scatter's atomics hand out the slots of a cell in any order; `sort_cells` puts each cell's particles
// in index order, as `CellGrid::build` keeps them, so that every sum over neighbours is taken in the
// same order from run to run.

// Count: the cell that holds x_i (`CellGrid::cell_index`: ⌊(x − lo)/h⌋, divided, not multiplied by
// 1/h). A particle outside the grid (or not finite) is flagged — the CPU refuses the step with
// `FluidError::LeftDomain` — and counted in the nearest cell, so that the sort stays whole.
@compute @workgroup_size(WORKGROUP_SIZE)
fn count_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let p = x[i].xyz;
    searched[i] = vec4<f32>(p, 0.0);
    let n = vec3<f32>(fluid.grid_cells.xyz);
    let q = floor((p - fluid.grid_lo) / (SUPPORT_RATIO * fluid.spacing));
    // NaN fails both comparisons: a particle that is not finite is outside too.
    let inside = all(q >= vec3<f32>(0.0)) && all(q < n);
    var c = vec3<u32>(0u);
    if (inside) {
        c = vec3<u32>(q);
    } else {
        atomicMax(&status[FLUID_LEFT_DOMAIN], i + 1u);
        let finite = q == q;
        c = vec3<u32>(select(vec3<f32>(0.0), clamp(q, vec3<f32>(0.0), n - 1.0), finite));
    }
    let cell = (c.z * fluid.grid_cells.y + c.y) * fluid.grid_cells.x + c.x;
    cell_of[i] = cell;
    atomicAdd(&cell_end[cell], 1u);
}

// Scatter: after the prefix sum cell_end[c] is the first slot of cell c; each particle takes the next,
// leaving cell_end[c] at the end of the cell.
@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= fluid.particles) {
        return;
    }
    let slot = atomicAdd(&cell_end[cell_of[i]], 1u);
    // The index as a float: exact below 2²⁴ particles (GpuFluid refuses more).
    sorted[slot] = vec4<f32>(searched[i].xyz, f32(i));
}

// Each cell's particles in index order (an insertion sort: a cell of edge h = 2Δx holds about eight).
@compute @workgroup_size(WORKGROUP_SIZE)
fn sort_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = id.x;
    if (c >= fluid.grid_cells.w) {
        return;
    }
    var first = 0u;
    if (c > 0u) {
        first = atomicLoad(&cell_end[c - 1u]);
    }
    let end = atomicLoad(&cell_end[c]);
    for (var k = first + 1u; k < end; k++) {
        let item = sorted[k];
        var slot = k;
        while (slot > first && sorted[slot - 1u].w > item.w) {
            sorted[slot] = sorted[slot - 1u];
            slot--;
        }
        sorted[slot] = item;
    }
}
