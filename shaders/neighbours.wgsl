// Passes 1c–1d, `Neighbourhoods::build` (crates/phyxel/src/meshless/neighbours.rs): j ∈ N(i) ⇔ j ≠ i
// and |x_j − x_i| < h_i, found by scanning the buckets of the 27 cells around x_i (each bucket once).
// count_neighbours counts, the prefix sum makes the compressed rows, write_neighbours fills them sorted
// by index, as the CPU does (once per edge window, edge_window.wgsl: each row in the window that owns it).

@group(0) @binding(0) var<uniform> grid: GridParams;
// xyz: position, w: support radius h_i.
@group(0) @binding(1) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bucket_start: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<u32>;
@group(0) @binding(4) var<storage, read_write> start: array<u32>;
@group(0) @binding(5) var<storage, read_write> neighbour: array<u32>;

// The distinct buckets of the 27 cells around cell c, sorted; returns how many.
fn nearby_buckets(c: vec3<i32>, buckets: ptr<function, array<u32, 27>>) -> u32 {
    var n = 0u;
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let b = cell_hash(c + vec3<i32>(dx, dy, dz), grid.table_size);
                // Insert b in order, skipping a bucket already listed (distinct cells may share one).
                var k = n;
                var seen = false;
                for (var m = 0u; m < n; m++) {
                    if ((*buckets)[m] == b) {
                        seen = true;
                    }
                }
                if (!seen) {
                    while (k > 0u && (*buckets)[k - 1u] > b) {
                        (*buckets)[k] = (*buckets)[k - 1u];
                        k--;
                    }
                    (*buckets)[k] = b;
                    n++;
                }
            }
        }
    }
    return n;
}

// Visit every j ∈ N(i): count them, or (write = true) store them from slot `first` of the bound rows on.
fn search(i: u32, write: bool, first: u32) -> u32 {
    let x = points[i].xyz;
    let h = points[i].w;
    var buckets: array<u32, 27>;
    let n = nearby_buckets(cell_of(x), &buckets);
    var count = 0u;
    for (var m = 0u; m < n; m++) {
        let b = buckets[m];
        for (var s = bucket_start[b]; s < bucket_start[b + 1u]; s++) {
            let j = sorted[s];
            if (j != i && distance(points[j].xyz, x) < h) {
                if (write) {
                    neighbour[first + count] = j;
                }
                count++;
            }
        }
    }
    return count;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn count_neighbours(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < grid.phyxels) {
        start[id.x] = search(id.x, false, 0u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn write_neighbours(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= grid.phyxels || !owns_row(start[i])) {
        return;
    }
    let first = row_slot(start[i]);
    let last = first + search(i, true, first);
    // Sort the row by index (insertion sort: rows hold a few dozen entries).
    for (var a = first + 1u; a < last; a++) {
        let value = neighbour[a];
        var b = a;
        while (b > first && neighbour[b - 1u] > value) {
            neighbour[b] = neighbour[b - 1u];
            b--;
        }
        neighbour[b] = value;
    }
}
