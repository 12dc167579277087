// The exclusive prefix sum of the counting sorts (`HashGrid::build` and `Neighbourhoods::build` in
// crates/phyxel/src/meshless/neighbours.rs: count → prefix sum → scatter), for any length: each
// workgroup scans a block of SCAN_BLOCK (256) values in shared memory (Blelloch 1990) and writes the block's total;
// the totals are scanned the same way (recursively, by the host) and added back.

@group(0) @binding(0) var<uniform> scan: Count;
@group(0) @binding(1) var<storage, read_write> values: array<u32>;
@group(0) @binding(2) var<storage, read_write> block_sums: array<u32>;

var<workgroup> tile: array<u32, SCAN_BLOCK>;

@compute @workgroup_size(SCAN_WORKGROUP_SIZE)
fn scan_blocks(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>) {
    let base = group.x * SCAN_BLOCK;
    let t = local.x;
    let a = base + 2u * t;
    let b = a + 1u;
    tile[2u * t] = select(0u, values[a], a < scan.n);
    tile[2u * t + 1u] = select(0u, values[b], b < scan.n);
    // Up-sweep.
    var offset = 1u;
    for (var d = SCAN_BLOCK >> 1u; d > 0u; d >>= 1u) {
        workgroupBarrier();
        if (t < d) {
            let i = offset * (2u * t + 1u) - 1u;
            let j = offset * (2u * t + 2u) - 1u;
            tile[j] += tile[i];
        }
        offset <<= 1u;
    }
    workgroupBarrier();
    if (t == 0u) {
        block_sums[group.x] = tile[SCAN_BLOCK - 1u];
        tile[SCAN_BLOCK - 1u] = 0u;
    }
    // Down-sweep.
    for (var d = 1u; d < SCAN_BLOCK; d <<= 1u) {
        offset >>= 1u;
        workgroupBarrier();
        if (t < d) {
            let i = offset * (2u * t + 1u) - 1u;
            let j = offset * (2u * t + 2u) - 1u;
            let left = tile[i];
            tile[i] = tile[j];
            tile[j] += left;
        }
    }
    workgroupBarrier();
    if (a < scan.n) {
        values[a] = tile[2u * t];
    }
    if (b < scan.n) {
        values[b] = tile[2u * t + 1u];
    }
}

// values[k] += (scanned) block_sums[block of k].
@compute @workgroup_size(SCAN_BLOCK)
fn add_block_offsets(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>) {
    if (id.x < scan.n) {
        values[id.x] += block_sums[group.x];
    }
}
