// Pass 1e, the reverse lists of `Neighbourhoods::build` (crates/phyxel/src/meshless/neighbours.rs):
// for each phyxel k, every edge (i → j = k) that names it, by a counting sort of the edges on their
// target (count_reverse, prefix sum, scatter_reverse: each phyxel i walks its own row), each list then
// sorted by edge index as the CPU's sequential scatter leaves it (sort_reverse) — so the force gather
// sums in the same order.

struct EdgeParams {
    // x: phyxels.
    counts: vec4<u32>,
};

@group(0) @binding(0) var<uniform> edges: EdgeParams;
@group(0) @binding(1) var<storage, read> neighbour: array<u32>;
@group(0) @binding(2) var<storage, read_write> reverse_fill: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> reverse: array<u32>;
@group(0) @binding(4) var<storage, read> reverse_start: array<u32>;
@group(0) @binding(5) var<storage, read> start: array<u32>;

@compute @workgroup_size(64)
fn count_reverse(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < edges.counts.x) {
        for (var e = start[i]; e < start[i + 1u]; e++) {
            atomicAdd(&reverse_fill[neighbour[e]], 1u);
        }
    }
}

@compute @workgroup_size(64)
fn scatter_reverse(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < edges.counts.x) {
        for (var e = start[i]; e < start[i + 1u]; e++) {
            reverse[atomicAdd(&reverse_fill[neighbour[e]], 1u)] = e;
        }
    }
}

@compute @workgroup_size(64)
fn sort_reverse(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= edges.counts.x) {
        return;
    }
    let first = reverse_start[k];
    let last = reverse_start[k + 1u];
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
