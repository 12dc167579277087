// The surface mesh, moved by the phyxels' displacement field (tutorial eq. 68): positions and normals
// come per vertex; the value colours it like the phyxels.

struct SurfaceOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) value: f32,
};

@vertex
fn surface_vertex(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) value: f32,
) -> SurfaceOut {
    var out: SurfaceOut;
    out.clip = camera.view_projection * vec4<f32>(position, 1.0);
    out.world = position;
    out.normal = normal;
    out.value = value;
    return out;
}

@fragment
fn surface_fragment(in: SurfaceOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    // Two-sided: a face seen from behind (inside a torn or inverted region) is lit from its back.
    let normal = select(-in.normal, in.normal, front);
    return output_colour(shade(base_colour(in.value), normal, in.world));
}
