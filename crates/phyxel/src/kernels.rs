//! SPH smoothing kernels with compact support h, normalized in 1, 2 or 3 dimensions
//! (Koschier, Bender, Solenthaler, Teschner, "Smoothed Particle Hydrodynamics Techniques for the
//! Physics Based Simulation of Fluids and Solids", Eurographics tutorial 2019 — "KBST19"; Adams & Wicke,
//! meshless tutorial §2).
//!
//! Every kernel is W(r, h) = σ_d / h^d · f(q) with q = r/h ∈ [0, 1] and f(q) = 0 for q ≥ 1; the
//! constant σ_d makes ∫ W dV = 1 in d dimensions: σ_d = 1 / ∫ f(q) dV over the unit ball.

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// The dimension the kernel is normalized in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dimension {
    One = 1,
    Two = 2,
    Three = 3,
}

impl Dimension {
    pub fn from_number(d: u32) -> Option<Self> {
        match d {
            1 => Some(Dimension::One),
            2 => Some(Dimension::Two),
            3 => Some(Dimension::Three),
            _ => None,
        }
    }

    pub fn number(self) -> i32 {
        self as i32
    }
}

/// The kernels of the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kernel {
    /// Cubic spline (Monaghan 1992, written with support h as in KBST19 eq. 4):
    /// f(q) = 6(q³ − q²) + 1 for q ≤ ½, 2(1 − q)³ for ½ < q ≤ 1.
    CubicSpline,
    /// Wendland C2 (Wendland 1995): f(q) = (1 − q)⁴(1 + 4q) in 2D and 3D, (1 − q)³(1 + 3q) in 1D.
    WendlandC2,
    /// Quintic spline (Morris 1996) with s = 3q: f = (3 − s)⁵ − 6(2 − s)⁵ + 15(1 − s)⁵, each term only
    /// where its base is positive.
    QuinticSpline,
    /// Poly6 (Müller, Charypar, Gross 2003): f(q) = (1 − q²)³ — smooth, cheap (no square root).
    Poly6,
    /// Spiky (Müller et al. 2003): f(q) = (1 − q)³ — its gradient does not vanish at r = 0.
    Spiky,
}

impl Kernel {
    pub const ALL: [Kernel; 5] = [
        Kernel::CubicSpline,
        Kernel::WendlandC2,
        Kernel::QuinticSpline,
        Kernel::Poly6,
        Kernel::Spiky,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Kernel::CubicSpline => "cubic",
            Kernel::WendlandC2 => "wendland",
            Kernel::QuinticSpline => "quintic",
            Kernel::Poly6 => "poly6",
            Kernel::Spiky => "spiky",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kernel::CubicSpline => "Cubic spline",
            Kernel::WendlandC2 => "Wendland C2",
            Kernel::QuinticSpline => "Quintic spline",
            Kernel::Poly6 => "Poly6",
            Kernel::Spiky => "Spiky",
        }
    }

    pub fn from_id(id: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.id() == id)
    }

    /// σ_d = 1 / ∫ f dV over the unit ball (exact fractions of the polynomial integrals).
    pub fn normalization(self, dim: Dimension) -> f64 {
        use Dimension::*;
        match (self, dim) {
            (Kernel::CubicSpline, One) => 4.0 / 3.0,
            (Kernel::CubicSpline, Two) => 40.0 / (7.0 * PI),
            (Kernel::CubicSpline, Three) => 8.0 / PI,
            (Kernel::WendlandC2, One) => 5.0 / 4.0,
            (Kernel::WendlandC2, Two) => 7.0 / PI,
            (Kernel::WendlandC2, Three) => 21.0 / (2.0 * PI),
            (Kernel::QuinticSpline, One) => 1.0 / 40.0,
            (Kernel::QuinticSpline, Two) => 63.0 / (478.0 * PI),
            (Kernel::QuinticSpline, Three) => 9.0 / (40.0 * PI),
            (Kernel::Poly6, One) => 35.0 / 32.0,
            (Kernel::Poly6, Two) => 4.0 / PI,
            (Kernel::Poly6, Three) => 315.0 / (64.0 * PI),
            (Kernel::Spiky, One) => 2.0,
            (Kernel::Spiky, Two) => 10.0 / PI,
            (Kernel::Spiky, Three) => 15.0 / PI,
        }
    }

    /// The shape f(q) and its derivatives f′(q), f″(q), for q ≥ 0.
    pub fn shape(self, q: f64, dim: Dimension) -> (f64, f64, f64) {
        if q >= 1.0 {
            return (0.0, 0.0, 0.0);
        }
        match self {
            Kernel::CubicSpline if q <= 0.5 => (
                6.0 * (q * q * q - q * q) + 1.0,
                18.0 * q * q - 12.0 * q,
                36.0 * q - 12.0,
            ),
            Kernel::CubicSpline => {
                let p = 1.0 - q;
                (2.0 * p * p * p, -6.0 * p * p, 12.0 * p)
            }
            Kernel::WendlandC2 if dim == Dimension::One => {
                // (1 − q)³(1 + 3q): f′ = −12q(1 − q)², f″ = −12(1 − q)(1 − 3q)
                let p = 1.0 - q;
                (
                    p * p * p * (1.0 + 3.0 * q),
                    -12.0 * q * p * p,
                    -12.0 * p * (1.0 - 3.0 * q),
                )
            }
            Kernel::WendlandC2 => {
                // (1 − q)⁴(1 + 4q): f′ = −20q(1 − q)³, f″ = −20(1 − q)²(1 − 4q)
                let p = 1.0 - q;
                (
                    p.powi(4) * (1.0 + 4.0 * q),
                    -20.0 * q * p.powi(3),
                    -20.0 * p * p * (1.0 - 4.0 * q),
                )
            }
            Kernel::QuinticSpline => {
                let s = 3.0 * q;
                let (mut f, mut df, mut ddf) = (0.0, 0.0, 0.0);
                for (centre, weight) in [(3.0, 1.0), (2.0, -6.0), (1.0, 15.0)] {
                    let b: f64 = centre - s;
                    if b > 0.0 {
                        f += weight * b.powi(5);
                        df += weight * -15.0 * b.powi(4); // d/dq = d/ds · 3
                        ddf += weight * 180.0 * b.powi(3);
                    }
                }
                (f, df, ddf)
            }
            Kernel::Poly6 => {
                let p = 1.0 - q * q;
                (p * p * p, -6.0 * q * p * p, -6.0 * p * p + 24.0 * q * q * p)
            }
            Kernel::Spiky => {
                let p = 1.0 - q;
                (p * p * p, -3.0 * p * p, 6.0 * p)
            }
        }
    }

    /// W(r, h) = σ_d / h^d · f(r/h).
    pub fn value(self, r: f64, h: f64, dim: Dimension) -> f64 {
        self.normalization(dim) / h.powi(dim.number()) * self.shape(r.abs() / h, dim).0
    }

    /// dW/dr = σ_d / h^(d+1) · f′(r/h); the gradient is ∇W = dW/dr · x/r.
    pub fn derivative(self, r: f64, h: f64, dim: Dimension) -> f64 {
        self.normalization(dim) / h.powi(dim.number() + 1) * self.shape(r.abs() / h, dim).1
    }

    /// The Laplacian of a radial function: ∇²W = W″(r) + (d − 1)/r · W′(r). At r = 0 the second term
    /// tends to (d − 1) W″(0) when W′(0) = 0; for the spiky kernel (W′(0) ≠ 0) it diverges, reported as ∞.
    pub fn laplacian(self, r: f64, h: f64, dim: Dimension) -> f64 {
        let r = r.abs();
        let (_, df, ddf) = self.shape(r / h, dim);
        let sigma = self.normalization(dim) / h.powi(dim.number() + 2);
        let d = dim.number() as f64;
        if r == 0.0 {
            if dim == Dimension::One {
                return sigma * ddf;
            }
            return if df == 0.0 {
                sigma * d * ddf
            } else {
                f64::NEG_INFINITY
            };
        }
        sigma * (ddf + (d - 1.0) * df * h / r)
    }

    /// A numerical check of the normalization by an SPH-style sum: Σ_j W(|x_j|) ΔV over a lattice of
    /// spacing h / `per_radius` covering the support (the page shows it live).
    pub fn lattice_integral(self, h: f64, dim: Dimension, per_radius: usize) -> f64 {
        let n = per_radius as i64;
        let dx = h / per_radius as f64;
        let cell = dx.powi(dim.number());
        let range = -n..=n;
        let axis = |k: i64| k as f64 * dx;
        match dim {
            Dimension::One => range.map(|i| self.value(axis(i), h, dim)).sum::<f64>() * cell,
            Dimension::Two => {
                range
                    .clone()
                    .flat_map(|i| range.clone().map(move |j| (i, j)))
                    .map(|(i, j)| self.value(axis(i).hypot(axis(j)), h, dim))
                    .sum::<f64>()
                    * cell
            }
            Dimension::Three => {
                let mut sum = 0.0;
                for i in range.clone() {
                    for j in range.clone() {
                        for k in range.clone() {
                            let r = (axis(i).powi(2) + axis(j).powi(2) + axis(k).powi(2)).sqrt();
                            sum += self.value(r, h, dim);
                        }
                    }
                }
                sum * cell
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dimension::*;

    /// ∫ W dV by Simpson's rule in r with the shell measure 2, 2πr, 4πr².
    fn radial_integral(kernel: Kernel, h: f64, dim: Dimension) -> f64 {
        let n = 4000;
        let dr = h / n as f64;
        let shell = |r: f64| match dim {
            One => 2.0,
            Two => 2.0 * PI * r,
            Three => 4.0 * PI * r * r,
        };
        (0..=n)
            .map(|i| {
                let r = i as f64 * dr;
                let w = if i == 0 || i == n {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * kernel.value(r, h, dim) * shell(r)
            })
            .sum::<f64>()
            * dr
            / 3.0
    }

    #[test]
    fn every_kernel_is_normalized_in_1d_2d_and_3d() {
        for kernel in Kernel::ALL {
            for dim in [One, Two, Three] {
                for h in [0.1, 1.0, 2.5] {
                    let integral = radial_integral(kernel, h, dim);
                    assert!(
                        (integral - 1.0).abs() < 1e-3,
                        "{kernel:?} {dim:?} h = {h}: ∫W dV = {integral}"
                    );
                }
                // The resolution the lesson page uses.
                let lattice = kernel.lattice_integral(1.0, dim, if dim == Three { 24 } else { 40 });
                assert!(
                    (lattice - 1.0).abs() < 2e-3,
                    "{kernel:?} {dim:?}: lattice sum {lattice}"
                );
            }
        }
    }

    #[test]
    fn derivatives_equal_finite_differences() {
        let h = 1.3;
        for kernel in Kernel::ALL {
            for dim in [One, Two, Three] {
                for r in [0.05, 0.2, 0.45, 0.55, 0.7, 0.9, 1.2].map(|q| q * h) {
                    let e = 1e-5;
                    let fd =
                        (kernel.value(r + e, h, dim) - kernel.value(r - e, h, dim)) / (2.0 * e);
                    let analytic = kernel.derivative(r, h, dim);
                    assert!(
                        (fd - analytic).abs() < 1e-6 * (1.0 + analytic.abs()),
                        "{kernel:?} {dim:?} r = {r}: {fd} vs {analytic}"
                    );
                    // ∇²W = W″ + (d − 1)/r W′ with W″ by central differences of W′.
                    let second = (kernel.derivative(r + e, h, dim)
                        - kernel.derivative(r - e, h, dim))
                        / (2.0 * e);
                    let laplacian = second + (dim.number() as f64 - 1.0) / r * analytic;
                    let exact = kernel.laplacian(r, h, dim);
                    assert!(
                        (laplacian - exact).abs() < 1e-5 * (1.0 + exact.abs()),
                        "{kernel:?} {dim:?} r = {r}: ∇²W"
                    );
                }
            }
        }
    }

    #[test]
    fn kernels_have_compact_support_and_are_positive_inside() {
        for kernel in Kernel::ALL {
            for dim in [One, Two, Three] {
                assert_eq!(kernel.value(1.0, 1.0, dim), 0.0);
                assert_eq!(kernel.value(1.7, 1.0, dim), 0.0);
                assert_eq!(kernel.derivative(1.2, 1.0, dim), 0.0);
                assert!(
                    (0..100).all(|i| kernel.value(i as f64 / 100.0, 1.0, dim) > 0.0),
                    "{kernel:?}"
                );
                // The kernel and its slope vanish continuously at the support radius.
                assert!(kernel.value(0.999, 1.0, dim) < 1e-4 * kernel.value(0.0, 1.0, dim));
            }
        }
        assert_eq!(Kernel::from_id("wendland"), Some(Kernel::WendlandC2));
        assert!(
            Kernel::Spiky.derivative(0.0, 1.0, Three) < 0.0,
            "spiky's gradient does not vanish at 0"
        );
    }
}
