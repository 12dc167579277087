//! The bytes Rust and WGSL share, defined once: each struct below is declared in Rust by
//! `shared_structs!`, which also writes its WGSL declaration (same name, fields, order and types;
//! `crate::wgsl::prelude` prepends them to every shader). A test (`tests` below) has naga lay the
//! WGSL out and checks every field's offset and size against Rust's `#[repr(C)]` layout.

use bytemuck::{Pod, Zeroable};
use glam::{DMat3, DVec3};
use phyxel::meshless::collision::Collider;

/// The WGSL type a Rust field type is written as.
pub trait WgslType {
    const WGSL: &'static str;
}

impl WgslType for u32 {
    const WGSL: &'static str = "u32";
}
impl WgslType for f32 {
    const WGSL: &'static str = "f32";
}
impl WgslType for [f32; 3] {
    const WGSL: &'static str = "vec3<f32>";
}
impl WgslType for [f32; 4] {
    const WGSL: &'static str = "vec4<f32>";
}
impl WgslType for [u32; 4] {
    const WGSL: &'static str = "vec4<u32>";
}
impl WgslType for Mat3 {
    const WGSL: &'static str = "mat3x3<f32>";
}

/// WGSL's `mat3x3<f32>`: three columns, each padded to 16 bytes.
pub type Mat3 = [[f32; 4]; 3];

/// One field of a shared struct, as Rust lays it out (offsets and sizes are for the layout test).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(any(not(test), target_arch = "wasm32"), allow(dead_code))]
pub struct Field {
    pub name: &'static str,
    pub wgsl_type: &'static str,
    pub offset: usize,
    pub size: usize,
    pub doc: &'static [&'static str],
}

/// A struct declared on both sides.
pub trait SharedStruct {
    /// Its name in WGSL.
    const WGSL_NAME: &'static str;
    /// Its doc comment, line by line.
    const DOC: &'static [&'static str];
    fn fields() -> Vec<Field>;

    /// Its WGSL declaration, with the Rust doc comments as `//` comments.
    fn wgsl() -> String {
        let comment = |indent: &str, lines: &[&str]| -> String {
            lines
                .iter()
                .map(|line| format!("{indent}//{}\n", line.trim_end()))
                .collect()
        };
        let mut text = comment("", Self::DOC);
        text += &format!("struct {} {{\n", Self::WGSL_NAME);
        for field in Self::fields() {
            text += &comment("    ", field.doc);
            text += &format!("    {}: {},\n", field.name, field.wgsl_type);
        }
        text + "};\n"
    }
}

/// Declares `#[repr(C)]` structs of plain fields together with their WGSL twins
/// (`struct RustName as WgslName { … }`).
macro_rules! shared_structs {
    ($(
        $(#[doc = $doc:literal])*
        struct $name:ident as $wgsl:ident {
            $( $(#[doc = $field_doc:literal])* $field:ident: $ty:ty, )*
        }
    )*) => {$(
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
        pub struct $name {
            $( $(#[doc = $field_doc])* pub $field: $ty, )*
        }

        impl SharedStruct for $name {
            const WGSL_NAME: &'static str = stringify!($wgsl);
            const DOC: &'static [&'static str] = &[$($doc),*];
            fn fields() -> Vec<Field> {
                vec![$(Field {
                    name: stringify!($field),
                    wgsl_type: <$ty as WgslType>::WGSL,
                    offset: std::mem::offset_of!($name, $field),
                    size: size_of::<$ty>(),
                    doc: &[$($field_doc),*],
                }),*]
            }
        }
    )*};
}

shared_structs! {
    /// The step parameters (uniform, binding 0 of the solver's passes; `GpuSolver` writes them before
    /// each submission).
    struct Params as Params {
        /// Phyxels n.
        phyxels: u32,
        /// Colliders (`Environment::colliders`).
        colliders: u32,
        /// The phyxel the drag spring pulls, plus one (0: none).
        dragged: u32,
        /// 1 when the material melts (the heat passes run).
        melts: u32,
        /// Gravity g (m/s²).
        gravity: [f32; 3],
        /// The time step Δt (s).
        dt: f32,
        /// Lamé's λ (Pa): `Material::lame`.
        lambda: f32,
        /// Lamé's μ (Pa).
        mu: f32,
        /// The volume stiffness k_v (Pa) of MKN04's volume-conserving term k_v (|F| − 1) (eq. 14).
        volume_stiffness: f32,
        /// Mass-proportional damping c (1/s): a = f/m + g − c v.
        damping: f32,
        /// Coulomb friction μ of the colliders.
        friction: f32,
        /// The largest speed a step may give a phyxel, MAX_TRAVEL_PER_STEP · h_min / Δt (m/s): beyond
        /// it the step is flagged as blown up.
        max_speed: f32,
        /// The drag spring's longest stretch (m): `Drag::max_stretch`.
        drag_max_stretch: f32,
        /// Points of a body integrated by background quadrature: its integration points and those of
        /// its held surface (quadrature.wgsl; 0 for the nodal model).
        points: u32,
        /// The drag spring's target (m).
        drag_target: [f32; 3],
        /// The drag spring's stiffness k (N/m): f = k (target − x), the stretch capped.
        drag_stiffness: f32,
        /// The heat source's position s (m).
        heat_source: [f32; 3],
        /// The heat source's rate (K/s at its centre; 0: off): T += rate Δt W(|x − s|, r)/W(0, r).
        heat_rate: f32,
        /// The heat source's radius r (m).
        heat_radius: f32,
        /// The diffusivity D (1/s): T_i += min(D Δt, 1) Σ_j w_ij (T_j − T_i) / Σ_j w_ij.
        diffusivity: f32,
        /// The melting point (°C).
        melting_point: f32,
        /// The stiffness factor of molten material (the factor falls linearly to it from 1 at room
        /// temperature).
        molten_stiffness: f32,
        /// MKN04 §5.1 plasticity: c_yield, the elastic strain norm the flow starts at.
        yield_strain: f32,
        /// c_creep (1/s): the fraction min(c_creep Δt, 1) of the excess flows per step.
        creep: f32,
        /// c_max: the largest plastic strain norm.
        max_strain: f32,
        /// 1 when the material is plastic.
        plastic: u32,
        /// The implicit step's mass damping α (1/s): the environment's plus Rayleigh's mass term.
        mass_damping: f32,
        /// Rayleigh's stiffness term β (s).
        rayleigh_stiffness: f32,
        /// CG's relative tolerance: ‖r‖ ≤ tolerance ‖S b‖.
        cg_tolerance: f32,
        /// A phyxel predicted within this distance (m) of an obstacle touches it: the first solve
        /// holds it (CONTACT_DISTANCE · h_min).
        contact_distance: f32,
        /// The weight ‖M g‖ = |g| √(Σ m_i²) over the phyxels not held (N): CG measures its residual
        /// against at least Δt times it, the step's weight impulse (`Tolerance::reference_norm`).
        weight_norm: f32,
        /// Phyxels predicted within this distance (m) of an obstacle are its contact candidates in the
        /// implicit step: `implicit::OBSTACLE_MARGIN` · h_min.
        contact_margin: f32,
        _pad1: f32,
        _pad2: f32,
    }

    /// Phyxel i's MLS frame, what the passes form its MLS weights d_ij = A_i⁻¹ x̄_ij w_ij from (MKN04
    /// eq. 8).
    struct MlsFrame as MlsFrame {
        /// The safe inverse A_i⁻¹ of the moment matrix by columns (xyz); in w the kernel's constants:
        /// 1/h_i² (x column) and poly6(0, h_i) = 315 / (64 π h_i³) (y column).
        inverse_x: [f32; 4],
        inverse_y: [f32; 4],
        inverse_z: [f32; 4],
        /// x̄_i, and the support radius h_i in w.
        reference: [f32; 4],
    }

    /// Phyxel i's constants.
    struct PhyxelConstants as Phyxel {
        /// Mass m_i (kg).
        mass: f32,
        /// Volume V_i = m_i / ρ_i (m³).
        volume: f32,
        /// Stiffness factor s_i (melting softens it).
        stiffness_scale: f32,
        /// 1 when the phyxel is held fixed (the implicit step's Dirichlet condition; the explicit
        /// step's integrate leaves it where it was).
        fixed: f32,
    }

    /// A collider (`collision::Collider`).
    struct GpuCollider as Collider {
        /// 0: plane n·x = offset, 1: sphere, 2: box walls.
        kind: u32,
        /// The plane's offset, or the sphere's radius (m).
        extent: f32,
        _pad0: f32,
        _pad1: f32,
        /// The plane's normal n, the sphere's centre, or the walls' lower corner (xyz).
        a: [f32; 4],
        /// The walls' upper corner (xyz).
        b: [f32; 4],
    }

    /// The neighbour search's parameters (`HashGrid::build` with `Neighbourhoods::build`), and the
    /// reference update's.
    struct GridParams as GridParams {
        /// Phyxels n.
        phyxels: u32,
        /// Buckets of the hash table.
        table_size: u32,
        /// Edges the rows may hold (the reference update commits only rows that fit).
        edge_capacity: u32,
        _pad0: u32,
        /// The cells' edge (m): the largest support radius.
        cell: f32,
        /// `Simulation::reference_update_strain`: the rest shape moves when a step's largest total
        /// strain ‖ε‖ passes it.
        update_strain: f32,
        _pad1: f32,
        _pad2: f32,
    }

    /// The edge windows one dispatch handles (`EdgeWindows`; edge_window.wgsl).
    struct EdgeWindow as EdgeWindow {
        /// The rows' window: the first edge bound (slot 0 of the binding),
        rows_first: u32,
        /// the end of the row starts it owns (0xffffffff for the last window),
        rows_owned_end: u32,
        /// and its index.
        rows_window: u32,
        _pad0: u32,
        /// The same for the reverse lists (passes that read both run once per pair of windows).
        reverse_first: u32,
        reverse_owned_end: u32,
        reverse_window: u32,
        _pad1: u32,
    }

    /// A phyxel the fracture scenes' grips hold (`fracture::scenes::GripPath`): held at u_i = s a_i.
    struct Grip as Grip {
        /// a_i (m per unit of the grips' law s).
        direction: [f32; 3],
        /// i.
        phyxel: u32,
    }

    /// The grips' counts (shaders/grips.wgsl): the phyxels they hold, the law's values written for
    /// the batch (s_k, one per step), and the batch's step that the next `hold_grips` takes.
    struct GripParams as GripParams {
        grips: u32,
        scales: u32,
        step: u32,
        _pad0: u32,
    }

    /// The struck slab's ball (`fracture::slab::Ball`).
    struct GpuBall as Ball {
        /// Its centre (m).
        centre: [f32; 3],
        /// Its radius (m).
        radius: f32,
        /// Its velocity V (m/s).
        velocity: [f32; 3],
        /// Its mass M (kg).
        mass: f32,
    }

    /// How many items a pass runs over (phyxels, or values to scan).
    struct Count as Count {
        n: u32,
        _pad0: u32,
        _pad1: u32,
        _pad2: u32,
    }

    /// Phyxel i's frame in the implicit step.
    struct ImplicitFrame as Frame {
        /// R_i of the current step (the polar rotation of F_i).
        rotation: Mat3,
        /// F_p,i⁻¹, the inverse plastic deformation.
        plastic_inverse: Mat3,
        /// The block-Jacobi preconditioner block P_i.
        precondition: Mat3,
    }

    /// A point of a body's background quadrature (`Quadrature`; quadrature.wgsl): an integration point
    /// I, or a point s of its held surface (`HeldSurface`).
    struct IntegrationPoint as IntegrationPoint {
        /// The volume v_I (m³); at a held-surface point the penalty's α A_s (N/m).
        volume: f32,
        /// λ_I (Pa), `Quadrature::point_lame` (0 at a held-surface point).
        lambda: f32,
        /// μ_I (Pa).
        mu: f32,
        /// 1 at a held-surface point, whose row holds φ_i(x_s) where others hold ∇φ_i(x_I).
        held: u32,
    }

    /// One edge of the quadrature's shape functions (`ShapeFunctions`) between an integration point I
    /// and a particle i.
    struct ShapeEdge as ShapeEdge {
        /// ∇φ_i(x_I) (1/m); (φ_i(x_s), 0, 0) on a held-surface point's row.
        gradient: [f32; 3],
        /// The particle i (in a point's row) or the point I (in a particle's reverse list).
        index: u32,
    }

    /// Integration point I's frame in the implicit step.
    struct PointFrame as PointFrame {
        /// R_I of the current step (the polar rotation of F_e,I).
        rotation: Mat3,
        /// F_p,I⁻¹, the inverse plastic deformation.
        plastic_inverse: Mat3,
    }

    /// What phyxel_instances.wgsl colours the phyxels by.
    struct InstanceSettings as InstanceSettings {
        /// The colouring: 0 object, 1 temperature, 2 plastic ε_p, 3 plastic F_p, 4 speed.
        mode: u32,
        /// Phyxels n.
        phyxels: u32,
        _pad0: u32,
        _pad1: u32,
        /// The value shown as no colour (the ambient temperature),
        low: f32,
        /// the value shown as full colour (the melting point; 1 for the plastic colourings),
        high: f32,
        /// and the plastic strain shown as full colour.
        full: f32,
        _pad2: f32,
    }

    /// What surface_vertices.wgsl computes over.
    struct SurfaceSettings as SurfaceSettings {
        /// Phyxels n.
        phyxels: u32,
        /// Vertices of all surfaces.
        vertices: u32,
        /// 1 when each surface takes its object's index as colour value.
        by_object: u32,
        _pad0: u32,
    }

    /// The 3D SPH fluid's parameters (`GpuFluid`; sph_fluid.wgsl and fluid_cells.wgsl): its neighbour
    /// grid, what the fluid is made of and WCSPH's equation of state.
    struct FluidParams as FluidParams {
        /// The neighbour grid's lower corner (m); its cells' edge is h = SUPPORT_RATIO Δx.
        grid_lo: [f32; 3],
        /// The particle spacing Δx (m).
        spacing: f32,
        /// Cells of the grid along x, y and z, and in all (w).
        grid_cells: [u32; 4],
        /// Gravity g (m/s²).
        gravity: [f32; 3],
        /// The time step Δt (s).
        dt: f32,
        /// Fluid particles n.
        particles: u32,
        /// Wall particles.
        walls: u32,
        _pad0: u32,
        _pad1: u32,
        /// The particles' mass m (kg).
        mass: f32,
        /// The rest density ρ₀ (kg/m³).
        rest_density: f32,
        /// XSPH's ξ (seed 002 eq. 53).
        xsph: f32,
        /// The Tait stiffness K = ρ₀ c²/γ (Pa; seed 002 eq. 47).
        stiffness: f32,
        /// The Tait exponent γ.
        gamma: f32,
        /// ζ: negative pressures are scaled by it (seed 002 eq. 54).
        negative_pressure_scale: f32,
        /// The cubic spline's σ₃/h³ (W = σ₃/h³ f(r/h)).
        w_scale: f32,
        /// σ₃/h⁴ (∇W = σ₃/h⁴ f′(r/h) x/r).
        grad_scale: f32,
        /// The pointer's stir (`phyxel::fluids3d::Stir`): its centre (m) and radius (m; 0: none).
        stir_centre: [f32; 3],
        stir_radius: f32,
        /// Its velocity (m/s) and the rate (1/s) it pulls the water to it.
        stir_velocity: [f32; 3],
        stir_rate: f32,
    }
}

/// Every shared struct's WGSL declaration, in the order the prelude lists them.
pub fn wgsl_structs() -> String {
    [
        Params::wgsl(),
        MlsFrame::wgsl(),
        PhyxelConstants::wgsl(),
        GpuCollider::wgsl(),
        GridParams::wgsl(),
        EdgeWindow::wgsl(),
        Grip::wgsl(),
        GripParams::wgsl(),
        GpuBall::wgsl(),
        Count::wgsl(),
        ImplicitFrame::wgsl(),
        IntegrationPoint::wgsl(),
        ShapeEdge::wgsl(),
        PointFrame::wgsl(),
        InstanceSettings::wgsl(),
        SurfaceSettings::wgsl(),
        FluidParams::wgsl(),
    ]
    .join("\n")
}

impl Count {
    pub fn of(n: u32) -> Self {
        Self {
            n,
            ..Self::default()
        }
    }
}

impl MlsFrame {
    pub fn new(moment_inverse: DMat3, reference: DVec3, support_radius: f64) -> Self {
        let h = support_radius;
        let poly6_at_centre = 315.0 / (64.0 * std::f64::consts::PI * h.powi(3));
        let column = |v: DVec3, w: f64| [v.x as f32, v.y as f32, v.z as f32, w as f32];
        Self {
            inverse_x: column(moment_inverse.x_axis, 1.0 / (h * h)),
            inverse_y: column(moment_inverse.y_axis, poly6_at_centre),
            inverse_z: column(moment_inverse.z_axis, 0.0),
            reference: column(reference, h),
        }
    }

    /// A_i⁻¹ back in double precision.
    pub fn moment_inverse(&self) -> DMat3 {
        let column = |c: &[f32; 4]| DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64);
        DMat3::from_cols(
            column(&self.inverse_x),
            column(&self.inverse_y),
            column(&self.inverse_z),
        )
    }
}

impl From<&Collider> for GpuCollider {
    fn from(collider: &Collider) -> Self {
        let (kind, extent, a, b) = match *collider {
            Collider::Plane { normal, offset } => (0, offset, normal, DVec3::ZERO),
            Collider::Sphere { center, radius } => (1, radius, center, DVec3::ZERO),
            Collider::BoxWalls { min, max } => (2, 0.0, min, max),
        };
        Self {
            kind,
            extent: extent as f32,
            a: vec4(a),
            b: vec4(b),
            ..Self::default()
        }
    }
}

/// A vector as `vec4<f32>` (w = 0).
pub fn vec4(v: DVec3) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, 0.0]
}

/// A vector as `vec3<f32>`.
pub fn vec3(v: DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// A matrix as WGSL's `mat3x3<f32>` in a storage buffer: three columns, each padded to 16 bytes.
pub fn mat3(m: DMat3) -> [f32; 12] {
    bytemuck::cast(gpu_mat3(m))
}

/// A matrix as [`Mat3`].
pub fn gpu_mat3(m: DMat3) -> Mat3 {
    [vec4(m.x_axis), vec4(m.y_axis), vec4(m.z_axis)]
}

/// The matrix a `mat3x3<f32>` in a storage buffer holds (three padded columns: 12 floats).
pub fn from_mat3(m: &[f32]) -> DMat3 {
    let column = |c: usize| DVec3::new(m[4 * c] as f64, m[4 * c + 1] as f64, m[4 * c + 2] as f64);
    DMat3::from_cols(column(0), column(1), column(2))
}

#[cfg(test)]
mod tests;
