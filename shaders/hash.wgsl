// Shared by the hash-grid and neighbour passes (prepended to each): `cell_hash` and `cell_of` of
// crates/phyxel/src/meshless/neighbours.rs, and the grid's parameters.

struct GridParams {
    // x: phyxels, y: hash table size.
    counts: vec4<u32>,
    // x: cell edge (m).
    cell: vec4<f32>,
};

// `cell_hash`: (x·p₁ xor y·p₂ xor z·p₃) mod table size, with wrapping i32 products.
fn cell_hash(c: vec3<i32>, table_size: u32) -> u32 {
    let h = (c.x * 73856093) ^ (c.y * 19349663) ^ (c.z * 83492791);
    return bitcast<u32>(h) % table_size;
}

fn cell_of(p: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(floor(p / grid.cell.x));
}
