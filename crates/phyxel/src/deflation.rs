//! Deflated preconditioned conjugate gradients (Nicolaides 1987, "Deflation of conjugate gradients
//! with applications to boundary value problems"; Saad, Yeung, Erhel & Guyomarc'h 2000, "A deflated
//! version of the conjugate gradient algorithm", Algorithm 2.2 with a preconditioner).
//!
//! A block-Jacobi preconditioner is local: it scales each phyxel's residual by its own diagonal block,
//! and a residual that is the same everywhere — a body in free fall whose damping changes the step's
//! velocity change a little, uniformly — comes out of it non-uniform (a surface phyxel's block is
//! lighter than an interior one's), so CG spends iterations putting back together the one motion it
//! was asked for: 18 per step on the 3D demo's falling cube. Deflation solves the few coarse modes Z
//! (here the rigid translations) exactly, with the k × k Galerkin matrix E = Zᵀ A Z, and runs CG on the
//! rest:
//!
//! x₀ ← x₀ + Z E⁻¹ Zᵀ r₀ (so that Zᵀ r₀ = 0),  and each search direction p = z + β p − Z E⁻¹ (A Z)ᵀ z
//! (z = M⁻¹ r),
//!
//! which keeps every residual orthogonal to Z and every direction A-orthogonal to it (Saad et al. 2000,
//! Lemma 2.1). The cost beyond plain PCG is k dot products and one k-term sum per iteration, and the
//! products A Z once per solve (free where they are known analytically).

use crate::conjugate_gradient::{iterate, start, InnerProduct, Solution, Tolerance};

/// E = Zᵀ A Z is refused as singular (dependent coarse vectors) when a Cholesky pivot is at most this
/// fraction of E's largest diagonal entry (the GPU's twin, shaders/conjugate_gradient.wgsl, shares it).
pub const DEPENDENT_PIVOT: f64 = 1e-12;

/// The coarse space Z (k vectors) with its products A Z and the Cholesky factor of E = Zᵀ A Z.
#[derive(Clone, Debug)]
pub struct CoarseSpace<V> {
    z: Vec<V>,
    az: Vec<V>,
    /// E = L Lᵀ: L's rows, lower triangle, k × k row-major.
    factor: Vec<f64>,
}

impl<V: InnerProduct> CoarseSpace<V> {
    /// The coarse space of the vectors `z` with their products `az` = A z. None when E = Zᵀ A Z is
    /// not positive definite (no vectors, dependent vectors, or a product that is not A's).
    pub fn new(z: Vec<V>, az: Vec<V>) -> Option<Self> {
        let k = z.len();
        if k == 0 || az.len() != k {
            return None;
        }
        // E symmetrized (A is symmetric; the products may carry rounding).
        let mut e = vec![0.0; k * k];
        for i in 0..k {
            for j in 0..k {
                e[i * k + j] = 0.5 * (z[i].dot(&az[j]) + z[j].dot(&az[i]));
            }
        }
        let largest = (0..k).map(|i| e[i * k + i]).fold(0.0f64, f64::max);
        if !largest.is_finite() || largest <= 0.0 {
            return None;
        }
        // Cholesky E = L Lᵀ; a pivot below `DEPENDENT_PIVOT` of the largest diagonal means dependent
        // vectors.
        let mut factor = vec![0.0; k * k];
        for i in 0..k {
            for j in 0..=i {
                let sum: f64 = (0..j).map(|m| factor[i * k + m] * factor[j * k + m]).sum();
                let value = e[i * k + j] - sum;
                if i == j {
                    // (NaN fails this test too.)
                    if value.is_nan() || value <= DEPENDENT_PIVOT * largest {
                        return None;
                    }
                    factor[i * k + i] = value.sqrt();
                } else {
                    factor[i * k + j] = value / factor[j * k + j];
                }
            }
        }
        Some(Self { z, az, factor })
    }

    /// The coarse space's dimension k.
    pub fn dimension(&self) -> usize {
        self.z.len()
    }

    /// y = E⁻¹ c, by the two triangular solves of L Lᵀ y = c.
    fn coarse_solve(&self, c: &[f64]) -> Vec<f64> {
        let k = self.z.len();
        let mut y = c.to_vec();
        for i in 0..k {
            let sum: f64 = (0..i).map(|m| self.factor[i * k + m] * y[m]).sum();
            y[i] = (y[i] - sum) / self.factor[i * k + i];
        }
        for i in (0..k).rev() {
            let sum: f64 = (i + 1..k).map(|m| self.factor[m * k + i] * y[m]).sum();
            y[i] = (y[i] - sum) / self.factor[i * k + i];
        }
        y
    }

    /// w ← w + Σ_m y_m basis_m.
    fn add_combination(w: &mut V, basis: &[V], y: &[f64]) {
        for (vector, &coefficient) in basis.iter().zip(y) {
            w.add_scaled(coefficient, vector);
        }
    }

    /// z − Z E⁻¹ (A Z)ᵀ z: the direction's part A-orthogonal to the coarse space.
    fn project(&self, mut z: V) -> V {
        let c: Vec<f64> = self.az.iter().map(|az| az.dot(&z)).collect();
        let y: Vec<f64> = self.coarse_solve(&c).iter().map(|y| -y).collect();
        Self::add_combination(&mut z, &self.z, &y);
        z
    }
}

/// Deflated PCG (module docs): A x = b with the preconditioner `precondition` (M⁻¹) and the coarse
/// space `coarse`, from the guess `x0`; stops as [`crate::conjugate_gradient::solve`] does, and like
/// it drops a guess worse than none.
pub fn solve_deflated<V, A, P>(
    apply: A,
    b: &V,
    x0: V,
    precondition: P,
    coarse: &CoarseSpace<V>,
    tolerance: Tolerance,
) -> Solution<V>
where
    V: InnerProduct,
    A: Fn(&V) -> V,
    P: Fn(&V) -> V,
{
    let b_norm = b.dot(b).sqrt();
    if b_norm == 0.0 {
        return Solution::zero(b);
    }
    let (mut x, mut r) = start(&apply, b, x0);
    // x₀ ← x₀ + Z E⁻¹ Zᵀ r₀, r₀ ← r₀ − A Z E⁻¹ Zᵀ r₀: the coarse modes solved exactly.
    let c: Vec<f64> = coarse.z.iter().map(|z| z.dot(&r)).collect();
    let y = coarse.coarse_solve(&c);
    CoarseSpace::add_combination(&mut x, &coarse.z, &y);
    let minus_y: Vec<f64> = y.iter().map(|y| -y).collect();
    CoarseSpace::add_combination(&mut r, &coarse.az, &minus_y);
    let scale = b_norm.max(tolerance.reference_norm);
    iterate(
        apply,
        x,
        r,
        |r: &V| coarse.project(precondition(r)),
        tolerance,
        scale,
    )
}

#[cfg(test)]
mod tests;
