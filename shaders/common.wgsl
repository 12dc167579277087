// Shared by the solver's compute passes (prepended to each): the step parameters and the per-phyxel
// constants. Mirrors crates/phyxel-gpu/src/layout.rs byte for byte.

struct Params {
    // x: phyxels, y: colliders, z: the dragged phyxel + 1 (0: none), w: 1 when the material melts.
    counts: vec4<u32>,
    // xyz: gravity (m/s²), w: Δt (s).
    gravity_dt: vec4<f32>,
    // Lamé λ, μ (Pa), volume stiffness k_v (Pa), mass-proportional damping c (1/s).
    material: vec4<f32>,
    // x: Coulomb friction μ, y: the largest speed a step may give a phyxel (MAX_TRAVEL_PER_STEP·h/Δt),
    // z: the drag spring's longest stretch (m).
    contact: vec4<f32>,
    // The drag spring: xyz target, w stiffness k (N/m).
    drag: vec4<f32>,
    // The heat source: xyz position, w rate (K/s at the centre; 0: off).
    heat_source: vec4<f32>,
    // Source radius (m), diffusivity D (1/s), melting point (°C), molten stiffness factor.
    melting: vec4<f32>,
    // Plasticity: c_yield, c_creep (1/s), c_max, 1 when the material is plastic.
    plasticity: vec4<f32>,
    // The implicit step: mass damping α (the environment's plus Rayleigh's, 1/s), Rayleigh β (s), the
    // CG tolerance, the contact distance (m).
    implicit: vec4<f32>,
};

// Mass m_i (kg), volume V_i (m³), stiffness factor s_i (melting), 1 when the phyxel is held fixed.
struct Phyxel {
    mass: f32,
    volume: f32,
    stiffness_scale: f32,
    fixed: f32,
};

const WORKGROUP_SIZE: u32 = 64u;

// Room temperature (°C): `melting::AMBIENT_TEMPERATURE`.
const AMBIENT_TEMPERATURE: f32 = 20.0;

// poly6(r, h) / poly6(0, h) = (1 − r²/h²)³ for r < h (MKN04 eq. 7 without its normalization, which
// cancels wherever the solver divides by a sum or by the value at the centre).
fn poly6_shape(r: f32, h: f32) -> f32 {
    if (r >= h) {
        return 0.0;
    }
    let q = 1.0 - (r * r) / (h * h);
    return q * q * q;
}
