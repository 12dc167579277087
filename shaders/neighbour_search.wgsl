// The steps of pass 1 (`HashGrid::build` and `Neighbourhoods::build`, crates/phyxel/src/meshless/
// neighbours.rs) between its counting sorts, so that the whole search runs inside one compute pass
// (crates/phyxel-gpu/src/neighbours.rs, `NeighbourSearch`): zero the counters (the reference update
// searches again with the same buffers), and keep each sort's first slots before its scatter advances
// the counters.

@group(0) @binding(0) var<uniform> grid: GridParams;
// The rows' starts (count_neighbours, then the prefix sum).
@group(0) @binding(1) var<storage, read_write> start: array<u32>;
// Counting-sort counters: hash buckets, reverse lists; then their first slots.
@group(0) @binding(2) var<storage, read_write> bucket_fill: array<u32>;
@group(0) @binding(3) var<storage, read_write> reverse_fill: array<u32>;
@group(0) @binding(4) var<storage, read_write> bucket_start: array<u32>;
@group(0) @binding(5) var<storage, read_write> reverse_start: array<u32>;

// Zero the counting sorts' counters (and the total after the rows' counts).
@compute @workgroup_size(WORKGROUP_SIZE)
fn clear_counts(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k <= grid.table_size) {
        bucket_fill[k] = 0u;
    }
    if (k <= grid.phyxels) {
        reverse_fill[k] = 0u;
    }
    if (k == grid.phyxels) {
        start[k] = 0u;
    }
}

// The buckets' first slots, kept before scatter_cells advances the counters.
@compute @workgroup_size(WORKGROUP_SIZE)
fn keep_bucket_starts(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x <= grid.table_size) {
        bucket_start[id.x] = bucket_fill[id.x];
    }
}

// The reverse lists' first entries, kept before scatter_reverse advances the counters.
@compute @workgroup_size(WORKGROUP_SIZE)
fn keep_reverse_starts(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x <= grid.phyxels) {
        reverse_start[id.x] = reverse_fill[id.x];
    }
}
