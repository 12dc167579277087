//! Several materials in one body (Brunet et al. 2019 — seed 003 §4.2, Fig. 8): a cylinder along x held
//! at its centre section and sagging under its own weight, its left half (x < L/2) of Young's modulus
//! E and its right half of r·E, the same ν and ρ. The materials are a property of the integration
//! points (λ_I, μ_I by where x_I lies, [`crate::meshless::quadrature::Quadrature::set_material_where`]);
//! the phyxels, their shape functions and the background grid are the same for both halves.
//!
//! Beam theory: each half is a cantilever of length ℓ = L/2 clamped at the centre and loaded by its
//! weight q = ρ g π R² per length, so its free end sinks (Timoshenko)
//!
//! δ = q ℓ⁴ / (8 E I) + q ℓ² / (2 κ G A),   I = π R⁴/4, A = π R², G = E/(2(1 + ν)),
//! κ = 6(1 + ν)/(7 + 6ν) (a solid circular section, Cowper 1966).
//!
//! Both terms are ∝ 1/E at one ν, so δ_soft / δ_stiff = E_stiff / E_soft = r whatever ℓ, R, q.
//! The junction does not change this: the halves carry equal weights on equal arms, so the bending
//! moments q ℓ²/2 they bring to the centre section balance; the held section passes one half's moment
//! on to the other and needs to supply none itself, and its rotation is zero by the hold. (The
//! three-dimensional stress field near the section, where the material jumps, is not beam theory's;
//! the tests measure how far the ratio lands from r.)

use super::{checked_material, param, GRAVITY, HOLD_PENALTY};
use crate::meshless::body::{Body, Integration, SupportRadius};
use crate::meshless::implicit::{solve_static, Loads, StaticReport, StaticSolve};
use crate::meshless::material::Material;
use crate::meshless::quadrature::points::Region;
use crate::meshless::quadrature::QuadratureSettings;
use crate::meshless::sampling::Shape;
use crate::params::ParamError;
use glam::DVec3;
use serde::{Deserialize, Serialize};
use std::f64::consts::{PI, TAU};

/// A cylinder [0, L] along x of diameter D, its axis y = z = 0, held at x = L/2; soft for x < L/2.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwoMaterialCylinder {
    pub diameter: f64,
    pub length: f64,
    /// Phyxels across the diameter D (both ends of it included).
    pub across: usize,
    /// The soft (left) half's material; the stiff half has `ratio` times its E, the same ν and ρ.
    pub soft: Material,
    /// E_stiff / E_soft.
    pub ratio: f64,
}

/// The static solution of the cylinder.
#[derive(Clone, Debug)]
pub struct TwoMaterialSolution {
    pub body: Body,
    /// ũ_y of the axis at the soft end x = 0 and at the stiff end x = L, downwards positive (m).
    pub soft_end: f64,
    pub stiff_end: f64,
    pub report: StaticReport,
}

impl TwoMaterialSolution {
    /// δ_soft / δ_stiff as solved.
    pub fn ratio(&self) -> f64 {
        self.soft_end / self.stiff_end
    }
}

/// The cylinder seen by the background grid: the grid's origin is put so that a cell face lies at the
/// centre section x = L/2 and the cells are mirror-symmetric about it, so that no cell holds both
/// materials and the two halves are integrated alike.
struct Aligned {
    shape: Shape,
    origin: DVec3,
}

impl Region for Aligned {
    fn contains(&self, p: DVec3) -> bool {
        self.shape.contains(p)
    }
    fn bounds(&self) -> (DVec3, DVec3) {
        (self.origin, self.shape.bounds().1)
    }
}

impl Default for TwoMaterialCylinder {
    fn default() -> Self {
        Self::new(
            param::HEIGHT.default,
            param::SLENDERNESS.default,
            param::CYLINDER_ACROSS.default as usize,
            param::YOUNG.default,
            param::POISSON.default,
            param::DENSITY.default,
            param::RATIO.default,
        )
        .expect("the defaults are in range")
    }
}

impl TwoMaterialCylinder {
    /// The cylinder from the page's numbers (D = the page's height H, L = (L/H)·D, the soft half's
    /// E, ν, ρ the page's material), each checked against the lesson's parameter table.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        diameter: f64,
        slenderness: f64,
        across: usize,
        young: f64,
        poisson: f64,
        density: f64,
        ratio: f64,
    ) -> Result<Self, ParamError> {
        let diameter = param::HEIGHT.check(diameter)?;
        let slenderness = param::SLENDERNESS.check(slenderness)?;
        param::CYLINDER_ACROSS.check(across as f64)?;
        Ok(Self {
            diameter,
            length: slenderness * diameter,
            across,
            soft: checked_material(young, poisson, density)?,
            ratio: param::RATIO.check(ratio)?,
        })
    }

    /// The stiff (right) half's material: E·r, the same ν and ρ.
    pub fn stiff(&self) -> Material {
        Material {
            young: self.ratio * self.soft.young,
            ..self.soft
        }
    }

    /// The lattice spacing a = D/(across − 1).
    pub fn spacing(&self) -> f64 {
        self.diameter / (self.across - 1) as f64
    }

    pub fn radius(&self) -> f64 {
        0.5 * self.diameter
    }

    pub fn shape(&self) -> Shape {
        Shape::Cylinder {
            center: DVec3::new(0.5 * self.length, 0.0, 0.0),
            radius: self.radius(),
            length: self.length,
        }
    }

    /// The phyxels, in layers x = L/2 + k a mirror-symmetric about the centre section (plus, where
    /// those miss them, a layer on each end face x = 0 and x = L, so that the ends the deflections are
    /// read at are sampled). Each layer is the section's square lattice of spacing a (`across` points
    /// over the diameter, symmetric about the axis) strictly inside r < R − a/4, and a ring of
    /// ⌈2πR/a⌉ phyxels on the surface r = R: a lattice alone would sample the round surface only
    /// where it happens to pass through a lattice point (at 4 across, only the four innermost points
    /// of each layer). Cheap: what the page counts before a solve.
    pub fn phyxels(&self) -> Vec<DVec3> {
        let a = self.spacing();
        let (half, r) = (0.5 * self.length, self.radius());
        let layers = (half / a + 1e-9).floor() as i64;
        let mut xs: Vec<f64> = (-layers..=layers).map(|k| half + k as f64 * a).collect();
        if half - layers as f64 * a > 0.25 * a {
            xs.insert(0, 0.0);
            xs.push(self.length);
        }
        let mut section = Vec::new();
        for k in 0..self.across {
            for j in 0..self.across {
                let (y, z) = (-r + j as f64 * a, -r + k as f64 * a);
                if (y * y + z * z).sqrt() < r - 0.25 * a {
                    section.push((y, z));
                }
            }
        }
        let ring = (TAU * r / a).ceil() as usize;
        section.extend((0..ring).map(|k| {
            let theta = TAU * (k as f64 + 0.5) / ring as f64;
            (r * theta.cos(), r * theta.sin())
        }));
        xs.iter()
            .flat_map(|&x| section.iter().map(move |&(y, z)| DVec3::new(x, y, z)))
            .collect()
    }

    /// Points and areas of a quadrature of the centre section (the disc x = L/2, r ≤ R): `rings`
    /// rings at the midpoints of equal steps in r, each with ⌈2π r / Δr⌉ points evenly round it,
    /// area r Δr Δθ each. Σ area = π R² exactly (the midpoint rule is exact for ∫ r dr).
    pub fn section_points(&self, rings: usize) -> Vec<(DVec3, f64)> {
        let (x, r_max) = (0.5 * self.length, self.radius());
        let dr = r_max / rings as f64;
        let mut points = Vec::new();
        for ring in 0..rings {
            let r = (ring as f64 + 0.5) * dr;
            let count = ((TAU * r / dr).ceil() as usize).max(3);
            let dtheta = TAU / count as f64;
            for k in 0..count {
                let theta = (k as f64 + 0.5) * dtheta;
                points.push((
                    DVec3::new(x, r * theta.cos(), r * theta.sin()),
                    r * dr * dtheta,
                ));
            }
        }
        points
    }

    /// The body: the phyxels, the background quadrature of the cylinder on a grid aligned with the
    /// centre section, the stiff material at the integration points with x_I > L/2, and the centre
    /// section held.
    ///
    /// The hold is a penalty α/2 Σ_s A_s |ũ(x_s)|² over a quadrature of the whole centre disc
    /// ([`TwoMaterialCylinder::section_points`], α = β E_stiff / a as for the beam's wall), not fixed
    /// phyxels: MLS shape functions do not interpolate, ũ(x_i) ≠ u_i, so fixing the phyxels of the
    /// layer x = L/2 would leave the section itself free to move and turn (by how much would depend on
    /// the neighbouring phyxels' displacements, i.e. on the resolution), and fixing a thicker slab
    /// would shorten both cantilevers by an amount set by the discretisation. Holding ũ = 0 over the
    /// whole section holds its displacement and its rotation — the clamp beam theory assumes — with
    /// both halves free from x = L/2 on.
    pub fn body(&self) -> Result<Body, String> {
        let a = self.spacing();
        let half = 0.5 * self.length;
        let shape = self.shape();
        let mut body = Body::new(
            self.phyxels(),
            a.powi(3),
            a,
            self.soft,
            SupportRadius::SpacingMultiple {
                factor: super::NODAL_SUPPORT_FACTOR,
            },
        );
        let cells = (half / a).ceil();
        let region = Aligned {
            shape,
            origin: DVec3::new(half - cells * a, -self.radius(), -self.radius()),
        };
        body.set_quadrature(&region, a, QuadratureSettings::default())
            .map_err(|e| e.to_string())?;
        if let Integration::Quadrature(q) = &mut body.integration {
            q.set_material_where(&self.stiff(), |x| x.x > half);
        }
        let rings = (self.across - 1).max(2);
        body.hold_surface(&self.section_points(rings), HOLD_PENALTY, a)
            .map_err(|e| e.to_string())?;
        Ok(body)
    }

    /// E at each integration point (Pa), from its λ_I, μ_I: E = μ(3λ + 2μ)/(λ + μ).
    pub fn point_young(body: &Body) -> Vec<f64> {
        body.quadrature().map_or_else(Vec::new, |q| {
            q.lame
                .iter()
                .map(|l| l.mu * (3.0 * l.lambda + 2.0 * l.mu) / (l.lambda + l.mu))
                .collect()
        })
    }

    /// Each phyxel's Young's modulus as its integration points see it: the share-weighted mean
    /// E_i = Σ_I v_I φ_i(x_I) E_I / Σ_I v_I φ_i(x_I) (what the page colours the phyxels by: E or r·E
    /// away from the centre, between them in the layers whose shape functions reach both halves).
    pub fn phyxel_young(body: &Body) -> Vec<f64> {
        let Some(q) = body.quadrature() else {
            return Vec::new();
        };
        let young = Self::point_young(body);
        (0..q.particle_count())
            .map(|i| {
                let (weighted, total) =
                    q.shape.edges_into(i).iter().fold((0.0, 0.0), |(w, t), &e| {
                        let point = q.shape.owner[e as usize] as usize;
                        let share = q.points.volume[point] * q.shape.value[e as usize];
                        (w + share * young[point], t + share)
                    });
                weighted / total
            })
            .collect()
    }

    /// The static deflection under the cylinder's own weight (−y).
    pub fn solve(&self) -> Result<TwoMaterialSolution, String> {
        let mut body = self.body()?;
        let fixed = vec![false; body.len()];
        let loads = Loads {
            gravity: DVec3::new(0.0, -GRAVITY, 0.0),
            extra: &[],
            fixed: &fixed,
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
        let q = body
            .quadrature()
            .expect("the cylinder is integrated by quadrature");
        let end = |x: f64| {
            -q.displacement_at(DVec3::new(x, 0.0, 0.0), &body.displacement)
                .y
        };
        let (soft_end, stiff_end) = (end(0.0), end(self.length));
        Ok(TwoMaterialSolution {
            soft_end,
            stiff_end,
            body,
            report,
        })
    }

    /// q = ρ g π R² (N/m).
    fn weight_per_length(&self) -> f64 {
        self.soft.density * GRAVITY * PI * self.radius().powi(2)
    }

    /// Timoshenko's end deflection of one half, a cantilever of length L/2 of material `material`
    /// clamped at the centre (module docs).
    pub fn timoshenko_end(&self, material: &Material) -> f64 {
        let (q, l, r) = (self.weight_per_length(), 0.5 * self.length, self.radius());
        let nu = material.poisson;
        let second_moment = PI * r.powi(4) / 4.0;
        let area = PI * r * r;
        let shear_modulus = material.young / (2.0 * (1.0 + nu));
        let kappa = 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu);
        q * l.powi(4) / (8.0 * material.young * second_moment)
            + q * l * l / (2.0 * kappa * shear_modulus * area)
    }

    /// Beam theory's δ_soft / δ_stiff: E_stiff / E_soft = r (module docs).
    pub fn theory_ratio(&self) -> f64 {
        self.timoshenko_end(&self.soft) / self.timoshenko_end(&self.stiff())
    }

    /// The same cylinder with `across` phyxels over its diameter.
    pub fn with_across(&self, across: usize) -> Result<Self, ParamError> {
        param::CYLINDER_ACROSS.check(across as f64)?;
        Ok(Self { across, ..*self })
    }
}
