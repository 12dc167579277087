// Shared by the solver's compute passes (prepended to each): the step parameters and the per-phyxel
// constants. Mirrors crates/phyxel-gpu/src/layout.rs byte for byte.

struct Params {
    // x: phyxels, y: colliders.
    counts: vec4<u32>,
    // xyz: gravity (m/s²), w: Δt (s).
    gravity_dt: vec4<f32>,
    // Lamé λ, μ (Pa), volume stiffness k_v (Pa), mass-proportional damping c (1/s).
    material: vec4<f32>,
    // x: Coulomb friction μ, y: the largest speed a step may give a phyxel (MAX_TRAVEL_PER_STEP·h/Δt).
    contact: vec4<f32>,
};

// Mass m_i (kg), volume V_i (m³), stiffness factor s_i (melting), unused.
struct Phyxel {
    mass: f32,
    volume: f32,
    stiffness_scale: f32,
    unused: f32,
};

const WORKGROUP_SIZE: u32 = 64u;
