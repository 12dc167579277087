//! Melting (MKN04 §5.2, the third material of "elastic, plastic and melting objects"): each phyxel
//! carries a temperature; a heat source the user moves warms the phyxels near it, heat diffuses to the
//! neighbours, and stiffness and yield strain fall as the temperature approaches the melting point, so a
//! solid block softens, flows plastically and slumps.

use super::body::Body;
use super::kernel::poly6;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// Room temperature (°C): every phyxel starts here.
pub const AMBIENT_TEMPERATURE: f64 = 20.0;

/// A spherical heater.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeatSource {
    pub position: DVec3,
    /// Phyxels within this distance are heated, most at the centre (poly6 falloff).
    pub radius: f64,
    /// Heating rate at the centre (K/s).
    pub rate: f64,
}

/// Thermal and softening parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Melting {
    /// Temperature (°C) at which the material is fully molten.
    pub melting_point: f64,
    /// Stiffness factor of the molten material (λ, μ and the yield strain are scaled down to it).
    pub molten_stiffness: f64,
    /// Heat exchange rate between neighbours (1/s):
    /// dT_i/dt = D Σ_j w_ij (T_j − T_i) / Σ_j w_ij (a normalized graph Laplacian).
    pub diffusivity: f64,
    pub heat_source: Option<HeatSource>,
}

impl Melting {
    /// The stiffness factor s(T) = 1 − (T − T_ambient)/(T_melt − T_ambient), clamped to
    /// [molten_stiffness, 1]: linear softening from room temperature to the melting point.
    pub fn stiffness_scale(&self, temperature: f64) -> f64 {
        let span = (self.melting_point - AMBIENT_TEMPERATURE).max(f64::MIN_POSITIVE);
        (1.0 - (temperature - AMBIENT_TEMPERATURE) / span).clamp(self.molten_stiffness, 1.0)
    }

    /// One explicit step of heating and diffusion, then the new stiffness factors.
    pub fn heat(&self, body: &mut Body, dt: f64) {
        let positions = body.positions();
        let hoods = &body.neighbours;
        let rate = (self.diffusivity * dt).min(1.0);
        let next: Vec<f64> = (0..body.len())
            .map(|i| {
                let h = body.support_radius[i];
                let (mut exchange, mut weight) = (0.0, 0.0);
                for e in hoods.edges(i) {
                    let j = hoods.neighbour[e] as usize;
                    let w = poly6(body.reference[j].distance(body.reference[i]), h);
                    exchange += w * (body.temperature[j] - body.temperature[i]);
                    weight += w;
                }
                let diffusion = if weight > 0.0 {
                    rate * exchange / weight
                } else {
                    0.0
                };
                let source = self.heat_source.map_or(0.0, |s| {
                    s.rate * dt * poly6(positions[i].distance(s.position), s.radius)
                        / poly6(0.0, s.radius)
                });
                body.temperature[i] + diffusion + source
            })
            .collect();
        body.stiffness_scale = next.iter().map(|&t| self.stiffness_scale(t)).collect();
        body.temperature = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stiffness_falls_linearly_to_the_molten_value() {
        let m = Melting {
            melting_point: 120.0,
            molten_stiffness: 0.01,
            diffusivity: 0.0,
            heat_source: None,
        };
        assert_eq!(m.stiffness_scale(AMBIENT_TEMPERATURE), 1.0);
        assert_eq!(
            m.stiffness_scale(0.0),
            1.0,
            "cold material is not stiffer than solid"
        );
        assert!((m.stiffness_scale(70.0) - 0.5).abs() < 1e-15);
        assert_eq!(m.stiffness_scale(500.0), 0.01);
    }
}
