// Shared by the render passes: the camera, the light and the colour maps. (Prepended to each pass.)

struct Camera {
    view_projection: mat4x4<f32>,
    // Camera axes in world space; right.w is the phyxel sprite radius (m).
    right: vec4<f32>,
    up: vec4<f32>,
    // eye.w: 1 when the target is an sRGB format (write linear colour), 0 when it stores sRGB values.
    eye: vec4<f32>,
    // Direction towards the light; light.w is the colour mode (0 object, 1 value, 2 fixed grey).
    light: vec4<f32>,
};

@group(0) @binding(0) var<uniform> camera: Camera;

// Colour of a value in [0, 1]: a perceptually ordered map from cool blue to hot yellow.
fn value_colour(t: f32) -> vec3<f32> {
    let s = clamp(t, 0.0, 1.0);
    let c0 = vec3<f32>(0.18, 0.30, 0.72);
    let c1 = vec3<f32>(0.60, 0.35, 0.65);
    let c2 = vec3<f32>(0.93, 0.40, 0.25);
    let c3 = vec3<f32>(0.99, 0.85, 0.30);
    if (s < 0.333) {
        return mix(c0, c1, s * 3.0);
    } else if (s < 0.667) {
        return mix(c1, c2, (s - 0.333) * 3.0);
    }
    return mix(c2, c3, (s - 0.667) * 3.0);
}

// Object colours: a fixed palette indexed by the object number.
fn object_colour(index: f32) -> vec3<f32> {
    let k = u32(max(index, 0.0) + 0.5) % 4u;
    if (k == 0u) { return vec3<f32>(0.30, 0.62, 0.85); }
    if (k == 1u) { return vec3<f32>(0.92, 0.55, 0.25); }
    if (k == 2u) { return vec3<f32>(0.45, 0.75, 0.40); }
    return vec3<f32>(0.80, 0.45, 0.70);
}

fn base_colour(value: f32) -> vec3<f32> {
    let mode = camera.light.w;
    if (mode < 0.5) { return object_colour(value); }
    if (mode < 1.5) { return value_colour(value); }
    return vec3<f32>(0.55, 0.57, 0.60);
}

// Blinn–Phong with a hemisphere ambient term; colours are in sRGB space.
fn shade(albedo: vec3<f32>, normal: vec3<f32>, position: vec3<f32>) -> vec3<f32> {
    let n = normalize(normal);
    let l = normalize(camera.light.xyz);
    let v = normalize(camera.eye.xyz - position);
    let h = normalize(l + v);
    let diffuse = max(dot(n, l), 0.0);
    let ambient = mix(0.25, 0.45, 0.5 + 0.5 * n.y);
    let specular = pow(max(dot(n, h), 0.0), 40.0) * 0.25;
    return albedo * (ambient + 0.7 * diffuse) + vec3<f32>(specular);
}

// The colour as the target stores it.
fn output_colour(srgb: vec3<f32>) -> vec4<f32> {
    if (camera.eye.w > 0.5) {
        return vec4<f32>(pow(srgb, vec3<f32>(2.2)), 1.0);
    }
    return vec4<f32>(srgb, 1.0);
}
