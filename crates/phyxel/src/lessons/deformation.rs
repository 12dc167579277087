//! The deformation-gradient lesson: a phyxel's neighbourhood is mapped by a linear map T = R·S·U
//! (rotation, scale, shear); the phyxel solver's own MLS estimate recovers F = I + ∇u from the
//! neighbours alone, and from it the Green and Cauchy strains (MKN04 §4; tutorial §7.1).
//!
//! The neighbourhood lies in the plane z = 0, so its moment matrix has rank 2: the safe inverse of the
//! solver handles exactly this case, and F's in-plane block is still recovered exactly.

use crate::meshless::elasticity::green_strain;
use crate::meshless::mls::MlsWeights;
use crate::meshless::neighbours::Neighbourhoods;
use glam::{DMat3, DVec3};

/// The lesson's parameters: T's rotation θ (degrees), scales s_x, s_y and shear γ. The page's
/// controls take their ranges and defaults from here (`DeformationLesson.parameters()`), and the
/// bindings check values against the same.
pub mod param {
    use crate::params::Param;
    pub const ANGLE: Param = Param::real("angle", -180.0, 180.0, 0.0);
    pub const SCALE_X: Param = Param::real("sx", 0.25, 2.0, 1.0);
    pub const SCALE_Y: Param = Param::real("sy", 0.25, 2.0, 1.0);
    pub const SHEAR: Param = Param::real("shear", -1.5, 1.5, 0.0);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] =
    &[param::ANGLE, param::SCALE_X, param::SCALE_Y, param::SHEAR];

/// T = R(θ) · diag(s_x, s_y) · [[1, γ], [0, 1]]: rotation by θ (radians) after scaling after shear γ.
pub fn linear_map(angle: f64, scale_x: f64, scale_y: f64, shear: f64) -> DMat3 {
    let rotation = DMat3::from_rotation_z(angle);
    let scale = DMat3::from_diagonal(DVec3::new(scale_x, scale_y, 1.0));
    let shear = DMat3::from_cols(DVec3::X, DVec3::new(shear, 1.0, 0.0), DVec3::Z);
    rotation * scale * shear
}

/// What the lesson shows of the estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// F = I + ∇u by MLS.
    pub deformation_gradient: DMat3,
    /// ε = ½(FᵀF − I).
    pub green: DMat3,
    /// ε_c = ½(∇u + ∇uᵀ): the linearized strain, not zero under rotation.
    pub cauchy: DMat3,
}

/// A phyxel at the origin with neighbours on a jittered disk.
#[derive(Clone, Debug)]
pub struct Neighbourhood {
    /// Reference positions; index 0 is the phyxel itself.
    pub reference: Vec<DVec3>,
    hoods: Neighbourhoods,
    mls: MlsWeights,
}

/// Support radius of the lesson's phyxel.
pub const SUPPORT_RADIUS: f64 = 1.0;

impl Neighbourhood {
    /// A phyxel at the origin and its neighbours: a jittered square lattice of spacing 0.3 clipped to
    /// the support radius (deterministic for a given `seed`).
    pub fn new(seed: u64) -> Self {
        let mut state = seed
            .wrapping_mul(2_862_933_555_777_941_757)
            .wrapping_add(3_037_000_493);
        let mut jitter = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.12
        };
        let mut reference = vec![DVec3::ZERO];
        for i in -3..=3 {
            for j in -3..=3 {
                let p = DVec3::new(0.3 * i as f64 + jitter(), 0.3 * j as f64 + jitter(), 0.0);
                if (i, j) != (0, 0) && p.length() < 0.95 * SUPPORT_RADIUS {
                    reference.push(p);
                }
            }
        }
        Self::from_points(reference)
    }

    /// Use `reference` as the neighbourhood of its first point.
    pub fn from_points(reference: Vec<DVec3>) -> Self {
        // Only the centre phyxel's neighbourhood matters: give the others a radius that finds nothing.
        let mut radii = vec![1e-9; reference.len()];
        radii[0] = SUPPORT_RADIUS;
        let hoods = Neighbourhoods::build(&reference, &radii);
        let mls = MlsWeights::compute(&reference, &radii, &hoods);
        Self {
            reference,
            hoods,
            mls,
        }
    }

    /// The positions after the map T.
    pub fn deformed(&self, map: DMat3) -> Vec<DVec3> {
        self.reference.iter().map(|x| map * *x).collect()
    }

    /// The MLS estimate of F for the displacements u_j = T x_j − x_j.
    pub fn estimate(&self, map: DMat3) -> Estimate {
        let displacement: Vec<DVec3> = self.reference.iter().map(|x| map * *x - *x).collect();
        let grad_u = self
            .mls
            .displacement_gradient(0, &displacement, &self.hoods);
        Estimate {
            deformation_gradient: DMat3::IDENTITY + grad_u,
            green: green_strain(grad_u),
            cauchy: 0.5 * (grad_u + grad_u.transpose()),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }

    use super::*;

    fn max_abs(m: DMat3) -> f64 {
        m.to_cols_array().iter().fold(0.0f64, |a, e| a.max(e.abs()))
    }

    #[test]
    fn mls_recovers_any_planar_linear_map_exactly() {
        let neighbourhood = Neighbourhood::new(7);
        assert!(neighbourhood.reference.len() > 20);
        for (angle, sx, sy, shear) in [
            (0.0, 1.0, 1.0, 0.0),
            (0.7, 1.3, 0.6, 0.4),
            (-2.5, 0.5, 2.0, -1.0),
            (3.0, 1.0, 1.0, 2.0),
        ] {
            let map = linear_map(angle, sx, sy, shear);
            let estimate = neighbourhood.estimate(map);
            assert!(
                max_abs(estimate.deformation_gradient - map) < 1e-12,
                "T = {map}, F = {}",
                estimate.deformation_gradient
            );
        }
    }

    #[test]
    fn rotation_has_no_green_strain_but_a_cauchy_strain_of_cos_minus_one() {
        let neighbourhood = Neighbourhood::new(3);
        for angle in [0.3f64, 1.0, std::f64::consts::FRAC_PI_2, 3.0] {
            let estimate = neighbourhood.estimate(linear_map(angle, 1.0, 1.0, 0.0));
            assert!(max_abs(estimate.green) < 1e-12);
            // ∇u = R − I, so ½(∇u + ∇uᵀ) = diag(cos θ − 1, cos θ − 1, 0).
            let expected =
                DMat3::from_diagonal(DVec3::new(angle.cos() - 1.0, angle.cos() - 1.0, 0.0));
            assert!(max_abs(estimate.cauchy - expected) < 1e-12, "θ = {angle}");
        }
    }

    #[test]
    fn stretch_gives_the_green_strain_of_the_stretch() {
        // T = diag(1.5, 0.8): ε = ½(TᵀT − I) = diag(0.625, −0.18), ε_c = diag(0.5, −0.2).
        let estimate = Neighbourhood::new(1).estimate(linear_map(0.0, 1.5, 0.8, 0.0));
        assert!(
            max_abs(estimate.green - DMat3::from_diagonal(DVec3::new(0.625, -0.18, 0.0))) < 1e-12
        );
        assert!(
            max_abs(estimate.cauchy - DMat3::from_diagonal(DVec3::new(0.5, -0.2, 0.0))) < 1e-12
        );
    }
}
