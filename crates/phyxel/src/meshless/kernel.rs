//! The MLS weight kernel.

use std::f64::consts::PI;

/// The poly6 kernel (Müller et al. 2003; MKN04 eq. 7):
///
/// w(r, h) = 315 / (64 π h⁹) · (h² − r²)³  for r < h, 0 otherwise,
///
/// normalized so that ∫ w dV = 1 over the ball of radius h.
pub fn poly6(r: f64, h: f64) -> f64 {
    if r >= h {
        return 0.0;
    }
    let d = h * h - r * r;
    315.0 / (64.0 * PI * h.powi(9)) * d * d * d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poly6_integrates_to_one_and_has_compact_support() {
        // ∫₀ʰ w(r) 4πr² dr by Simpson's rule with 2000 intervals.
        let h = 0.37;
        let n = 2000;
        let f = |r: f64| poly6(r, h) * 4.0 * PI * r * r;
        let dr = h / n as f64;
        let simpson: f64 = (0..=n)
            .map(|i| {
                let weight = if i == 0 || i == n {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                weight * f(i as f64 * dr)
            })
            .sum::<f64>()
            * dr
            / 3.0;
        assert!((simpson - 1.0).abs() < 1e-9, "∫w dV = {simpson}");
        assert_eq!(poly6(h, h), 0.0);
        assert_eq!(poly6(2.0 * h, h), 0.0);
        assert!(poly6(0.0, h) > poly6(0.5 * h, h));
    }
}
