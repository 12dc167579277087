//! Boundaries as particles with volumes (Akinci, Ihmsen, Akinci, Solenthaler, Teschner 2012,
//! "Versatile rigid-fluid coupling for incompressible SPH", §3): a wall of any shape is sampled by
//! static particles b, each with the volume
//!
//! V_b = 1 / Σ_k W(x_b − x_k)   (k over the boundary particles, b included),
//!
//! so that a non-uniform or curved sampling counts each piece of wall once. A fluid particle then sees
//! the wall as fluid of rest density: its contribution to ρ_i is ρ₀ V_b W_ib ("Ψ_b(ρ₀) = ρ₀ V_b"), and
//! its pressure acceleration on i is −ρ₀ V_b (p_i/ρ_i²) ∇W_ib (the wall takes particle i's own
//! pressure). The solvers' files add those terms beside the fluid's.

use super::error::FluidError;
use super::grid::CellGrid;
use super::kernel::{SmoothingKernel, Vector};

/// The most boundary particles a fluid holds.
pub const MAX_BOUNDARY_PARTICLES: usize = 200_000;

/// Static boundary particles x_b and their volumes V_b.
#[derive(Clone, Debug, Default)]
pub struct Boundary {
    pub x: Vec<Vector>,
    pub volume: Vec<f64>,
}

impl Boundary {
    /// Boundary particles at `points` with Akinci's volumes for the kernel, at most
    /// [`MAX_BOUNDARY_PARTICLES`].
    pub fn new(points: Vec<Vector>, kernel: &SmoothingKernel) -> Result<Self, FluidError> {
        Self::with_limit(points, kernel, MAX_BOUNDARY_PARTICLES)
    }

    /// [`Boundary::new`] with at most `limit` particles (`Fluid::with_limits`).
    pub fn with_limit(
        points: Vec<Vector>,
        kernel: &SmoothingKernel,
        limit: usize,
    ) -> Result<Self, FluidError> {
        if points.len() > limit {
            return Err(FluidError::TooManyParticles {
                what: "boundary",
                count: points.len(),
                limit,
            });
        }
        if points.iter().any(|p| !p.is_finite()) {
            return Err(FluidError::BadInput(
                "a boundary particle's position is not a finite number".into(),
            ));
        }
        let (lo, hi) = bounds(&points);
        let pad = Vector::splat(kernel.h);
        let mut grid = CellGrid::new(lo - pad, hi + pad, kernel.h);
        grid.build(&points).map_err(|i| {
            FluidError::BadInput(format!("boundary particle {i} is outside its grid"))
        })?;
        let volume = points
            .iter()
            .map(|&xb| {
                let mut sum = 0.0;
                grid.for_each_near(xb, |k| sum += kernel.w((xb - points[k]).length()));
                1.0 / sum
            })
            .collect();
        Ok(Self { x: points, volume })
    }
}

/// The bounding box of some points (the origin's for none).
pub fn bounds(points: &[Vector]) -> (Vector, Vector) {
    if points.is_empty() {
        return (Vector::ZERO, Vector::ZERO);
    }
    points.iter().fold(
        (
            Vector::splat(f64::INFINITY),
            Vector::splat(f64::NEG_INFINITY),
        ),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    )
}
