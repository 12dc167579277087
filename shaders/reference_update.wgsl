// The reference-shape update, `Simulation::update_reference` (crates/phyxel/src/meshless/simulation.rs;
// MKN04 §5.1, tutorial §7.3), with the rebuild of `Body::rebuild_reference` — on the device, inside a
// step, with no read-back: when some phyxel's total strain passed `reference_update_strain` in this
// step's plastic flow, the rest shape moves to the current shape (x̄ ← x̄ + u, u ← 0), every phyxel
// keeps its elastic strain (ε_plastic ← ε_plastic − ε, i.e. −ε_elastic), and the neighbourhoods,
// volumes, moment matrices and MLS weights are rebuilt around the new rest shape.
//
// The rebuild is the solver's neighbour search (crates/phyxel-gpu/src/neighbours.rs: the hash-grid,
// neighbour, reverse-list and prefix-sum passes) and the moment-matrix pass. What this file adds are the
// steps around them, and two gates: every pass of the update is dispatched
// indirectly, its workgroup count read from `dispatch_args`, which `reference_update_due` opens (the
// passes that search the deformed shape) or closes (to zero workgroups: nothing runs) each step, and
// `neighbour_capacity` opens the passes that commit the result only when the new neighbour lists fit
// the buffers. A body whose neighbourhoods outgrew them keeps its state unchanged and says so
// (STATUS_NEIGHBOUR_OVERFLOW: the edges it needed), so that the host can update it on the CPU instead.
//
// status (slots STATUS_* of the prelude): blown up, largest ‖ε‖ so far, largest ‖ε‖ of this step,
// reference updates done, edges needed by an update that did not fit (0: none), 1 when this step's
// update is due.
// Prepended: the prelude (GridParams, the STATUS_* and GATE_* constants), edge_window.wgsl, common.wgsl,
// hash.wgsl, mls.wgsl (displacement_gradient,
// green_strain). The edge windows overlap by as many edges as the body has phyxels, so no new row or
// reverse list can be longer than a window holds.

@group(0) @binding(0) var<uniform> grid: GridParams;
@group(0) @binding(1) var<storage, read_write> displacement: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> start: array<u32>;
@group(0) @binding(3) var<storage, read> neighbour: array<u32>;
@group(0) @binding(4) var<storage, read_write> mls_frame: array<MlsFrame>;
// x̄ with the support radius in w; the deformed shape x̄ + u the update moves it to.
@group(0) @binding(5) var<storage, read_write> reference: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> deformed: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> plastic_strain: array<mat3x3<f32>>;
@group(0) @binding(8) var<storage, read_write> status: array<atomic<u32>>;
// The new rows' starts (count_neighbours, then the prefix sum).
@group(0) @binding(9) var<storage, read_write> new_start: array<u32>;
// Indirect dispatch arguments (x, y, z per gated pass), and per gated pass x: its workgroups when
// open, y: its gate (GATE_SEARCH or GATE_COMMIT).
@group(0) @binding(14) var<storage, read_write> dispatch_args: array<u32>;
@group(0) @binding(15) var<storage, read> gated_passes: array<vec4<u32>>;
// x: density ρ_i, y: volume V_i (moment_matrices.wgsl); the per-phyxel constants the steps read.
@group(0) @binding(16) var<storage, read> density_volume_rank: array<vec4<f32>>;
@group(0) @binding(17) var<storage, read_write> phyxel: array<Phyxel>;

// Open (their workgroups) or close (none) the passes of `gate`.
fn set_gate(gate: u32, open: bool) {
    for (var k = 0u; k < arrayLength(&gated_passes); k++) {
        if (gated_passes[k].y == gate) {
            dispatch_args[3u * k] = select(0u, gated_passes[k].x, open);
            dispatch_args[3u * k + 1u] = 1u;
            dispatch_args[3u * k + 2u] = 1u;
        }
    }
}

// `flow_additive`'s test, after this step's plastic_flow: largest ‖ε‖ > reference_update_strain.
@compute @workgroup_size(1)
fn reference_update_due() {
    let largest = bitcast<f32>(atomicExchange(&status[STATUS_STEP_STRAIN], 0u));
    let due = largest > grid.update_strain;
    atomicStore(&status[STATUS_UPDATE_DUE], select(0u, 1u, due));
    set_gate(GATE_SEARCH, due);
    set_gate(GATE_COMMIT, false);
}

// The points the neighbour search sorts: x̄ + u, with h.
@compute @workgroup_size(WORKGROUP_SIZE)
fn deformed_points(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < grid.phyxels) {
        deformed[i] = vec4<f32>(reference[i].xyz + displacement[i].xyz, reference[i].w);
    }
}



// Commit only if the new rows fit the edge buffers; else leave everything as it is and say so.
// (Dispatched directly: it writes the dispatch arguments, so it cannot be dispatched from them.)
@compute @workgroup_size(1)
fn neighbour_capacity() {
    if (atomicLoad(&status[STATUS_UPDATE_DUE]) == 0u) {
        return;
    }
    let edges = new_start[grid.phyxels];
    let fits = edges <= grid.edge_capacity;
    if (fits) {
        atomicAdd(&status[STATUS_REFERENCE_UPDATES], 1u);
    } else {
        atomicMax(&status[STATUS_NEIGHBOUR_OVERFLOW], edges);
    }
    set_gate(GATE_COMMIT, fits);
}

// Each phyxel keeps its elastic strain: ε_plastic ← −ε_elastic = ε_plastic − ε (at the old rest shape).
@compute @workgroup_size(WORKGROUP_SIZE)
fn update_reference(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < grid.phyxels && owns_row(start[i])) {
        plastic_strain[i] -= green_strain(displacement_gradient(i));
    }
}

// x̄ ← x̄ + u, u ← 0 (after update_reference: it reads the neighbours' u).
@compute @workgroup_size(WORKGROUP_SIZE)
fn move_reference(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < grid.phyxels) {
        reference[i] = deformed[i];
        displacement[i] = vec4<f32>(0.0);
    }
}

// The new rows' starts become the solver's.
@compute @workgroup_size(WORKGROUP_SIZE)
fn commit_starts(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x <= grid.phyxels) {
        start[id.x] = new_start[id.x];
    }
}


// V_i = m_i / ρ_i of the new rest shape.
@compute @workgroup_size(WORKGROUP_SIZE)
fn store_volumes(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < grid.phyxels) {
        phyxel[i].volume = density_volume_rank[i].y;
    }
}
