//! The bytes the shaders read: `shaders/common.wgsl` and `integrate.wgsl` declare the same structs.

use bytemuck::{Pod, Zeroable};
use glam::{DMat3, DVec3};
use phyxel::meshless::collision::Collider;

/// `Params` of common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Params {
    /// x: phyxels, y: colliders.
    pub counts: [u32; 4],
    /// xyz: gravity, w: Δt.
    pub gravity_dt: [f32; 4],
    /// λ, μ, k_v, damping c.
    pub material: [f32; 4],
    /// x: friction, y: speed bound, z: the drag spring's longest stretch.
    pub contact: [f32; 4],
    /// Drag target xyz, stiffness w.
    pub drag: [f32; 4],
    /// Heat source position xyz, rate w.
    pub heat_source: [f32; 4],
    /// Source radius, diffusivity, melting point, molten stiffness.
    pub melting: [f32; 4],
    /// c_yield, c_creep, c_max, 1 when plastic.
    pub plasticity: [f32; 4],
    /// The implicit step: mass damping α (environment + Rayleigh), Rayleigh β, CG tolerance, contact
    /// distance.
    pub implicit: [f32; 4],
}

/// `MlsFrame` of mls_weight.wgsl: what the passes form phyxel i's MLS weights d_ij = A_i⁻¹ x̄_ij w_ij
/// from (MKN04 eq. 8).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MlsFrame {
    /// A_i⁻¹ by columns (xyz); in w 1/h_i² (x column), poly6(0, h_i) = 315 / (64 π h_i³) (y column), 0.
    pub inverse_x: [f32; 4],
    pub inverse_y: [f32; 4],
    pub inverse_z: [f32; 4],
    /// x̄_i, and the support radius h_i in w.
    pub reference: [f32; 4],
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

/// `Phyxel` of common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PhyxelConstants {
    pub mass: f32,
    pub volume: f32,
    pub stiffness_scale: f32,
    /// 1 when the phyxel is held fixed (the implicit step's Dirichlet condition).
    pub fixed: f32,
}

/// `Collider` of integrate.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuCollider {
    /// x: kind (0 plane, 1 sphere, 2 box walls), y: plane offset or sphere radius.
    pub shape: [f32; 4],
    pub a: [f32; 4],
    pub b: [f32; 4],
}

impl From<&Collider> for GpuCollider {
    fn from(collider: &Collider) -> Self {
        match *collider {
            Collider::Plane { normal, offset } => Self {
                shape: [0.0, offset as f32, 0.0, 0.0],
                a: vec4(normal),
                b: [0.0; 4],
            },
            Collider::Sphere { center, radius } => Self {
                shape: [1.0, radius as f32, 0.0, 0.0],
                a: vec4(center),
                b: [0.0; 4],
            },
            Collider::BoxWalls { min, max } => Self {
                shape: [2.0, 0.0, 0.0, 0.0],
                a: vec4(min),
                b: vec4(max),
            },
        }
    }
}

/// A vector as `vec4<f32>` (w = 0).
pub fn vec4(v: DVec3) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, 0.0]
}

/// A matrix as WGSL's `mat3x3<f32>` in a storage buffer: three columns, each padded to 16 bytes.
pub fn mat3(m: DMat3) -> [f32; 12] {
    let mut out = [0.0; 12];
    for (c, column) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
        out[4 * c..4 * c + 4].copy_from_slice(&vec4(*column));
    }
    out
}

/// The matrix a `mat3x3<f32>` in a storage buffer holds (three padded columns: 12 floats).
pub fn from_mat3(m: &[f32]) -> DMat3 {
    let column = |c: usize| DVec3::new(m[4 * c] as f64, m[4 * c + 1] as f64, m[4 * c + 2] as f64);
    DMat3::from_cols(column(0), column(1), column(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_wgsl_structs() {
        // WGSL: Params is 9 × vec4 = 144 bytes; Phyxel 16; Collider 48; mat3x3<f32> has stride 48.
        assert_eq!(std::mem::size_of::<Params>(), 144);
        assert_eq!(std::mem::size_of::<PhyxelConstants>(), 16);
        assert_eq!(std::mem::size_of::<GpuCollider>(), 48);
        // MlsFrame: mat3x3<f32> (48) then vec4<f32> (16).
        assert_eq!(std::mem::size_of::<MlsFrame>(), 64);
        let inverse = DMat3::from_cols_array(&[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
        let frame = MlsFrame::new(inverse, DVec3::new(0.5, 1.5, 2.5), 0.25);
        assert_eq!(frame.reference, [0.5, 1.5, 2.5, 0.25]);
        assert_eq!(frame.moment_inverse(), inverse);
        // The kernel's constants: 1/h² and poly6(0, h).
        assert_eq!(frame.inverse_x[3], 16.0);
        let poly6_at_centre = phyxel::meshless::kernel::poly6(0.0, 0.25);
        assert!((frame.inverse_y[3] as f64 / poly6_at_centre - 1.0).abs() < 1e-6);
        let m = mat3(DMat3::from_cols_array(&[
            1., 2., 3., 4., 5., 6., 7., 8., 9.,
        ]));
        assert_eq!(m, [1., 2., 3., 0., 4., 5., 6., 0., 7., 8., 9., 0.]);
        assert_eq!(
            from_mat3(&m),
            DMat3::from_cols_array(&[1., 2., 3., 4., 5., 6., 7., 8., 9.])
        );
        let ground = GpuCollider::from(&Collider::ground(0.25));
        assert_eq!(ground.shape[..2], [0.0, 0.25]);
        assert_eq!(ground.a, [0.0, 1.0, 0.0, 0.0]);
    }
}
