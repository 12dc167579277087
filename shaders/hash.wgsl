// Shared by the hash-grid and neighbour passes (prepended to each): `cell_hash` and `cell_of` of
// crates/phyxel/src/meshless/neighbours.rs, over the grid of `GridParams` (the prelude).

// `cell_hash`: (x·p₁ xor y·p₂ xor z·p₃) mod table size, with wrapping i32 products.
fn cell_hash(c: vec3<i32>, table_size: u32) -> u32 {
    let p = c * HASH_PRIMES;
    let h = p.x ^ p.y ^ p.z;
    return bitcast<u32>(h) % table_size;
}

fn cell_of(p: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(floor(p / grid.cell));
}
