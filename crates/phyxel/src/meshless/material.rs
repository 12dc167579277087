//! Material parameters.

use serde::{Deserialize, Serialize};

/// An isotropic elastic material with MKN04's volume-conservation term.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// Young's modulus E (Pa).
    pub young: f64,
    /// Poisson's ratio ν (0 ≤ ν < 0.5).
    pub poisson: f64,
    /// Rest density ρ₀ (kg/m³).
    pub density: f64,
    /// Volume-conservation stiffness k_v (Pa), MKN04 eq. 12 / thesis eq. 3.62.
    pub volume_stiffness: f64,
}

impl Material {
    /// A soft jelly (the thesis' regime): E = 100 kPa, ν = 0.3, ρ = 1000 kg/m³, k_v = E/2.
    pub const JELLY: Material = Material {
        young: 1e5,
        poisson: 0.3,
        density: 1000.0,
        volume_stiffness: 5e4,
    };

    /// Lamé parameters λ = Eν / ((1 + ν)(1 − 2ν)), μ = E / (2(1 + ν)).
    pub fn lame(&self) -> (f64, f64) {
        let (e, nu) = (self.young, self.poisson);
        (
            e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)),
            e / (2.0 * (1.0 + nu)),
        )
    }

    /// The explicit stability bound Δt ≤ h·√(ρ/E) for support radius h (thesis eq. 3.59): the time a
    /// pressure wave, travelling at √(E/ρ), needs to cross one support radius.
    pub fn cfl_time_step(&self, support_radius: f64) -> f64 {
        support_radius * (self.density / self.young).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lame_parameters_reproduce_e_and_nu() {
        let m = Material {
            young: 2.5e5,
            poisson: 0.3,
            density: 1000.0,
            volume_stiffness: 0.0,
        };
        let (lambda, mu) = m.lame();
        // E = μ(3λ + 2μ)/(λ + μ), ν = λ / (2(λ + μ)).
        assert!((mu * (3.0 * lambda + 2.0 * mu) / (lambda + mu) / m.young - 1.0).abs() < 1e-12);
        assert!((lambda / (2.0 * (lambda + mu)) - m.poisson).abs() < 1e-12);
        assert!((m.cfl_time_step(0.1) - 0.1 * (1000.0f64 / 2.5e5).sqrt()).abs() < 1e-15);
    }
}
