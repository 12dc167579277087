// The ground plane y = 0: a checkerboard of 0.1 m tiles that fades into the background.

struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
};

const GROUND_HALF_SIZE: f32 = 6.0;

@vertex
fn ground_vertex(@builtin(vertex_index) vertex: u32) -> GroundOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(1.0, -1.0),
    );
    let c = GROUND_HALF_SIZE * corners[vertex];
    let world = vec3<f32>(c.x, 0.0, c.y);
    var out: GroundOut;
    out.clip = camera.view_projection * vec4<f32>(world, 1.0);
    out.world = world;
    return out;
}

@fragment
fn ground_fragment(in: GroundOut) -> @location(0) vec4<f32> {
    let tile = floor(in.world.xz / 0.1);
    let checker = (i32(tile.x) + i32(tile.y)) & 1;
    let base = select(0.80, 0.86, checker == 1);
    let fade = clamp(length(in.world.xz) / GROUND_HALF_SIZE, 0.0, 1.0);
    let background = vec3<f32>(0.93, 0.94, 0.96);
    let colour = mix(vec3<f32>(base), background, fade * fade);
    return output_colour(colour);
}
