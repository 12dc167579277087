// The surface meshes as the 3D view draws them, computed on the device from the solver's buffers:
// mirrors of `Body::displacement_gradients` (MKN04 eq. 8), `EmbeddedSurface::deformed_vertices`
// (tutorial eq. 68) with `EmbeddedSurface::interpolate` for the colour, and `vertex_normals`
// (crates/phyxel/src/meshless/surface.rs, primitive_mesh.rs). All surfaces of the scene are one
// vertex array here. Concatenated after common.wgsl, mls_weight.wgsl and mls.wgsl
// (displacement_gradient reads bindings 1–4); `SurfaceSettings` comes from the prelude.

@group(0) @binding(0) var<uniform> settings: SurfaceSettings;
@group(0) @binding(1) var<storage, read> displacement: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> start: array<u32>;
@group(0) @binding(3) var<storage, read> neighbour: array<u32>;
@group(0) @binding(4) var<storage, read> mls_frame: array<MlsFrame>;
@group(0) @binding(5) var<storage, read_write> gradient: array<mat3x3<f32>>;
@group(0) @binding(6) var<storage, read> reference: array<vec4<f32>>;
// Vertex v follows the phyxels of bound[bound_start[v]..bound_start[v + 1]]: (j, the bits of ω̃_j).
@group(0) @binding(7) var<storage, read> bound_start: array<u32>;
@group(0) @binding(8) var<storage, read> bound: array<vec2<u32>>;
// Rest position xyz and the surface's (object's) index in w.
@group(0) @binding(10) var<storage, read_write> rest: array<vec4<f32>>;
// The phyxel instances (phyxel_instances.wgsl): the colour value in w.
@group(0) @binding(11) var<storage, read> instances: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read_write> deformed: array<vec4<f32>>;
// The triangles around vertex v: around[around_start[v]..around_start[v + 1]], each 3 vertex indices
// in triangle_vertices.
@group(0) @binding(13) var<storage, read> around_start: array<u32>;
@group(0) @binding(14) var<storage, read> around: array<u32>;
@group(0) @binding(15) var<storage, read> triangle_vertices: array<u32>;
// Position, normal, colour value: the renderer's surface vertex layout.
@group(0) @binding(16) var<storage, read_write> vertices: array<f32>;

// ∇u_j of every phyxel.
@compute @workgroup_size(WORKGROUP_SIZE)
fn displacement_gradients(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < settings.phyxels && owns_row(start[i])) {
        gradient[i] = displacement_gradient(i);
    }
}

// x + Σ_j ω̃_j (u_j + ∇u_j (x − x̄_j)), and Σ_j ω̃_j q_j of the phyxels' colour values q.
@compute @workgroup_size(WORKGROUP_SIZE)
fn deformed_vertices(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v >= settings.vertices) {
        return;
    }
    let x = rest[v].xyz;
    var u = vec3<f32>(0.0);
    var value = 0.0;
    for (var k = bound_start[v]; k < bound_start[v + 1u]; k++) {
        let j = bound[k].x;
        let w = bitcast<f32>(bound[k].y);
        u += w * (displacement[j].xyz + gradient[j] * (x - reference[j].xyz));
        value += w * instances[j].w;
    }
    if (settings.by_object == 1u) {
        value = rest[v].w;
    }
    deformed[v] = vec4<f32>(x + u, value);
}

// Σ over the triangles around v of (b − a) × (c − a) (area-weighted), normalized.
@compute @workgroup_size(WORKGROUP_SIZE)
fn vertex_normals(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v >= settings.vertices) {
        return;
    }
    var normal = vec3<f32>(0.0);
    for (var k = around_start[v]; k < around_start[v + 1u]; k++) {
        let t = 3u * around[k];
        let a = deformed[triangle_vertices[t]].xyz;
        let b = deformed[triangle_vertices[t + 1u]].xyz;
        let c = deformed[triangle_vertices[t + 2u]].xyz;
        normal += cross(b - a, c - a);
    }
    let length_squared = dot(normal, normal);
    if (length_squared > 0.0) {
        normal = normal * inverseSqrt(length_squared);
    }
    let p = deformed[v];
    let o = 7u * v;
    vertices[o] = p.x;
    vertices[o + 1u] = p.y;
    vertices[o + 2u] = p.z;
    vertices[o + 3u] = normal.x;
    vertices[o + 4u] = normal.y;
    vertices[o + 5u] = normal.z;
    vertices[o + 6u] = p.w;
}

// At a reference update on the device (reference_update.wgsl), after displacement_gradients and
// deformed_vertices and before the rest shape moves: each vertex's deformed position becomes its rest
// position, as `Simulation::update_reference` rebinds the surfaces at their deformed shape (the
// binding is kept until the page binds them anew).
@compute @workgroup_size(WORKGROUP_SIZE)
fn rebase_rest(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v < settings.vertices) {
        rest[v] = vec4<f32>(deformed[v].xyz, rest[v].w);
    }
}
