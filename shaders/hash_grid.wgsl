// Passes 1a–1b, `HashGrid::build` (crates/phyxel/src/meshless/neighbours.rs): the spatial hash of
// Teschner et al. 2003 over cells of edge `cell` (the largest support radius), and a counting sort of
// the phyxels by bucket — count (hash_cells), prefix sum (prefix_sum.wgsl), scatter (scatter_cells).
// No fixed-size buckets: nothing is ever dropped.

@group(0) @binding(0) var<uniform> grid: GridParams;
@group(0) @binding(1) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> bucket_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> bucket_fill: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> sorted: array<u32>;

// Count: bucket_fill[b] = number of phyxels in bucket b.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= grid.phyxels) {
        return;
    }
    let b = cell_hash(cell_of(points[i].xyz), grid.table_size);
    bucket_of[i] = b;
    atomicAdd(&bucket_fill[b], 1u);
}

// Scatter: after the prefix sum bucket_fill[b] is the bucket's first slot; each phyxel takes the next.
@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter_cells(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= grid.phyxels) {
        return;
    }
    let slot = atomicAdd(&bucket_fill[bucket_of[i]], 1u);
    sorted[slot] = i;
}
