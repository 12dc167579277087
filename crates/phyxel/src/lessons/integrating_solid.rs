//! The "Integrating a meshless solid" lesson: one cantilever under its own weight, solved statically
//! three ways, to show where a meshless solid's stiffness comes from (Brunet et al. 2019 — seed 003
//! §3.2–3.3; MKN04 §4; thesis §4.1.1):
//!
//! * **nodal, m/ρ** — MKN04: each phyxel is an integration point of volume V_i = m_i/ρ_i, ρ_i a
//!   kernel sum that is cut off at the surface, so surface phyxels count up to twice;
//! * **nodal, cell volumes** — the same with V_i = m_i/ρ₀ (the lattice cell each phyxel stands for);
//! * **background quadrature** — Gauss points of a grid cropped to the beam, MLS shape functions
//!   there (seed 003 eqs. 6–8), the phyxels only carry the unknowns.
//!
//! The beam's phyxels sit on a cubic lattice with `across` phyxels over its height H (on both faces).
//! Its end x = 0 is clamped: the nodal models fix the phyxels of that face and one layer inside the
//! wall (a nodal model's field at a phyxel is the phyxel's value); the quadrature holds the face
//! itself by a penalty at surface Gauss points (MLS shape functions do not interpolate, so fixing
//! the face's phyxels would leave the face loose). Each number is a static Newton solve
//! ([`crate::meshless::implicit::solve_static`]), and the tip deflection (the mean over the phyxels of
//! the free end face) is compared with Euler–Bernoulli and Timoshenko beam theory and, for the
//! default shape (L/H = 10, ν = 0.45, seed 003's beam), with a converged 3-D finite-element solution.

use crate::meshless::body::{Body, NodalVolume, SupportRadius};
use crate::meshless::implicit::{solve_static, Loads, StaticReport, StaticSolve};
use crate::meshless::material::Material;
use crate::meshless::quadrature::points::box_face_points;
use crate::meshless::quadrature::QuadratureSettings;
use crate::meshless::sampling::{sample, Lattice, Shape};
use crate::params::ParamError;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// Nodal support radius h = this × the lattice spacing, as in the other lessons and the 3D demo.
pub const NODAL_SUPPORT_FACTOR: f64 = 2.2;

/// The penalty factor β of the held face (α = β E / a, [`crate::meshless::quadrature::Quadrature::hold_surface`]).
pub const HOLD_PENALTY: f64 = 100.0;

/// The own-weight tip deflection of a clamped square beam with L/H = 10 and ν = 0.45 in 3-D linear
/// elasticity, over Timoshenko's: 1.166127 mm / 1.190502 mm for seed 003's beam (20 × 20 × 200 mm,
/// E = 50 N/mm², ρ = 1000 kg/m³), from 27-node hexahedral FEM on graded meshes, Richardson-extrapolated
/// (estimated error 0.03 %; `crates/phyxel/tests/hex27_reference.rs`, which checks this constant).
/// Linear elasticity makes the ratio the same for every size, E and ρ.
pub const FEM_OVER_TIMOSHENKO_L10_NU045: f64 = 0.979525;

/// The same for L/H = 5 and ν = 0.3, the explicit-vs-implicit lesson's beam: 27-node hexahedral FEM,
/// Richardson-extrapolated (estimated error 0.014 %; checked by the same test).
pub const FEM_OVER_TIMOSHENKO_L5_NU03: f64 = 0.983799;

/// The shapes whose 3-D FEM solution is known: (L/H, ν, FEM / Timoshenko).
pub const FEM_OVER_TIMOSHENKO: [(f64, f64, f64); 2] = [
    (10.0, 0.45, FEM_OVER_TIMOSHENKO_L10_NU045),
    (5.0, 0.3, FEM_OVER_TIMOSHENKO_L5_NU03),
];

/// Standard gravity (m/s²).
pub const GRAVITY: f64 = 9.81;

/// The lesson's parameters; the page's controls take their ranges and defaults from here.
pub mod param {
    use crate::params::Param;
    /// Phyxels across the height H (both faces included).
    pub const ACROSS: Param = Param::integer("across", 3.0, 8.0, 4.0);
    /// L/H.
    pub const SLENDERNESS: Param = Param::real("slenderness", 4.0, 16.0, 10.0);
    pub const HEIGHT: Param = Param::real("height", 0.01, 1.0, 0.1);
    pub const YOUNG: Param = Param::real("young", 1e5, 1e12, 1e8);
    pub const POISSON: Param = Param::real("poisson", 0.0, 0.45, 0.45);
    pub const DENSITY: Param = Param::real("density", 10.0, 20_000.0, 1000.0);
    /// The two-material cylinder ([`super::two_materials`]): phyxels across its diameter.
    pub const CYLINDER_ACROSS: Param = Param::integer("cylinderAcross", 4.0, 6.0, 5.0);
    /// E_stiff / E_soft of the two-material cylinder.
    pub const RATIO: Param = Param::real("ratio", 1.0, 100.0, 10.0);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[
    param::ACROSS,
    param::SLENDERNESS,
    param::HEIGHT,
    param::YOUNG,
    param::POISSON,
    param::DENSITY,
    param::CYLINDER_ACROSS,
    param::RATIO,
];

/// How the beam's elastic energy is integrated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Integration {
    /// Nodal, V_i = m_i/ρ_i (MKN04).
    NodalKernelDensity,
    /// Nodal, V_i = m_i/ρ₀.
    NodalCellVolume,
    /// Background quadrature (seed 003 §3.3).
    Quadrature,
}

impl Integration {
    pub const ALL: [Integration; 3] = [
        Integration::NodalKernelDensity,
        Integration::NodalCellVolume,
        Integration::Quadrature,
    ];

    /// The page's name for it.
    pub fn id(self) -> &'static str {
        match self {
            Integration::NodalKernelDensity => "nodal",
            Integration::NodalCellVolume => "cell",
            Integration::Quadrature => "quadrature",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|i| i.id() == id)
    }
}

/// The page's material (E, ν, ρ), each checked against [`PARAMETERS`].
pub fn checked_material(young: f64, poisson: f64, density: f64) -> Result<Material, ParamError> {
    Ok(Material {
        young: param::YOUNG.check(young)?,
        poisson: param::POISSON.check(poisson)?,
        density: param::DENSITY.check(density)?,
        volume_stiffness: 0.0,
    })
}

/// A square cantilever [0, L] × [0, H] × [0, H], clamped at x = 0, loaded by its own weight (−y).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cantilever {
    pub height: f64,
    pub length: f64,
    /// Phyxels across H.
    pub across: usize,
    pub material: Material,
}

impl Default for Cantilever {
    fn default() -> Self {
        Self::new(
            param::HEIGHT.default,
            param::SLENDERNESS.default,
            param::ACROSS.default as usize,
            param::YOUNG.default,
            param::POISSON.default,
            param::DENSITY.default,
        )
        .expect("the defaults are in range")
    }
}

/// One point of the convergence plot: a static solve at `across` phyxels over the height.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvergencePoint {
    pub integration: Integration,
    pub across: usize,
    /// The lattice spacing a (m).
    pub spacing: f64,
    pub tip_deflection: f64,
    /// (δ − δ_ref) / δ_ref against [`Cantilever::reference_tip`].
    pub relative_error: f64,
    pub cg_iterations: usize,
}

/// The static solution of one beam.
#[derive(Clone, Debug)]
pub struct Solution {
    pub integration: Integration,
    pub body: Body,
    /// Which phyxels the wall holds.
    pub held: Vec<bool>,
    /// The mean downward displacement of the phyxels on the free end face (m).
    pub tip_deflection: f64,
    /// Σ V_i over the phyxels in the beam (not the wall), m³.
    pub total_volume: f64,
    pub report: StaticReport,
}

impl Cantilever {
    /// A beam from the page's parameters, each checked against [`PARAMETERS`].
    pub fn new(
        height: f64,
        slenderness: f64,
        across: usize,
        young: f64,
        poisson: f64,
        density: f64,
    ) -> Result<Self, ParamError> {
        let height = param::HEIGHT.check(height)?;
        let slenderness = param::SLENDERNESS.check(slenderness)?;
        param::ACROSS.check(across as f64)?;
        Ok(Self {
            height,
            length: slenderness * height,
            across,
            material: checked_material(young, poisson, density)?,
        })
    }

    /// The lattice spacing a = H/(across − 1).
    pub fn spacing(&self) -> f64 {
        self.height / (self.across - 1) as f64
    }

    fn shape(&self) -> Shape {
        Shape::Box {
            min: DVec3::ZERO,
            max: DVec3::new(self.length, self.height, self.height),
        }
    }

    /// The beam's true volume L H².
    pub fn volume(&self) -> f64 {
        self.length * self.height * self.height
    }

    /// q = ρ g H², the weight per length (N/m).
    fn weight_per_length(&self) -> f64 {
        self.material.density * GRAVITY * self.height * self.height
    }

    /// I = H⁴/12.
    fn second_moment(&self) -> f64 {
        self.height.powi(4) / 12.0
    }

    /// Euler–Bernoulli: δ = q L⁴ / (8 E I).
    pub fn euler_bernoulli_tip(&self) -> f64 {
        self.weight_per_length() * self.length.powi(4)
            / (8.0 * self.material.young * self.second_moment())
    }

    /// Timoshenko: δ = q L⁴ / (8 E I) + q L² / (2 κ G A), with G = E/(2(1 + ν)) and the shear
    /// coefficient κ = 10(1 + ν)/(12 + 11ν) of a square section (Cowper 1966).
    pub fn timoshenko_tip(&self) -> f64 {
        self.timoshenko_deflection(self.length)
    }

    /// Timoshenko's deflection at distance x from the clamp: bending q x² (6L² − 4Lx + x²)/(24 E I)
    /// plus shear q (L x − x²/2)/(κ G A) (κ, G as in [`Cantilever::timoshenko_tip`]).
    pub fn timoshenko_deflection(&self, x: f64) -> f64 {
        let nu = self.material.poisson;
        let shear_modulus = self.material.young / (2.0 * (1.0 + nu));
        let kappa = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu);
        let (q, l) = (self.weight_per_length(), self.length);
        q * x * x * (6.0 * l * l - 4.0 * l * x + x * x)
            / (24.0 * self.material.young * self.second_moment())
            + q * (l * x - 0.5 * x * x) / (kappa * shear_modulus * self.height * self.height)
    }

    /// The 3-D finite-element tip deflection where it is known ([`FEM_OVER_TIMOSHENKO`]).
    pub fn fem_tip(&self) -> Option<f64> {
        let slenderness = self.length / self.height;
        FEM_OVER_TIMOSHENKO
            .iter()
            .find(|(shape, nu, _)| {
                (slenderness - shape).abs() < 1e-9 && (self.material.poisson - nu).abs() < 1e-9
            })
            .map(|(_, _, ratio)| ratio * self.timoshenko_tip())
    }

    /// The best reference known for the tip deflection and its name: the 3-D FEM value where known,
    /// else Timoshenko's.
    pub fn reference_tip(&self) -> (f64, &'static str) {
        match self.fem_tip() {
            Some(fem) => (fem, "fem"),
            None => (self.timoshenko_tip(), "timoshenko"),
        }
    }

    /// The phyxels' places: the lattice points of the box, then (for the nodal models) one layer
    /// inside the wall. Cheap: what the page counts to bound its work before a solve.
    pub fn phyxels(&self, integration: Integration) -> Vec<DVec3> {
        let a = self.spacing();
        let mut points = sample(&self.shape(), a, Lattice::Cubic);
        if integration != Integration::Quadrature {
            let wall: Vec<DVec3> = points
                .iter()
                .filter(|p| p.x < 1e-9 * a)
                .map(|p| *p - DVec3::X * a)
                .collect();
            points.extend(wall);
        }
        points
    }

    /// The beam's phyxels (lattice points of the box; for the nodal models one more layer inside the
    /// wall), integrated as `integration`, and which are held.
    pub fn body(&self, integration: Integration) -> Result<(Body, Vec<bool>), String> {
        let a = self.spacing();
        let shape = self.shape();
        let points = self.phyxels(integration);
        let in_beam = points.iter().take_while(|p| p.x > -1e-9 * a).count();
        let held: Vec<bool> = points
            .iter()
            .map(|p| integration != Integration::Quadrature && p.x < 1e-9 * a)
            .collect();
        let mut body = Body::new(
            points,
            a.powi(3),
            a,
            self.material,
            SupportRadius::SpacingMultiple {
                factor: NODAL_SUPPORT_FACTOR,
            },
        );
        // Every phyxel inside the beam stands for its lattice cell's part in the box, so that
        // Σ m_i = ρ L H².
        for i in 0..in_beam {
            body.mass[i] = self.material.density * self.cell_volume(body.reference[i]);
        }
        match integration {
            Integration::NodalKernelDensity => body.set_nodal_volume(NodalVolume::KernelDensity),
            Integration::NodalCellVolume => body.set_nodal_volume(NodalVolume::Cell),
            Integration::Quadrature => {
                body.set_quadrature(&shape, a, QuadratureSettings::default())
                    .map_err(|e| e.to_string())?;
                let (lo, hi) = (
                    DVec3::ZERO,
                    DVec3::new(self.length, self.height, self.height),
                );
                body.hold_surface(&box_face_points(lo, hi, 0, false, a), HOLD_PENALTY, a)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok((body, held))
    }

    /// The static deflection under the beam's own weight with `integration`.
    pub fn solve(&self, integration: Integration) -> Result<Solution, String> {
        let (mut body, held) = self.body(integration)?;
        let loads = Loads {
            gravity: DVec3::new(0.0, -GRAVITY, 0.0),
            extra: &[],
            fixed: &held,
            contacts: &[],
        };
        let mut settings = StaticSolve::default();
        settings.linear.max_iterations = 20_000;
        let report = solve_static(&mut body, loads, settings);
        if !report.converged {
            return Err(format!(
                "the static solve did not converge (residual {:.1e} after {} Newton steps)",
                report.relative_residual, report.newton_iterations
            ));
        }
        let a = self.spacing();
        let (sum, count) = body
            .reference
            .iter()
            .zip(&body.displacement)
            .filter(|(x, _)| x.x > self.length - 1e-9 * a)
            .fold((0.0, 0usize), |(s, n), (_, u)| (s - u.y, n + 1));
        let total_volume = body
            .reference
            .iter()
            .zip(&body.volume)
            .filter(|(x, _)| x.x > -1e-9 * a)
            .map(|(_, v)| v)
            .sum();
        Ok(Solution {
            integration,
            tip_deflection: sum / count.max(1) as f64,
            total_volume,
            body,
            held,
            report,
        })
    }

    /// The point of the convergence plot at `across` phyxels over the height.
    pub fn convergence_point(
        &self,
        integration: Integration,
        across: usize,
    ) -> Result<ConvergencePoint, String> {
        let beam = self.with_across(across).map_err(|e| e.to_string())?;
        let solution = beam.solve(integration)?;
        Ok(ConvergencePoint {
            integration,
            across,
            spacing: beam.spacing(),
            tip_deflection: solution.tip_deflection,
            relative_error: solution.tip_deflection / beam.reference_tip().0 - 1.0,
            cg_iterations: solution.report.cg_iterations,
        })
    }

    /// Each phyxel's volume V_i over the volume of its lattice cell's part in the beam (a³ inside, ½ a³
    /// on a face, ¼ on an edge, ⅛ at a corner): 1 everywhere for exact volumes. What the page colours
    /// the phyxels by. Wall phyxels (outside the beam) are measured against a³.
    pub fn volume_shares(&self, solution: &Solution) -> Vec<f64> {
        solution
            .body
            .reference
            .iter()
            .zip(&solution.body.volume)
            .map(|(x, v)| v / self.cell_volume(*x))
            .collect()
    }

    /// The volume of the part of the lattice cell around `x` that lies in the beam (a³ for a phyxel
    /// in the wall).
    pub fn cell_volume(&self, x: DVec3) -> f64 {
        let a = self.spacing();
        if x.x < -1e-9 * a {
            return a.powi(3);
        }
        let hi = DVec3::new(self.length, self.height, self.height);
        let faces: i32 = (0..3)
            .map(|k| (x[k].abs() < 1e-9 * a) as i32 + ((hi[k] - x[k]).abs() < 1e-9 * a) as i32)
            .sum();
        a.powi(3) * 0.5f64.powi(faces)
    }

    /// The same beam with `across` phyxels over its height.
    pub fn with_across(&self, across: usize) -> Result<Self, ParamError> {
        param::ACROSS.check(across as f64)?;
        Ok(Self { across, ..*self })
    }
}

pub mod two_materials;

#[cfg(test)]
mod tests;
