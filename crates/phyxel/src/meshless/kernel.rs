//! The MLS weight kernel: poly6 in 3D (MKN04 eq. 7), the same function as the kernels lesson's.

use crate::kernels::{Dimension, Kernel};

/// w(r, h) = 315 / (64 π h⁹) · (h² − r²)³ for r < h, 0 otherwise (normalized: ∫ w dV = 1).
pub fn poly6(r: f64, h: f64) -> f64 {
    Kernel::Poly6.value(r, h, Dimension::Three)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poly6_is_mkn04_eq_7() {
        let h: f64 = 0.37;
        for r in [0.0, 0.1, 0.3, 0.36] {
            let mkn04 = 315.0 / (64.0 * std::f64::consts::PI * h.powi(9)) * (h * h - r * r).powi(3);
            assert!((poly6(r, h) / mkn04 - 1.0).abs() < 1e-12);
        }
        assert_eq!(poly6(h, h), 0.0);
    }
}
