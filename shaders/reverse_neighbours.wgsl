// Pass 1e, the reverse lists of `Neighbourhoods::build` (crates/phyxel/src/meshless/neighbours.rs):
// for each phyxel k, every phyxel i whose neighbourhood holds k, by a counting sort of the edges
// (i → j = k) on their target (count_reverse, prefix sum, scatter_reverse: each phyxel i walks its own
// row), each list then sorted (sort_reverse) as the CPU's sequential scatter leaves it — so the force
// gather sums in the same order. The CPU lists the edges (i → k), whose owners it then looks up; the
// device lists the owners i themselves (in the same order: rows are numbered by owner), so a gather
// reads nothing at a far edge index. Each pass runs once per edge window (edge_window.wgsl); the
// scatter once per pair of windows, writing the entries of the lists that start in the second.

@group(0) @binding(0) var<uniform> phyxels: Count;
@group(0) @binding(1) var<storage, read> neighbour: array<u32>;
@group(0) @binding(2) var<storage, read_write> reverse_fill: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> reverse: array<u32>;
// The lists' first entries (kept before scatter_reverse advances `reverse_fill`).
@group(0) @binding(4) var<storage, read> reverse_start: array<u32>;
@group(0) @binding(5) var<storage, read> start: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn count_reverse(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < phyxels.n && owns_row(start[i])) {
        for (var e = start[i]; e < start[i + 1u]; e++) {
            atomicAdd(&reverse_fill[neighbour[row_slot(e)]], 1u);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter_reverse(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < phyxels.n && owns_row(start[i])) {
        for (var e = start[i]; e < start[i + 1u]; e++) {
            let k = neighbour[row_slot(e)];
            if (owns_reverse_list(reverse_start[k])) {
                reverse[reverse_slot(atomicAdd(&reverse_fill[k], 1u))] = i;
            }
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sort_reverse(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= phyxels.n || !owns_reverse_list(reverse_start[k])) {
        return;
    }
    let first = reverse_slot(reverse_start[k]);
    let last = first + reverse_start[k + 1u] - reverse_start[k];
    for (var a = first + 1u; a < last; a++) {
        let value = reverse[a];
        var b = a;
        while (b > first && reverse[b - 1u] > value) {
            reverse[b] = reverse[b - 1u];
            b--;
        }
        reverse[b] = value;
    }
}
