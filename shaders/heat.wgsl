// Pass 6, `Melting::heat` (crates/phyxel/src/meshless/melting.rs, MKN04 §5.2): each phyxel is
// warmed by the heat source, T += rate·Δt·W(|x_i − s|, r)/W(0, r), and exchanges heat with its
// neighbours, T += min(D·Δt, 1) Σ_j w_ij (T_j − T_i) / Σ_j w_ij; its stiffness factor falls linearly
// from 1 at room temperature to the molten value at the melting point. Reads the old temperatures,
// writes the new ones beside them (commit_temperature then copies them over).

@group(0) @binding(0) var<uniform> params: Params;
// xyz: reference position x̄_i, w: support radius h_i.
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> displacement: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> start: array<u32>;
@group(0) @binding(4) var<storage, read> neighbour: array<u32>;
@group(0) @binding(5) var<storage, read_write> temperature: array<f32>;
@group(0) @binding(6) var<storage, read_write> temperature_next: array<f32>;
@group(0) @binding(7) var<storage, read_write> phyxel: array<Phyxel>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn heat(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.phyxels || !owns_row(start[i])) {
        return;
    }
    let dt = params.dt;
    let x_i = reference[i].xyz;
    let h = reference[i].w;
    var exchange = 0.0;
    var weight = 0.0;
    for (var e = start[i]; e < start[i + 1u]; e++) {
        let j = neighbour[row_slot(e)];
        let w = poly6_shape(distance(reference[j].xyz, x_i), h);
        exchange += w * (temperature[j] - temperature[i]);
        weight += w;
    }
    var next = temperature[i];
    if (weight > 0.0) {
        next += min(params.diffusivity * dt, 1.0) * exchange / weight;
    }
    if (params.heat_rate > 0.0) {
        let x = x_i + displacement[i].xyz;
        next += params.heat_rate * dt * poly6_shape(distance(x, params.heat_source), params.heat_radius);
    }
    temperature_next[i] = next;
    let span = max(params.melting_point - AMBIENT_TEMPERATURE, 1e-30);
    phyxel[i].stiffness_scale = clamp(1.0 - (next - AMBIENT_TEMPERATURE) / span, params.molten_stiffness, 1.0);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn commit_temperature(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < params.phyxels) {
        temperature[id.x] = temperature_next[id.x];
    }
}
