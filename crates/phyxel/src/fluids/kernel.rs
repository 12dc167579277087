//! The fluid solvers' smoothing kernel: the cubic spline of [`crate::kernels`] (KBST19 eq. 4, support
//! h, normalized in the space's dimension), with its constant and powers of h taken once. The vector
//! type and the dimension come from `space.rs` (2D here, 3D in `crate::fluids3d`).

pub use super::space::Vector;
use super::space::{from_single, to_single, SingleVector, DIMENSION};
use crate::kernels::Kernel;

/// W(r) = σ_d / h^d f(r/h) and ∇W(x) = σ_d / h^(d+1) f′(|x|/h) x/|x| of the cubic spline.
#[derive(Clone, Copy, Debug)]
pub struct SmoothingKernel {
    /// The support radius h (W = 0 for r ≥ h).
    pub h: f64,
    inv_h: f64,
    w_scale: f64,
    grad_scale: f64,
}

impl SmoothingKernel {
    pub fn cubic_spline(h: f64) -> Self {
        let sigma = Kernel::CubicSpline.normalization(DIMENSION);
        let d = DIMENSION.number();
        Self {
            h,
            inv_h: 1.0 / h,
            w_scale: sigma / h.powi(d),
            grad_scale: sigma / h.powi(d + 1),
        }
    }

    /// The cubic spline's f(q) and f′(q) (KBST19 eq. 4 with support h), inlined for the inner loops,
    /// written without a branch: f(q) = 2 (1 − q)₊³ − 8 (½ − q)₊³ and f′(q) = −6 (1 − q)₊² + 24 (½ − q)₊²
    /// (for q ≤ ½ the two terms add up to 6 (q³ − q²) + 1 and 18 q² − 12 q; (·)₊ = max(·, 0)). Which
    /// piece a pair falls in follows no pattern a branch predictor learns. Measured on the 2D lesson's
    /// dam break at 71 across (300 steps from rest, one thread, runs alternated, 2026-12-03): natively
    /// PBF, which evaluates the kernel once per pair and iteration, 41.6 → 46 steps/s, WCSPH 645 →
    /// 690, DFSPH 78 → 80, the 3D dam break's PBF (48 778 particles, 2 threads) 11.0 → 11.8; in the
    /// browser (paired runs of the page) PBF 26.1–26.8 → 24.9–25.3 ms a step, DFSPH unchanged, WCSPH
    /// 2.6 → 2.7 ms (docs/benchmarks.md, "The spline without a branch").
    #[inline(always)]
    fn shape(q: f64) -> (f64, f64) {
        let outer = positive_part(1.0 - q);
        let inner = positive_part(0.5 - q);
        let (outer2, inner2) = (outer * outer, inner * inner);
        (
            2.0 * outer2 * outer - 8.0 * inner2 * inner,
            24.0 * inner2 - 6.0 * outer2,
        )
    }

    /// W(r, h).
    #[inline(always)]
    pub fn w(&self, r: f64) -> f64 {
        self.w_scale * Self::shape(r * self.inv_h).0
    }

    /// ∇W at x = x_i − x_j (zero at x = 0 and beyond the support).
    #[inline(always)]
    pub fn grad_w(&self, x: Vector) -> Vector {
        let r = x.length();
        if r <= 1e-9 * self.h || r >= self.h {
            return Vector::ZERO;
        }
        x * (self.grad_scale * Self::shape(r * self.inv_h).1 / r)
    }

    /// W(|x|) and ∇W(x) together, from one square root and one evaluation of the spline: bit for bit
    /// what [`SmoothingKernel::w`] and [`SmoothingKernel::grad_w`] return.
    #[inline(always)]
    pub fn w_and_grad(&self, x: Vector) -> (f64, Vector) {
        let r = x.length();
        let (f, df) = Self::shape(r * self.inv_h);
        let grad = if r <= 1e-9 * self.h || r >= self.h {
            Vector::ZERO
        } else {
            x * (self.grad_scale * df / r)
        };
        (self.w_scale * f, grad)
    }
}

/// max(v, 0), exactly, as ½ (v + |v|): a sum and a sign bit cleared. Not `f64::max`, which in
/// WebAssembly is no single instruction (its NaN rule differs from wasm's `f64.max`): with it the
/// branch-free spline made the browser's PBF step 12 % slower (25.4 → 28.8 ms at 71 across) while
/// it made the native one 12 % faster.
#[inline(always)]
fn positive_part(v: f64) -> f64 {
    0.5 * (v + v.abs())
}

/// W_ij and ∇W_ij of one neighbour pair (x = x_i − x_j), kept per pair by
/// [`crate::fluids::Fluid::compute_densities`] so the passes after it, and every iteration of DFSPH
/// and PBF at the same positions, read them instead of evaluating the kernel again.
///
/// Kept in single precision: half the bytes of the passes' largest stream (16 instead of 32 bytes a
/// pair in 3D, 12 instead of 24 in the plane), read once or more per pass. The rounding (relative
/// 6·10⁻⁸) is far below what the solvers resolve: with W and ∇W rounded so, every hydrostatic test
/// passes with the same first-order convergence (docs/benchmarks.md, "The hydrostatic column's
/// clock"), and each ρ_i is still summed from the kernels in double precision before they are
/// rounded. Everything computed from them is in double precision.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairKernel {
    w: f32,
    grad: SingleVector,
}

impl PairKernel {
    /// W and ∇W rounded to single precision.
    #[inline(always)]
    pub fn new(w: f64, grad: Vector) -> Self {
        Self {
            w: w as f32,
            grad: to_single(grad),
        }
    }

    /// W_ij.
    #[inline(always)]
    pub fn w(&self) -> f64 {
        f64::from(self.w)
    }

    /// ∇W_ij.
    #[inline(always)]
    pub fn grad(&self) -> Vector {
        from_single(self.grad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free spline is the cubic spline of `crate::kernels` (its pieces chosen by branches,
    /// its normalization tested there): W and |∇W| agree to 10⁻¹⁴ relative at 4 001 distances across
    /// both pieces, the joint at q = ½ and beyond the support, in this file's dimension (2D and 3D:
    /// the file is compiled for both); ∇W points along x and is zero at x = 0 and past h.
    #[test]
    fn the_branch_free_spline_is_the_cubic_spline() {
        let h = 0.03;
        let kernel = SmoothingKernel::cubic_spline(h);
        let reference = Kernel::CubicSpline;
        let scale = reference.value(0.0, h, DIMENSION);
        let slope = reference.derivative(0.75 * h, h, DIMENSION).abs();
        let mut direction = Vector::ZERO;
        direction[0] = 0.6;
        direction[1] = 0.8;
        for k in 0..=4000 {
            let r = 1.25 * h * k as f64 / 4000.0;
            let (w, grad) = kernel.w_and_grad(r * direction);
            let w_ref = reference.value(r, h, DIMENSION);
            let dw_ref = reference.derivative(r, h, DIMENSION);
            assert!(
                (w - w_ref).abs() <= 1e-14 * scale,
                "W at r = {r}: {w} vs {w_ref}"
            );
            assert!(
                (grad.length() - dw_ref.abs()).abs() <= 1e-14 * slope,
                "|∇W| at r = {r}: {} vs {dw_ref}",
                grad.length()
            );
            if r > 0.0 && r < h {
                // W decreases outward: ∇W points back toward the origin, along −x.
                assert!(grad.dot(direction) < 0.0, "r = {r}");
                assert!((grad - grad.dot(direction) * direction).length() <= 1e-12 * slope);
            } else {
                assert_eq!(grad, Vector::ZERO, "r = {r}");
            }
            assert_eq!(kernel.w((r * direction).length()), w);
        }
        assert_eq!(kernel.w(h), 0.0);
        assert_eq!(kernel.w(2.0 * h), 0.0);
    }
}
