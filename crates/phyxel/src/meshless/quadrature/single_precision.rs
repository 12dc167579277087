//! The single-precision operands of the stiffness product and diagonal, kept free of subnormal
//! numbers.
//!
//! The product K δu runs over the edges in f32 ([`FrozenStiffness::product`]), and CG feeds it
//! search directions that spread from a contact with amplitudes falling geometrically across the
//! body. In f32 their tails, and the products of a point's matrix entries that are rotation round-off
//! (10⁻¹⁷ of the rest) with small gradients, fall below 2⁻¹²⁶: subnormal numbers, on which x86 and
//! wasm arithmetic runs tens of times slower. Measured on the 3D demo's cube at its landing: 31
//! products of 15–24 ms instead of 0.45 ms, a third of 100 steps' time. The diagonal blocks
//! ([`FrozenStiffness::diagonal`]) take R_I in f32, whose round-off entries reach 10⁻⁴⁰ while the
//! cube falls undeformed: its diagonals took 2.5–11 ms instead of 0.6. So every f32 operand is zero
//! or within 2⁴⁰ of its own scale: δu is scaled by a power of two to a largest component near 1, and
//! components, gradients and point-matrix entries below 2⁻⁴⁰ of their scale are set to zero (10⁻¹²
//! relative, 10⁻⁵ of f32's own rounding). Products of two such operands stay above 2⁻⁸⁰ of the
//! physical scale, far from 2⁻¹²⁶ in any sane units.
//!
//! [`FrozenStiffness::product`]: super::elasticity::FrozenStiffness::product
//! [`FrozenStiffness::diagonal`]: super::elasticity::FrozenStiffness::diagonal

use glam::{DMat3, DVec3, Mat3A, Vec3A};

/// Below this fraction of its scale an f32 operand is zero: 2⁻⁴⁰.
pub const FLUSHED_BELOW: f64 = 1.0 / (1u64 << 40) as f64;

/// v with the components below `floor` in magnitude set to zero.
fn flushed_vector(v: Vec3A, floor: f32) -> Vec3A {
    Vec3A::select(v.abs().cmplt(Vec3A::splat(floor)), Vec3A::ZERO, v)
}

/// A field of vectors in single precision for the edge passes: `values[i]` = s (δu_i − mean δu)
/// rounded to f32, with s a power of two that brings the largest component into [½, 1), and every
/// component below [`FLUSHED_BELOW`] set to zero. The mean is taken out first (Σ_i ∇φ_i = 0: a
/// translation exerts no force, and what is rounded is then the deformation, not a large common
/// velocity rounded to 2⁻²⁴ of itself).
#[derive(Clone, Debug, PartialEq)]
pub struct SingleDirections {
    pub values: Vec<Vec3A>,
    /// s: the product of `values` is s times the product of δu.
    pub scale: f64,
}

impl SingleDirections {
    pub fn of(du: &[DVec3]) -> Self {
        let mean = du.iter().sum::<DVec3>() / du.len().max(1) as f64;
        let largest = du
            .iter()
            .map(|d| (*d - mean).abs().max_element())
            .fold(0.0, f64::max);
        // s = 2^−e with 2^(e−1) ≤ largest < 2^e; 1 for a zero or non-finite field (which then stays
        // zero, or carries its NaN to the caller's checks).
        let scale = if largest > 0.0 && largest.is_finite() {
            (-(largest.log2().floor() + 1.0)).exp2()
        } else {
            1.0
        };
        let values = du
            .iter()
            .map(|d| flushed_vector(((*d - mean) * scale).as_vec3a(), FLUSHED_BELOW as f32))
            .collect();
        Self { values, scale }
    }
}

/// The gradients ∇φ_e in f32, components below [`FLUSHED_BELOW`] of the largest component of all
/// (`bound`) set to zero: round-off where symmetry makes a component vanish.
pub fn flushed_gradients(gradients: &[DVec3], bound: f64) -> Vec<Vec3A> {
    let floor = (FLUSHED_BELOW * bound) as f32;
    gradients
        .iter()
        .map(|g| flushed_vector(g.as_vec3a(), floor))
        .collect()
}

/// The largest component of any gradient.
pub fn gradient_bound(gradients: &[DVec3]) -> f64 {
    gradients
        .iter()
        .map(|g| g.abs().max_element())
        .fold(0.0, f64::max)
}

/// A point's matrix (δM_I, or R_I) in f32 with the entries below `floor` set to zero.
pub fn flushed_matrix(m: DMat3, floor: f64) -> Mat3A {
    let floor = floor as f32;
    let m = Mat3A::from(m.as_mat3());
    Mat3A::from_cols(
        flushed_vector(m.x_axis, floor),
        flushed_vector(m.y_axis, floor),
        flushed_vector(m.z_axis, floor),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finite_and_normal(v: Vec3A) -> bool {
        v.to_array().iter().all(|x| *x == 0.0 || x.is_normal())
    }

    #[test]
    fn directions_are_scaled_by_a_power_of_two_and_have_no_subnormal_component() {
        // A CG direction's tail: amplitudes falling by 10 a particle over 60 decades, in ± pairs
        // (mean zero).
        let du: Vec<DVec3> = (0..60)
            .flat_map(|i| {
                let v = DVec3::new(10f64.powi(-i), 0.5 * 10f64.powi(-i), -0.25 * 10f64.powi(-i));
                [v, -v]
            })
            .collect();
        let single = SingleDirections::of(&du);
        assert!(single.values.iter().all(|v| finite_and_normal(*v)));
        // The largest component lands in [½, 1), and s is a power of two.
        let largest = single
            .values
            .iter()
            .map(|v| v.abs().max_element())
            .fold(0.0, f32::max);
        assert!((0.5..1.0).contains(&largest), "{largest}");
        assert_eq!(single.scale.log2().fract(), 0.0);
        // What is kept is s δu to f32's rounding; what is flushed is below 2⁻⁴⁰ of the largest.
        for (d, v) in du.iter().zip(&single.values) {
            let exact = *d * single.scale;
            let error = (v.as_dvec3() - exact).abs().max_element();
            assert!(
                error <= 2f64.powi(-24) * exact.abs().max_element() + FLUSHED_BELOW,
                "{exact} vs {v}"
            );
        }
        // The tail was cut where it fell below 2⁻⁴⁰ ≈ 9·10⁻¹³ after the scaling by ½: pairs 0 to 11
        // kept (5·10⁻¹² at 11), from 12 on zero.
        assert!(single.values[2 * 11].z != 0.0);
        assert!(single.values[2 * 12..].iter().all(|v| *v == Vec3A::ZERO));
        // A field scaled by 2⁻¹⁶⁰ gives the same f32 values: in f32 alone it would be zero.
        let tiny: Vec<DVec3> = du.iter().map(|d| *d * 2f64.powi(-160)).collect();
        let tiny_single = SingleDirections::of(&tiny);
        assert_eq!(tiny_single.values, single.values);
        assert_eq!(tiny_single.scale, single.scale * 2f64.powi(160));
    }

    #[test]
    fn a_uniform_field_is_taken_as_zero() {
        let uniform = SingleDirections::of(&[DVec3::new(3.0, -1.0, 0.5); 4]);
        assert!(uniform.values.iter().all(|v| *v == Vec3A::ZERO));
    }

    #[test]
    fn zero_and_non_finite_fields_keep_a_unit_scale() {
        let zero = SingleDirections::of(&[DVec3::ZERO; 3]);
        assert_eq!(zero.scale, 1.0);
        assert!(zero.values.iter().all(|v| *v == Vec3A::ZERO));
        let nan = SingleDirections::of(&[DVec3::ZERO, DVec3::splat(f64::NAN)]);
        assert_eq!(nan.scale, 1.0);
        assert!(nan.values.iter().any(|v| v.is_nan()));
    }

    #[test]
    fn round_off_entries_of_gradients_and_matrices_are_zero() {
        let gradients = [DVec3::new(25.0, 1e-40, -3.0), DVec3::new(1e-20, 2.0, 0.0)];
        let bound = gradient_bound(&gradients);
        assert_eq!(bound, 25.0);
        let single = flushed_gradients(&gradients, bound);
        assert_eq!(single[0], Vec3A::new(25.0, 0.0, -3.0));
        assert_eq!(single[1], Vec3A::new(0.0, 2.0, 0.0));
        // A point matrix with rotation round-off: entries 10⁻²³ and 10⁻³⁹ beside 10⁻⁶.
        let m = DMat3::from_cols(
            DVec3::new(-6.6e-7, -2.5e-23, -2.3e-39),
            DVec3::new(2.5e-23, -1.5e-6, -2.9e-7),
            DVec3::new(0.0, -2.9e-7, -6.6e-7),
        );
        let single = flushed_matrix(m, FLUSHED_BELOW * 1e-6);
        assert!([single.x_axis, single.y_axis, single.z_axis]
            .into_iter()
            .all(finite_and_normal));
        assert_eq!(single.x_axis, Vec3A::new(-6.6e-7, 0.0, 0.0));
        assert_eq!(single.z_axis, m.z_axis.as_vec3a());
    }
}
