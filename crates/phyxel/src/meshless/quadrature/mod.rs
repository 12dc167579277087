//! Background-grid quadrature for meshless solids (Brunet et al. 2019 — seed 003 §3.3–3.4): the
//! particles carry the degrees of freedom, and the elastic energy is integrated at Gauss points of a
//! regular grid cropped to the shape, each with its own MLS shape functions (linear basis, full
//! derivatives) over the nearest particles and its own corotational frame.
//!
//! Nodal integration (MKN04: every phyxel is both a degree of freedom and an integration point of
//! volume m_i/ρ_i) weighs surface phyxels wrongly — ρ_i is a kernel sum cut off at the surface — so a
//! nodal body is too stiff and does not converge to the continuum under refinement. Here Σ_I v_I is
//! the shape's volume and the Galerkin sums converge.
//!
//! * [`points`]: the grid, its Gauss points, the cut cells at the surface.
//! * [`shape_functions`]: φ_i(x_I) and ∇φ_i(x_I), in compressed rows with reverse lists.
//! * [`elasticity`]: forces, energy, stiffness product and diagonal blocks.
//! * [`single_precision`]: the f32 operands of the product and the diagonal, free of subnormal
//!   numbers.
//! * [`held`]: a clamped face held by a penalty, and its implicit part of an explicit step.

pub mod elasticity;
pub mod held;
pub mod points;
pub mod shape_functions;
pub mod single_precision;

use crate::meshless::material::Material;
pub use held::HeldSurface;

use crate::parallel::map_indices;
use glam::{DMat3, DVec3};
use points::{integration_points, BackgroundGrid, IntegrationPoints, Region};
use serde::{Deserialize, Serialize};
use shape_functions::{at_point, ShapeFunctions};

/// How the quadrature is laid out, relative to the particle spacing a.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuadratureSettings {
    /// Background cell edge = `cell_factor` · a.
    pub cell_factor: f64,
    /// Shape-function support h = `support_factor` · a.
    pub support_factor: f64,
    /// Gauss points per axis in a full cell.
    pub gauss_order: usize,
    /// Midpoint samples per axis in each octant of a cut cell.
    pub surface_samples: usize,
}

impl Default for QuadratureSettings {
    fn default() -> Self {
        Self {
            cell_factor: 1.0,
            support_factor: 1.8,
            gauss_order: 2,
            surface_samples: 4,
        }
    }
}

/// The largest fraction of a quadrature's points whose support may be widened
/// ([`shape_functions::WIDENING`]): a thin part of a shape needs a few; more means the particles
/// are too sparse for the grid.
pub const MAX_WIDENED_FRACTION: f64 = 0.25;

/// Why a quadrature could not be built.
#[derive(Clone, Debug, PartialEq)]
pub struct QuadratureError(pub String);

impl std::fmt::Display for QuadratureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QuadratureError {}

/// λ_I, μ_I of an integration point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lame {
    pub lambda: f64,
    pub mu: f64,
}

/// Integration points, their shape functions, materials and plastic state, for one body's particles.
#[derive(Clone, Debug, PartialEq)]
pub struct Quadrature {
    pub grid: BackgroundGrid,
    pub points: IntegrationPoints,
    pub shape: ShapeFunctions,
    /// h of the shape functions.
    pub support_radius: f64,
    /// λ_I, μ_I of every point (several materials in one body: seed 003 §4.2), cold.
    pub lame: Vec<Lame>,
    /// s_I, melting's stiffness factor at every point (1 = cold): λ_I, μ_I and the yield strain act
    /// scaled by it ([`Quadrature::soften`]).
    pub softening: Vec<f64>,
    /// F_p,I, the multiplicative plastic deformation carried per point (identity when elastic).
    pub plastic_deformation: Vec<DMat3>,
    /// The particles' reference positions x̄_i the shape functions were built on.
    pub reference: Vec<DVec3>,
    /// A surface held in place (a clamped face), if any.
    pub held: Option<HeldSurface>,
}

impl Quadrature {
    /// The quadrature of `region` for particles at `particles` with spacing `spacing`, all of
    /// `material`. The grid's origin is the region's minimum corner, so a box sampled from its corner
    /// is tiled exactly.
    pub fn new(
        region: &dyn Region,
        particles: &[DVec3],
        spacing: f64,
        material: &Material,
        settings: QuadratureSettings,
    ) -> Result<Self, QuadratureError> {
        if !(spacing > 0.0 && spacing.is_finite()) {
            return Err(QuadratureError(format!(
                "particle spacing must be positive, got {spacing}"
            )));
        }
        let grid = BackgroundGrid {
            origin: region.bounds().0,
            cell: settings.cell_factor * spacing,
            gauss_order: settings.gauss_order.clamp(1, 3),
            surface_samples: settings.surface_samples.clamp(1, 8),
        };
        let points = integration_points(region, grid);
        if points.is_empty() {
            return Err(QuadratureError(
                "the shape holds no integration point: it is thinner than a grid cell".into(),
            ));
        }
        let support_radius = settings.support_factor * spacing;
        let shape = ShapeFunctions::build(&points.position, particles, support_radius);
        if shape.widened.len() as f64 > MAX_WIDENED_FRACTION * points.len() as f64 {
            return Err(QuadratureError(format!(
                "{} of {} integration points have too few particles around them within the support radius — the particles are too sparse for the grid",
                shape.widened.len(),
                points.len()
            )));
        }
        if !shape.degenerate.is_empty() {
            return Err(QuadratureError(format!(
                "{} of {} integration points have too few particles around them (fewer than four, or all in one plane) — the body is thinner than its particle spacing allows",
                shape.degenerate.len(),
                points.len()
            )));
        }
        let (lambda, mu) = material.lame();
        let n = points.len();
        Ok(Self {
            grid,
            points,
            shape,
            support_radius,
            lame: vec![Lame { lambda, mu }; n],
            softening: vec![1.0; n],
            plastic_deformation: vec![DMat3::IDENTITY; n],
            reference: particles.to_vec(),
            held: None,
        })
    }

    /// One material at every integration point.
    pub fn set_uniform_material(&mut self, lambda: f64, mu: f64) {
        self.lame.iter_mut().for_each(|l| *l = Lame { lambda, mu });
    }

    /// Material `material` at the integration points where `select(x_I)` holds (several materials in
    /// one body, seed 003 §4.2).
    pub fn set_material_where(&mut self, material: &Material, select: impl Fn(DVec3) -> bool) {
        let (lambda, mu) = material.lame();
        for (lame, x) in self.lame.iter_mut().zip(&self.points.position) {
            if select(*x) {
                *lame = Lame { lambda, mu };
            }
        }
    }

    /// The quadrature of several objects in one body: object k is `region` with the particles
    /// `particles[range]`, and its points take their shape functions from those particles only, so
    /// objects that come within a support radius of each other stay separate solids (they meet
    /// through their surfaces: contact). Each object's grid starts at its own minimum corner.
    pub fn of_objects(
        objects: &[(&dyn Region, std::ops::Range<usize>)],
        particles: &[DVec3],
        spacing: f64,
        material: &Material,
        settings: QuadratureSettings,
    ) -> Result<Self, QuadratureError> {
        let mut parts = Vec::with_capacity(objects.len());
        for (k, (region, range)) in objects.iter().enumerate() {
            let part = Self::new(
                *region,
                &particles[range.clone()],
                spacing,
                material,
                settings,
            )
            .map_err(|e| {
                if objects.len() > 1 {
                    QuadratureError(format!("object {}: {e}", k + 1))
                } else {
                    e
                }
            })?;
            parts.push((part, range.start));
        }
        let Some((first, _)) = parts.first() else {
            return Err(QuadratureError(
                "a body of no objects has no quadrature".into(),
            ));
        };
        let mut merged = Self {
            grid: first.grid,
            points: IntegrationPoints::default(),
            shape: ShapeFunctions::default(),
            support_radius: first.support_radius,
            lame: Vec::new(),
            softening: Vec::new(),
            plastic_deformation: Vec::new(),
            reference: particles.to_vec(),
            held: None,
        };
        let mut rows = Vec::new();
        let mut widened = Vec::new();
        for (part, offset) in parts {
            let base = merged.points.len() as u32;
            merged.points.position.extend(&part.points.position);
            merged.points.volume.extend(&part.points.volume);
            merged.points.full_cells += part.points.full_cells;
            merged.points.cut_cells += part.points.cut_cells;
            merged.lame.extend(&part.lame);
            merged.softening.extend(&part.softening);
            merged.plastic_deformation.extend(&part.plastic_deformation);
            let shape = &part.shape;
            for k in 0..shape.len() {
                rows.push(
                    shape
                        .edges(k)
                        .map(|e| {
                            (
                                shape.particle[e] + offset as u32,
                                shape.value[e],
                                shape.gradient[e],
                            )
                        })
                        .collect::<Vec<_>>(),
                );
            }
            merged
                .shape
                .degenerate
                .extend(shape.degenerate.iter().map(|k| k + base));
            widened.extend(shape.widened.iter().map(|k| k + base));
        }
        let degenerate = std::mem::take(&mut merged.shape.degenerate);
        merged.shape = ShapeFunctions::from_rows(rows, particles.len());
        merged.shape.degenerate = degenerate;
        merged.shape.widened = widened;
        Ok(merged)
    }

    /// λ_I, μ_I as they act now: the cold material's scaled by the point's softening s_I.
    pub fn point_lame(&self, point: usize) -> Lame {
        let Lame { lambda, mu } = self.lame[point];
        let s = self.softening[point];
        Lame {
            lambda: s * lambda,
            mu: s * mu,
        }
    }

    /// Melting at the points (MKN04 §5.2 carried to the quadrature): s_I = Σ_i φ_i(x_I) s_i from the
    /// particles' stiffness factors s_i, clamped to the range of the s_i it interpolates (the MLS φ_i
    /// may be negative; the clamp keeps s_I a convex value, never above the coldest or below the
    /// most molten of its particles).
    pub fn soften(&mut self, particle_scale: &[f64]) {
        let shape = &self.shape;
        self.softening = map_indices(shape.len(), |k| {
            let (mut sum, mut low, mut high) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
            for e in shape.edges(k) {
                let s = particle_scale[shape.particle[e] as usize];
                sum += shape.value[e] * s;
                low = low.min(s);
                high = high.max(s);
            }
            if low <= high {
                sum.clamp(low, high)
            } else {
                1.0
            }
        });
    }

    /// Number of integration points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn particle_count(&self) -> usize {
        self.reference.len()
    }

    /// Each particle's share of the volume, V_i = Σ_I v_I φ_i(x_I): Σ_i V_i = Σ_I v_I because the
    /// shape functions sum to one.
    pub fn volume_shares(&self) -> Vec<f64> {
        let shape = &self.shape;
        (0..self.particle_count())
            .map(|i| {
                shape
                    .edges_into(i)
                    .iter()
                    .map(|&e| {
                        self.points.volume[shape.owner[e as usize] as usize]
                            * shape.value[e as usize]
                    })
                    .sum()
            })
            .collect()
    }

    /// The row-sum lumped masses m_i = ρ V_i (the consistent mass matrix ∫ρ φ_i φ_j summed over j):
    /// Σ m_i = ρ Σ v_I, and m_i g is the consistent gravity load ∫ ρ g φ_i.
    pub fn lumped_masses(&self, density: f64) -> Vec<f64> {
        self.volume_shares()
            .into_iter()
            .map(|v| density * v)
            .collect()
    }

    /// Hold the surface points `points` (position, area) at rest by the penalty α = `penalty_factor` ·
    /// E / a, E the largest Young's modulus of the points and a the particle spacing (Zhu & Atluri
    /// 1998 find 10³–10⁴ · E suitable in their units; β ≈ 100 holds a face to a fraction of a percent
    /// of the deflection here while keeping CG's conditioning, see the tests). Replaces any held
    /// surface before.
    pub fn hold_surface(&mut self, points: &[(DVec3, f64)], penalty_factor: f64, spacing: f64) {
        let young = self
            .lame
            .iter()
            .map(|l| l.mu * (3.0 * l.lambda + 2.0 * l.mu) / (l.lambda + l.mu))
            .fold(0.0, f64::max);
        let mut held = HeldSurface {
            penalty: penalty_factor * young / spacing,
            area: Vec::with_capacity(points.len()),
            start: vec![0],
            particle: Vec::new(),
            value: Vec::new(),
        };
        for &(at, area) in points {
            for (i, phi) in self.shape_values_at(at) {
                held.particle.push(i as u32);
                held.value.push(phi);
            }
            held.area.push(area);
            held.start.push(held.particle.len() as u32);
        }
        self.held = Some(held);
    }

    /// φ_i(x) of the particles around the reference point `x`.
    pub fn shape_values_at(&self, x: DVec3) -> Vec<(usize, f64)> {
        let h = self.support_radius;
        let near: Vec<usize> = (0..self.reference.len())
            .filter(|&i| self.reference[i].distance(x) < h)
            .collect();
        let positions: Vec<DVec3> = near.iter().map(|&i| self.reference[i]).collect();
        let (values, _) = at_point(x, &positions, h);
        near.into_iter()
            .zip(values)
            .map(|(i, (phi, _))| (i, phi))
            .collect()
    }

    /// ũ(x) = Σ_i φ_i(x) u_i at the reference point `x` (seed 003 eq. 6).
    pub fn displacement_at(&self, x: DVec3, displacement: &[DVec3]) -> DVec3 {
        self.shape_values_at(x)
            .into_iter()
            .map(|(i, phi)| phi * displacement[i])
            .sum()
    }

    /// A force `force` applied at the reference point `at`, spread over the particles as
    /// f_i = φ_i(at) f (seed 003 eq. 17).
    pub fn point_load(&self, at: DVec3, force: DVec3) -> Vec<(usize, DVec3)> {
        self.shape_values_at(at)
            .into_iter()
            .map(|(i, phi)| (i, phi * force))
            .collect()
    }
}

#[cfg(test)]
mod tests;
