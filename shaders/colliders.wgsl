// The environment's colliders (`Simulation::step`'s `Settle`, crates/phyxel/src/meshless/simulation.rs),
// shared by integrate.wgsl and implicit.wgsl after collision.wgsl: each collider a phyxel is inside
// projects it out, with friction (`resolve_contact`). Needs `params` and `colliders`.

// Project the phyxel at x̄ + u out of every collider, with friction (params.friction).
fn resolve_contacts(reference_position: vec3<f32>, u_in: ptr<function, vec3<f32>>, v_in: ptr<function, vec3<f32>>) {
    var u = *u_in;
    var v = *v_in;
    for (var k = 0u; k < params.colliders; k++) {
        u += resolve_contact(colliders[k], reference_position + u, &v, params.friction);
    }
    *u_in = u;
    *v_in = v;
}
