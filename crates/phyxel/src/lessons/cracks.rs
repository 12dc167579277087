//! The cracks lesson ("Cracks in a meshless solid"): brittle fracture of a 2D meshless solid after
//! seed 000 §4.1.3 (initiation where the largest principal stress exceeds the tensile strength, mode I,
//! propagation at c_prop) with the discontinuous weights of seed 002 §7.3 (the visibility criterion and
//! the transparency method, eq. 70).
//!
//! - [`crack`]: crack polylines in the reference configuration and the modified weights ω'_ij;
//! - [`cloud`]: the page's first figure, a particle's weight and MLS shape function next to a crack
//!   (seed 002 figs. 9–10);
//! - [`solid`]: the 2D solid (MKN04's MLS displacement gradient with the modified weights, St Venant–
//!   Kirchhoff plane stress, symplectic Euler) that cracks, and [`notched_plate`], the page's second
//!   figure;
//! - [`faces`]: the plate drawn as material, a cell per particle, closed along the crack faces.

pub mod cloud;
pub mod crack;
pub mod faces;
pub mod solid;
#[cfg(test)]
mod tests;

use crate::meshless::plasticity::Plasticity;
use crack::{Crack, Criterion};
use glam::DVec2;
use solid::{Material, Resampling, Solid};

/// The lesson's parameters. The page's controls take their ranges and defaults from here
/// (`CracksLesson.parameters()`), and the bindings check values against the same. Strength, c_prop
/// and κ must be positive: their ranges start above zero.
pub mod param {
    use crate::params::Param;
    /// Tensile strength σ_t (Pa) of the plate (E = 100 kPa).
    pub const STRENGTH: Param = Param::real("strength", 100.0, 50_000.0, 2_500.0);
    /// Crack propagation speed c_prop (m/s); the plate's shear wave speed is about 6.2 m/s.
    pub const C_PROP: Param = Param::real("c_prop", 0.01, 20.0, 2.0);
    /// κ of the transparency method (seed 002 eq. 70).
    pub const KAPPA: Param = Param::real("kappa", 0.01, 10.0, 0.5);
    /// The speed (m/s) at which each held edge of the plate is pulled outwards (0: held still).
    pub const PULL: Param = Param::real("pull", 0.0, 0.2, 0.01);
    /// Ω_min of adaptive resampling (seed 002 eq. 71); the 2D default is the seed's 10 scaled to 2D
    /// neighbourhoods (`solid::Resampling`'s doc). Positive; 20, a full neighbourhood, at most.
    pub const OMEGA_MIN: Param = Param::real("omega_min", 0.5, 20.0, super::solid::OMEGA_MIN_2D);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[
    param::STRENGTH,
    param::C_PROP,
    param::KAPPA,
    param::PULL,
    param::OMEGA_MIN,
];

/// The plate's material: a soft solid (E = 100 kPa, ν = 0.3, ρ = 1000 kg/m²) so that it deforms visibly,
/// with the given strength and crack speed.
pub fn plate_material(strength: f64, c_prop: f64) -> Material {
    Material {
        young: 1.0e5,
        poisson: 0.3,
        density: 1000.0,
        strength,
        c_prop,
    }
}

/// The ductile plate's plastic flow (seed 002 fig. 8: stretch, neck, tear): it yields at a deviatoric
/// Hencky strain of 1 % (a von Mises stress of about 2μ · 0.01 ≈ 770 Pa, below the default strength
/// 2.5 kPa, so it flows before it cracks), flows fast against the pull (50/s against the plate's strain
/// rate of about 0.05/s at the default pull) and hardens completely at 20 % plastic strain: then its
/// stress rises again until it tears.
pub const DUCTILE: Plasticity = Plasticity {
    yield_strain: 0.01,
    creep: 50.0,
    max_strain: 0.2,
};

/// Particles across the plate (both ways).
pub const PLATE_PARTICLES: usize = 32;
/// The plate's lattice spacing a (m).
pub const PLATE_SPACING: f64 = 0.0125;
/// Support radius over spacing.
pub const SUPPORT_RATIO: f64 = 2.5;
/// At most this many particles resampling inserts into the plate (as many as it started with): beyond,
/// splits are refused and counted (`Solid::refused`).
pub const RESAMPLING_CAP: usize = PLATE_PARTICLES * PLATE_PARTICLES;
/// Rows held (and pulled) at the top and at the bottom.
pub const HELD_ROWS: usize = 2;

/// The plate's explicit step: 0.25 a / c with c = √(E/(ρ(1 − ν²))) the plane-stress wave speed.
pub fn plate_dt(material: &Material) -> f64 {
    let c = (material.young / (material.density * (1.0 - material.poisson.powi(2)))).sqrt();
    0.25 * PLATE_SPACING / c
}

/// A square plate of [`PLATE_PARTICLES`]² particles with a notch cut in from its left edge at mid-height,
/// a quarter of the width long (its mouth on the surface, its tip a crack front), the top and bottom
/// [`HELD_ROWS`] held and pulled apart at `pull` m/s each; resampling on at the default Ω_min (at most
/// [`RESAMPLING_CAP`] particles inserted).
pub fn notched_plate(material: Material, criterion: Criterion, pull: f64) -> Solid {
    let n = PLATE_PARTICLES;
    let a = PLATE_SPACING;
    let width = (n - 1) as f64 * a;
    // Between the two middle rows (n is even).
    let y = 0.5 * width;
    let notch = Crack::segment(DVec2::new(-a, y), DVec2::new(0.25 * width, y), false, true);
    let mut solid = Solid::lattice(n, n, a, SUPPORT_RATIO, material, criterion, vec![notch]);
    solid.resampling = Resampling::on(param::OMEGA_MIN.default, solid.h, RESAMPLING_CAP);
    grip(&mut solid, pull);
    solid
}

/// The same plate with no notch and fracture off: the elastic body [`notched_plate`] cracks, for
/// measuring what cracking costs (`phyxel-bench cracks`).
pub fn uncut_plate(material: Material, criterion: Criterion, pull: f64) -> Solid {
    let n = PLATE_PARTICLES;
    let mut solid = Solid::lattice(
        n,
        n,
        PLATE_SPACING,
        SUPPORT_RATIO,
        material,
        criterion,
        Vec::new(),
    );
    grip(&mut solid, pull);
    solid.fracture = false;
    solid
}

/// Hold the plate's top and bottom [`HELD_ROWS`] and pull them apart at `pull` m/s each.
fn grip(solid: &mut Solid, pull: f64) {
    let n = PLATE_PARTICLES;
    for i in 0..solid.len() {
        let row = i / n;
        if row < HELD_ROWS || row >= n - HELD_ROWS {
            solid.held[i] = true;
            solid.held_velocity[i] = DVec2::new(0.0, if row < HELD_ROWS { -pull } else { pull });
        }
    }
}
