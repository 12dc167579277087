// Pass 4, `Body::gather_forces` (crates/phyxel/src/meshless/body.rs): phyxel k receives the reaction
// of its own neighbourhood, −M_k Σ_j d_kj, plus M_i d_ik from every neighbourhood i that contains it
// (the reverse lists). The force matrices come times A⁻¹ (phyxel_stresses.wgsl), so M_i d_ik is
// (M_i A_i⁻¹)(x̄_ik w_ik t_ik) with the kernel from i's MLS frame (mls_weight.wgsl) and t_ik the cracks'
// weight factor (uncut_weights.wgsl or cut_weights.wgsl). Each invocation writes only its own force:
// no atomics, no write conflicts.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> force_matrix: array<mat3x3<f32>>;
@group(0) @binding(2) var<storage, read> start: array<u32>;
@group(0) @binding(3) var<storage, read> mls_frame: array<MlsFrame>;
@group(0) @binding(4) var<storage, read> reverse_start: array<u32>;
// Reverse lists of owners: the phyxels i whose neighbourhood holds k.
@group(0) @binding(5) var<storage, read> reverse: array<u32>;
@group(0) @binding(7) var<storage, read_write> forces: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> neighbour: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_forces(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= params.phyxels || !owns_row(start[k]) || !owns_reverse_list(reverse_start[k])) {
        return;
    }
    let frame_k = mls_frame[k];
    var offsets = vec3<f32>(0.0);
    for (var e = start[k]; e < start[k + 1u]; e++) {
        offsets += weighted_offset(frame_k, mls_frame[neighbour[row_slot(e)]].reference) * edge_factor(e);
    }
    var force = -(force_matrix[k] * offsets);
    for (var r = reverse_start[k]; r < reverse_start[k + 1u]; r++) {
        let i = reverse[reverse_slot(r)];
        let frame_i = &mls_frame[i];
        let offset = weighted_offset_from((*frame_i).reference, (*frame_i).inverse_x.w, (*frame_i).inverse_y.w, frame_k.reference);
        force += force_matrix[i] * (offset * reverse_factor(r));
    }
    forces[k] = vec4<f32>(force, 0.0);
}
