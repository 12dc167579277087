//! Plastic flow: additive for the MKN04 model (MKN04 §5.1; thesis §4.1.2; tutorial §7.3, the update
//! after eq. 66), multiplicative for the corotated model (Zhou et al. 2013 §3.2 after Bargteil et al.
//! 2007 §4). One set of parameters drives both.

use super::elasticity::contract;
use super::mls::symmetric_eigen;
use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};

/// Squared singular values below this are clamped before taking logarithms (a degenerate F has no
/// finite Hencky strain).
pub const SMALLEST_SQUARED_STRETCH: f64 = 1e-12;

/// The three parameters of MKN04's plasticity model (read as yield, flow rate and cap of the
/// multiplicative model in [`Plasticity::flow_multiplicative`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plasticity {
    /// c_yield: the elastic strain (Frobenius norm) above which the material flows.
    pub yield_strain: f64,
    /// c_creep (1/s): the fraction of the elastic strain absorbed per second of flow. The tutorial's
    /// per-step c_creep is `creep · Δt`, which makes the flow independent of the step size.
    pub creep: f64,
    /// c_max: the largest plastic strain (Frobenius norm) a phyxel can store.
    pub max_strain: f64,
}

/// The Frobenius norm ‖A‖ = √(A:A).
pub fn norm(a: DMat3) -> f64 {
    contract(a, a).sqrt()
}

/// The principal Hencky (logarithmic) strains ln σ_k of F, σ_k its singular values, with the right
/// singular vectors V as columns: F = U diag(σ) Vᵀ, from the eigen-decomposition FᵀF = V diag(σ²) Vᵀ.
pub fn hencky_strain(f: DMat3) -> (DVec3, DMat3) {
    let (squares, v) = symmetric_eigen(f.transpose() * f);
    let logarithms = squares
        .max(DVec3::splat(SMALLEST_SQUARED_STRETCH))
        .to_array()
        .map(|s| 0.5 * s.ln());
    (DVec3::from_array(logarithms), v)
}

/// The size of a plastic deformation F_p: ‖ln σ(F_p)‖, the norm of its principal Hencky strains
/// (0 for no plastic deformation, ≈ ‖F_p − I‖ for a small one).
pub fn plastic_stretch(plastic: DMat3) -> f64 {
    hencky_strain(plastic).0.length()
}

impl Plasticity {
    /// One step of plastic flow for a phyxel with total Green strain `total` and plastic strain
    /// `plastic`:
    ///
    /// ε_elastic = ε − ε_plastic;  if ‖ε_elastic‖ > c_yield: ε_plastic += c_creep Δt · ε_elastic;
    /// if ‖ε_plastic‖ > c_max: ε_plastic ← ε_plastic · c_max / ‖ε_plastic‖.
    pub fn flow(&self, total: DMat3, plastic: DMat3, dt: f64) -> DMat3 {
        let elastic = total - plastic;
        let mut plastic = plastic;
        if norm(elastic) > self.yield_strain {
            plastic += (self.creep * dt).min(1.0) * elastic;
        }
        let size = norm(plastic);
        if size > self.max_strain {
            plastic *= self.max_strain / size;
        }
        plastic
    }

    /// One step of multiplicative plastic flow (Zhou et al. 2013 §3.2, eqs. 12–15, with the flow rule
    /// of Bargteil et al. 2007 §4) for a phyxel with elastic deformation F_e and plastic deformation F_p;
    /// returns the new F_p. The total F = F_e F_p is unchanged: only the split moves.
    ///
    /// With F_e = U diag(σ) Vᵀ, the deviatoric Hencky strain e = ln σ − ⅓ Σ ln σ_k measures the shape
    /// change (volume change never flows, so det F_p stays 1). If ‖e‖ > c_yield, the fraction
    /// min(c_creep Δt, 1) of the excess over the yield strain moves into the plastic part — γ of e with
    /// γ = min(c_creep Δt, 1) (‖e‖ − c_yield)/‖e‖ (Bargteil et al.'s flow rate, never past the yield
    /// surface):
    ///
    /// F_p ← V diag(exp(γ e)) Vᵀ F_p,  so that  F_e ← U diag(σ exp(−γ e)) Vᵀ;
    ///
    /// with c_creep Δt ≥ 1 the elastic strain returns exactly to the yield surface ‖e‖ = c_yield
    /// (perfect plasticity). γ is reduced so that ‖ln σ(F_p)‖ stays within c_max (the plastic stretches
    /// add up to at most the sum of their norms). An inverted or degenerate F_e (det ≤ 0) does not flow.
    pub fn flow_multiplicative(&self, elastic: DMat3, plastic: DMat3, dt: f64) -> DMat3 {
        if elastic.determinant().partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return plastic;
        }
        let (hencky, v) = hencky_strain(elastic);
        let deviatoric = hencky - DVec3::splat(hencky.element_sum() / 3.0);
        let size = deviatoric.length();
        if size <= self.yield_strain {
            return plastic;
        }
        let rate = (self.creep * dt).min(1.0) * (size - self.yield_strain) / size;
        let capacity = (self.max_strain - plastic_stretch(plastic)).max(0.0) / size;
        let gamma = rate.min(capacity);
        if gamma <= 0.0 {
            return plastic;
        }
        let increment = v * DMat3::from_diagonal((gamma * deviatoric).exp()) * v.transpose();
        increment * plastic
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn flow_obeys_yield_creep_and_max() {
        let p = Plasticity {
            yield_strain: 0.1,
            creep: 10.0,
            max_strain: 0.3,
        };
        let small = DMat3::from_diagonal(DVec3::new(0.05, 0.0, 0.0));
        assert_eq!(
            p.flow(small, DMat3::ZERO, 0.01),
            DMat3::ZERO,
            "below yield nothing flows"
        );
        let large = DMat3::from_diagonal(DVec3::new(0.2, 0.0, 0.0));
        let after = p.flow(large, DMat3::ZERO, 0.01);
        assert!(
            (after.x_axis.x - 0.1 * 0.2).abs() < 1e-15,
            "creep absorbs c_creep·Δt of the elastic strain"
        );
        let huge = DMat3::from_diagonal(DVec3::new(2.0, 0.0, 0.0));
        assert!(
            (norm(p.flow(huge, DMat3::ZERO, 1.0)) - 0.3).abs() < 1e-12,
            "capped at c_max"
        );
    }

    fn largest_entry(m: DMat3) -> f64 {
        m.abs().to_cols_array().into_iter().fold(0.0, f64::max)
    }

    /// F = R₁ diag(σ) R₂ᵀ with two unrelated rotations.
    fn deformation(stretches: DVec3, angle: f64) -> DMat3 {
        let left = DMat3::from_axis_angle(DVec3::new(0.3, 1.0, -0.5).normalize(), angle);
        let right = DMat3::from_axis_angle(DVec3::new(-0.8, 0.2, 0.6).normalize(), 0.7 * angle);
        left * DMat3::from_diagonal(stretches) * right.transpose()
    }

    fn deviatoric_size(f: DMat3) -> f64 {
        let (hencky, _) = hencky_strain(f);
        (hencky - DVec3::splat(hencky.element_sum() / 3.0)).length()
    }

    #[test]
    fn multiplicative_flow_returns_the_elastic_strain_to_the_yield_surface_at_constant_volume() {
        let p = Plasticity {
            yield_strain: 0.05,
            creep: 10.0,
            max_strain: 10.0,
        };
        let plastic = deformation(DVec3::new(1.1, 1.0 / 1.1, 1.0), 0.4);
        for (stretches, angle) in [
            (DVec3::new(1.3, 0.9, 0.95), 0.3),
            (DVec3::new(0.7, 1.2, 1.1), 2.0),
            (DVec3::new(1.02, 1.01, 1.0), 1.0),
        ] {
            let elastic = deformation(stretches, angle);
            let total = elastic * plastic;
            // c_creep Δt ≥ 1: the whole excess over c_yield flows in one step, and no more.
            let flowed = p.flow_multiplicative(elastic, plastic, 0.3);
            let new_elastic = total * flowed.inverse();
            assert!(
                largest_entry(new_elastic * flowed - total) < 1e-12,
                "F = F_e F_p is unchanged"
            );
            assert!(
                (flowed.determinant() - plastic.determinant()).abs() < 1e-12,
                "volume never flows: det F_p {} → {}",
                plastic.determinant(),
                flowed.determinant()
            );
            let before = deviatoric_size(elastic);
            let after = deviatoric_size(new_elastic);
            if before <= p.yield_strain {
                assert_eq!(flowed, plastic, "below yield nothing flows");
            } else {
                assert!(
                    (after - p.yield_strain).abs() < 1e-12,
                    "‖dev ln σ(F_e)‖: {before} → {after}, c_yield {}",
                    p.yield_strain
                );
            }
            // Half the rate: half the excess (γ = ½ (‖e‖ − c_yield)/‖e‖, so ‖e‖ → ‖e‖ − ½ excess).
            let half = total * p.flow_multiplicative(elastic, plastic, 0.05).inverse();
            let expected = before - 0.5 * (before - p.yield_strain).max(0.0);
            assert!((deviatoric_size(half) - expected).abs() < 1e-12);
            // The volumetric part of the elastic strain is untouched.
            assert!((new_elastic.determinant() - elastic.determinant()).abs() < 1e-12);
        }
    }

    #[test]
    fn multiplicative_flow_is_capped_and_skips_inverted_phyxels() {
        let p = Plasticity {
            yield_strain: 0.01,
            creep: 100.0,
            max_strain: 0.3,
        };
        let total = deformation(DVec3::new(2.0, 0.5, 1.0), 0.9);
        let mut plastic = DMat3::IDENTITY;
        for _ in 0..20 {
            plastic = p.flow_multiplicative(total * plastic.inverse(), plastic, 1.0);
            assert!(plastic_stretch(plastic) <= 0.3 + 1e-12);
        }
        assert!(
            plastic_stretch(plastic) > 0.29,
            "flows up to c_max: {}",
            plastic_stretch(plastic)
        );
        let inverted = DMat3::from_diagonal(DVec3::new(-1.5, 1.0, 1.0));
        assert_eq!(p.flow_multiplicative(inverted, plastic, 1.0), plastic);
        assert_eq!(p.flow_multiplicative(DMat3::ZERO, plastic, 1.0), plastic);
    }
}
