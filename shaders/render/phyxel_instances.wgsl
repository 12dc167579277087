// What the 3D view draws of each phyxel, written on the device from the solver's own buffers, so that
// drawing needs no read-back: the position x̄_i + u_i and the colour value of `PhyxelDemo::frame_data`
// (crates/phyxel-view/src/demo.rs), which computes the same numbers from the page's copy:
//
//   object       the object's index
//   temperature  (T_i − T_ambient) / (T_melt − T_ambient)
//   plastic      ‖ε_p,i‖ / c_max (MKN04), or ‖ln σ(F_p,i)‖ / c_max (corotated: from F_p⁻¹, whose
//                principal Hencky strains are those of F_p negated)
//   speed        |v_i| / 2 m/s
// Concatenated after symmetric_eigen.wgsl; `InstanceSettings` comes from the prelude.

@group(0) @binding(0) var<uniform> settings: InstanceSettings;
@group(0) @binding(1) var<storage, read> reference: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> displacement: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> velocity: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> temperature: array<f32>;
@group(0) @binding(5) var<storage, read> plastic_strain: array<mat3x3<f32>>;
// The implicit step's frames: rotation, F_p⁻¹ and preconditioner block of each phyxel.
@group(0) @binding(6) var<storage, read> frames: array<mat3x3<f32>>;
@group(0) @binding(7) var<storage, read> object_of: array<u32>;
@group(0) @binding(8) var<storage, read_write> instances: array<vec4<f32>>;

// ‖ln σ(F)‖ from the eigenvalues σ² of FᵀF (`plasticity::plastic_stretch`).
fn plastic_stretch(f: mat3x3<f32>) -> f32 {
    var a = transpose(f) * f;
    _ = symmetric_eigen(&a);
    let logs = 0.5 * log(max(vec3<f32>(a[0][0], a[1][1], a[2][2]), vec3<f32>(SMALLEST_SQUARED_STRETCH)));
    return length(logs);
}

fn frobenius(m: mat3x3<f32>) -> f32 {
    return sqrt(dot(m[0], m[0]) + dot(m[1], m[1]) + dot(m[2], m[2]));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn phyxel_instances(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= settings.phyxels) {
        return;
    }
    var value = 0.0;
    switch settings.mode {
        case 0u: {
            value = f32(object_of[i]);
        }
        case 1u: {
            value = (temperature[i] - settings.low) / (settings.high - settings.low);
        }
        case 2u: {
            value = frobenius(plastic_strain[i]) / settings.full;
        }
        case 3u: {
            value = plastic_stretch(frames[3u * i + 1u]) / settings.full;
        }
        default: {
            value = length(velocity[i].xyz) / 2.0;
        }
    }
    instances[i] = vec4<f32>(reference[i].xyz + displacement[i].xyz, value);
}
