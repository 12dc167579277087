//! Melting (MKN04 §5.2, the third material of "elastic, plastic and melting objects"): each phyxel
//! carries a temperature; a heat source the user moves warms the phyxels near it, heat diffuses to the
//! neighbours, and stiffness and yield strain fall as the temperature approaches the melting point, so a
//! solid block softens, flows plastically and slumps.

use super::body::Body;
pub use super::body::AMBIENT_TEMPERATURE;
use super::kernel::poly6;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// The melting point of the 3D demo's material (°C): fully molten here, the stiffness at its least
/// ([`Melting::stiffness_scale`]); the demo's temperature colouring runs from
/// [`AMBIENT_TEMPERATURE`] to it.
pub const MELTING_POINT: f64 = 100.0;

/// The stiffness factor of the demo's molten material: λ, μ and the yield strain fall to 0.5 % of the
/// solid's, soft enough to slump under its own weight, never zero (the MLS forces still hold the
/// phyxels together, as a viscous melt).
pub const MOLTEN_STIFFNESS: f64 = 0.005;

/// The demo's heat exchange rate D (1/s) between neighbours. The explicit heat step
/// T_i ← T_i + D·Δt (T̄_i − T_i) (T̄_i the kernel-weighted mean of the neighbours) is a convex average
/// — no temperature overshoots its neighbours' (the discrete maximum principle, the graph analogue of
/// the grid bound Δt ≤ Δx²/(4D) of the examples site's heat equation, seed 004) — while D·Δt ≤ 1,
/// i.e. for every Δt ≤ 1/D = 0.2 s.
pub const DIFFUSIVITY: f64 = 5.0;

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

/// The demo's material: [`MELTING_POINT`], [`MOLTEN_STIFFNESS`], [`DIFFUSIVITY`], no heat source.
impl Default for Melting {
    fn default() -> Self {
        Self {
            melting_point: MELTING_POINT,
            molten_stiffness: MOLTEN_STIFFNESS,
            diffusivity: DIFFUSIVITY,
            heat_source: None,
        }
    }
}

impl Melting {
    /// The stiffness factor s(T) = 1 − (T − T_ambient)/(T_melt − T_ambient), clamped to
    /// [molten_stiffness, 1]: linear softening from room temperature to the melting point.
    pub fn stiffness_scale(&self, temperature: f64) -> f64 {
        let span = (self.melting_point - AMBIENT_TEMPERATURE).max(f64::MIN_POSITIVE);
        (1.0 - (temperature - AMBIENT_TEMPERATURE) / span).clamp(self.molten_stiffness, 1.0)
    }

    /// The stiffness factor s(T_i) of each temperature.
    pub fn stiffness_scales(&self, temperatures: &[f64]) -> Vec<f64> {
        temperatures
            .iter()
            .map(|&t| self.stiffness_scale(t))
            .collect()
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
        body.stiffness_scale = self.stiffness_scales(&next);
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

    #[test]
    fn the_demo_material_softens_from_room_temperature_to_molten_at_its_melting_point() {
        let m = Melting::default();
        assert_eq!(m.stiffness_scale(AMBIENT_TEMPERATURE), 1.0);
        let halfway = 0.5 * (AMBIENT_TEMPERATURE + MELTING_POINT);
        assert!((m.stiffness_scale(halfway) - 0.5).abs() < 1e-15);
        assert_eq!(m.stiffness_scale(MELTING_POINT), MOLTEN_STIFFNESS);
        assert!(
            m.stiffness_scale(2.0 * MELTING_POINT) > 0.0,
            "a melt, however hot, still holds together"
        );
    }

    #[test]
    fn heat_flows_to_the_neighbours_as_dt_dt_equals_d_times_their_mean_difference() {
        use crate::meshless::body::SupportRadius;
        use crate::meshless::material::Material;
        use crate::meshless::sampling::{sample, Lattice, Shape};
        let spacing = 0.1;
        let shape = Shape::Box {
            min: DVec3::ZERO,
            max: DVec3::splat(0.5),
        };
        let mut body = Body::new(
            sample(&shape, spacing, Lattice::Cubic),
            spacing.powi(3),
            spacing,
            Material::JELLY,
            SupportRadius::SpacingMultiple { factor: 2.2 },
        );
        // One hot phyxel in the middle, the rest at room temperature.
        let centre = DVec3::splat(0.25);
        let hot = (0..body.len())
            .min_by(|&a, &b| {
                let (da, db) = (
                    body.reference[a].distance(centre),
                    body.reference[b].distance(centre),
                );
                da.total_cmp(&db)
            })
            .unwrap();
        let (cold, warm) = (AMBIENT_TEMPERATURE, 80.0);
        body.temperature[hot] = warm;
        // A step of 0.1 s (the 3D demo's longest): D·Δt = 0.5 ≤ 1, a convex average.
        let dt = 0.1;
        let melting = Melting::default();
        melting.heat(&mut body, dt);
        // Its neighbours are all cold: T ← T + D·Δt·(T_cold − T), halfway to T_cold.
        let expected = warm + DIFFUSIVITY * dt * (cold - warm);
        assert!((body.temperature[hot] - expected).abs() < 1e-12);
        // Nobody overshoots (the maximum principle), and the heat went to the neighbours.
        assert!(body.temperature.iter().all(|t| (cold..=warm).contains(t)));
        assert!(body.temperature.iter().filter(|&&t| t > cold).count() > 1);
        // The stiffness followed the temperature.
        assert_eq!(
            body.stiffness_scale,
            melting.stiffness_scales(&body.temperature)
        );
    }
}
