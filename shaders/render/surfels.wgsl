// Phyxels drawn as shaded spheres: one camera-facing quad per phyxel (six vertices, no vertex buffer
// for the corners), the sphere's normal and depth computed per fragment (a sphere impostor).

struct SurfelOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) corner: vec2<f32>,
    @location(1) centre: vec3<f32>,
    @location(2) value: f32,
};

@vertex
fn surfel_vertex(@builtin(vertex_index) vertex: u32, @location(0) phyxel: vec4<f32>) -> SurfelOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let corner = corners[vertex];
    let radius = camera.right.w;
    let world = phyxel.xyz + radius * (corner.x * camera.right.xyz + corner.y * camera.up.xyz);
    var out: SurfelOut;
    out.clip = camera.view_projection * vec4<f32>(world, 1.0);
    out.corner = corner;
    out.centre = phyxel.xyz;
    out.value = phyxel.w;
    return out;
}

struct SurfelFragment {
    @location(0) colour: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

@fragment
fn surfel_fragment(in: SurfelOut) -> SurfelFragment {
    let r2 = dot(in.corner, in.corner);
    if (r2 > 1.0) {
        discard;
    }
    let towards_eye = normalize(cross(camera.right.xyz, camera.up.xyz));
    let normal = in.corner.x * camera.right.xyz + in.corner.y * camera.up.xyz
        + sqrt(1.0 - r2) * towards_eye;
    let surface = in.centre + camera.right.w * normal;
    let clip = camera.view_projection * vec4<f32>(surface, 1.0);
    var out: SurfelFragment;
    out.colour = output_colour(shade(base_colour(in.value), normal, surface));
    out.depth = clip.z / clip.w;
    return out;
}
