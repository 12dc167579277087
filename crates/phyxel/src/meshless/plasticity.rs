//! Plastic flow (MKN04 §5.1; thesis §4.1.2; tutorial §7.3, the update after eq. 66).

use super::elasticity::contract;
use glam::DMat3;
use serde::{Deserialize, Serialize};

/// The three parameters of MKN04's plasticity model.
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
}
