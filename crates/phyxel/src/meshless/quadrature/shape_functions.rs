//! MLS shape functions with a linear basis and their full derivatives at the integration points (seed
//! 003 §3.3 eq. 8, after Belytschko, Lu & Gu 1994, "Element-free Galerkin methods", eqs. 7–13).
//!
//! Around an integration point x_I (the fixed origin of the basis), with p(y) = [1, (y − x_I)/h]ᵀ,
//! p_i = p(x_i), w_i(x) = w(|x_i − x|, h) and
//!
//! A(x) = Σ_i w_i(x) p_i p_iᵀ,   γ = A⁻¹ p(x),   φ_i = w_i γ·p_i,
//!
//! the derivatives are ∂_k γ = A⁻¹ (∂_k p − ∂_k A γ) and ∂_k φ_i = w_i ∂_k γ·p_i + ∂_k w_i γ·p_i, all
//! at x = x_I. The linear basis makes the shape functions reproduce every affine field exactly:
//! Σ φ_i = 1, Σ φ_i x_i = x_I, Σ ∇φ_i = 0, Σ x_i ∇φ_iᵀ = I (the patch test). The weight is MKN04's
//! poly6 shape w = (1 − r²/h²)³ (its normalization cancels in φ).
//!
//! A point whose neighbourhood spans less than three dimensions (fewer than four particles, or all
//! of them coplanar) gets a pseudo-inverse of A and is counted as degenerate; its shape functions are
//! finite but reproduce only the affine fields in the directions the particles span.

use super::single_precision;
use crate::meshless::neighbours::HashGrid;
use crate::parallel::map_indices;
use glam::{DMat4, DVec3, DVec4, Vec3A};

/// Eigenvalues of A below this fraction of the largest are treated as zero.
pub const RELATIVE_THRESHOLD: f64 = 1e-6;

/// The shape functions of every integration point, in compressed rows: edge e of point I joins it to
/// particle `particle[e]` with value φ_e and gradient ∇φ_e; the reverse lists name, for each particle,
/// the edges that reach it (the force gather reads them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeFunctions {
    /// Edges of point I: `start[I]..start[I + 1]`.
    pub start: Vec<u32>,
    pub particle: Vec<u32>,
    pub value: Vec<f64>,
    pub gradient: Vec<DVec3>,
    /// ∇φ_e in single precision, for the stiffness product (`FrozenStiffness::product`), with
    /// round-off components flushed to zero ([`single_precision::flushed_gradients`]).
    pub gradient_single: Vec<Vec3A>,
    /// The largest component of any ∇φ_e: the scale of the gradients.
    pub gradient_bound: f64,
    /// Edges reaching particle i: `reverse[reverse_start[i]..reverse_start[i + 1]]`.
    pub reverse_start: Vec<u32>,
    pub reverse: Vec<u32>,
    /// The integration point of each edge.
    pub owner: Vec<u32>,
    /// Points whose moment matrix was rank-deficient (module docs), even with a widened support.
    pub degenerate: Vec<u32>,
    /// Points whose support was widened ([`WIDENING`]) because the particles within h alone left
    /// their moment matrix rank-deficient (a thin part of a shape, a bunny's ear).
    pub widened: Vec<u32>,
    /// For each of the [`POINT_RANGES`] fixed ranges of points ([`ShapeFunctions::range_length`]),
    /// the particles its edges reach, first..end: the part of the particles' sums a range writes.
    pub range_windows: Vec<(u32, u32)>,
}

/// The fixed number of ranges the per-particle sums over the points are split into (enough for the
/// threads of a browser's pool; each range keeps its own sums over its window of particles, and the
/// ranges are added in order: `Quadrature::sum_over_points`).
pub const POINT_RANGES: usize = 16;

/// The factors a rank-deficient point's support radius is widened by, in turn, until its moment
/// matrix has full rank. (A quadrature that needs it at many points is refused:
/// [`super::MAX_WIDENED_FRACTION`].) The shape functions stay a partition of unity that reproduces affine fields
/// (the patch test does not depend on h); they only reach further.
pub const WIDENING: [f64; 4] = [1.25, 1.5, 2.0, 3.0];

/// φ_i(x) over the particles within the first widened support of x that gives a full-rank moment
/// matrix (the widest if none does), found in `wide`, a grid of the particles with cells of the
/// widest support (built once, by the first point that needs it).
fn widened(
    x: DVec3,
    particles: &[DVec3],
    support_radius: f64,
    wide: &HashGrid,
) -> (Vec<u32>, Vec<(f64, DVec3)>, bool) {
    let mut last = (Vec::new(), Vec::new(), false);
    for factor in WIDENING {
        let h = factor * support_radius;
        let mut near: Vec<u32> = wide
            .candidates(x)
            .filter(|&i| particles[i as usize].distance(x) < h)
            .collect();
        near.sort_unstable();
        let at: Vec<DVec3> = near.iter().map(|&i| particles[i as usize]).collect();
        let (values, full_rank) = at_point(x, &at, h);
        last = (near, values, full_rank);
        if full_rank {
            break;
        }
    }
    last
}

impl ShapeFunctions {
    /// The shape functions at `points` from the particles at `particles` within `support_radius` h.
    pub fn build(points: &[DVec3], particles: &[DVec3], support_radius: f64) -> Self {
        let grid = HashGrid::build(particles, support_radius);
        let widest = WIDENING[WIDENING.len() - 1] * support_radius;
        let wide = std::sync::OnceLock::new();
        let rows = map_indices(points.len(), |k| {
            let x = points[k];
            let mut near: Vec<u32> = grid
                .candidates(x)
                .filter(|&i| particles[i as usize].distance(x) < support_radius)
                .collect();
            near.sort_unstable();
            let at: Vec<DVec3> = near.iter().map(|&i| particles[i as usize]).collect();
            let (values, full_rank) = at_point(x, &at, support_radius);
            if full_rank {
                (near, values, full_rank, false)
            } else {
                let wide = wide.get_or_init(|| HashGrid::build(particles, widest));
                let (near, values, full_rank) = widened(x, particles, support_radius, wide);
                (near, values, full_rank, true)
            }
        });
        let widened = (0..rows.len() as u32)
            .filter(|&k| rows[k as usize].3)
            .collect();
        let degenerate = (0..rows.len() as u32)
            .filter(|&k| !rows[k as usize].2)
            .collect();
        let rows = rows
            .into_iter()
            .map(|(near, values, _, _)| {
                near.into_iter()
                    .zip(values)
                    .map(|(i, (phi, grad))| (i, phi, grad))
                    .collect()
            })
            .collect();
        let mut shape = Self::from_rows(rows, particles.len());
        shape.degenerate = degenerate;
        shape.widened = widened;
        shape
    }

    /// The compressed rows of `rows` (for each point its edges: particle, φ, ∇φ) over `n` particles,
    /// with their reverse lists (no point counted degenerate).
    pub fn from_rows(rows: Vec<Vec<(u32, f64, DVec3)>>, n: usize) -> Self {
        let mut shape = Self {
            start: vec![0],
            ..Self::default()
        };
        for (k, row) in rows.into_iter().enumerate() {
            for (i, phi, grad) in row {
                shape.particle.push(i);
                shape.value.push(phi);
                shape.gradient.push(grad);
                shape.owner.push(k as u32);
            }
            shape.start.push(shape.particle.len() as u32);
        }
        shape.gradient_bound = single_precision::gradient_bound(&shape.gradient);
        shape.gradient_single =
            single_precision::flushed_gradients(&shape.gradient, shape.gradient_bound);
        // Reverse lists by counting sort of the edges on their particle.
        let mut reverse_start = vec![0u32; n + 1];
        for &i in &shape.particle {
            reverse_start[i as usize + 1] += 1;
        }
        for i in 0..n {
            reverse_start[i + 1] += reverse_start[i];
        }
        let mut fill = reverse_start.clone();
        let mut reverse = vec![0u32; shape.particle.len()];
        for (e, &i) in shape.particle.iter().enumerate() {
            reverse[fill[i as usize] as usize] = e as u32;
            fill[i as usize] += 1;
        }
        shape.reverse_start = reverse_start;
        shape.reverse = reverse;
        shape.range_windows = shape.windows_of_ranges();
        shape
    }

    /// The points in each of the fixed ranges (the last may hold fewer).
    pub fn range_length(&self) -> usize {
        self.len().div_ceil(POINT_RANGES).max(1)
    }

    /// The particles the edges of each point range reach, first..end (0..0 for a range without edges).
    fn windows_of_ranges(&self) -> Vec<(u32, u32)> {
        let (points, range) = (self.len(), self.range_length());
        (0..points.div_ceil(range))
            .map(|c| {
                let edges = self.start[c * range] as usize
                    ..self.start[((c + 1) * range).min(points)] as usize;
                let reached = &self.particle[edges];
                match (reached.iter().min(), reached.iter().max()) {
                    (Some(&first), Some(&last)) => (first, last + 1),
                    _ => (0, 0),
                }
            })
            .collect()
    }

    /// Number of integration points.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The edges of integration point I.
    pub fn edges(&self, point: usize) -> std::ops::Range<usize> {
        self.start[point] as usize..self.start[point + 1] as usize
    }

    /// The edges that reach particle i.
    pub fn edges_into(&self, particle: usize) -> &[u32] {
        &self.reverse
            [self.reverse_start[particle] as usize..self.reverse_start[particle + 1] as usize]
    }

    /// ũ(x_I) = Σ_i φ_i(x_I) u_i (seed 003 eq. 6) for every point.
    pub fn interpolate(&self, values: &[DVec3]) -> Vec<DVec3> {
        map_indices(self.len(), |k| {
            self.edges(k)
                .map(|e| self.value[e] * values[self.particle[e] as usize])
                .sum()
        })
    }
}

/// φ_i(x) and ∇φ_i(x) for the particles at `at`, and whether A had full rank.
pub fn at_point(x: DVec3, at: &[DVec3], h: f64) -> (Vec<(f64, DVec3)>, bool) {
    let mut a = DMat4::ZERO;
    let mut da = [DMat4::ZERO; 3];
    let mut basis = Vec::with_capacity(at.len());
    for &xi in at {
        let d = (xi - x) / h;
        let q = 1.0 - d.length_squared();
        let (w, dw) = if q > 0.0 {
            // w = q³, ∂w/∂x = 3q² · ∂q/∂x = 3q² · 2(x_i − x)/h².
            (q * q * q, 3.0 * q * q * 2.0 * d / h)
        } else {
            (0.0, DVec3::ZERO)
        };
        let p = DVec4::new(1.0, d.x, d.y, d.z);
        let ppt = outer4(p, p);
        a += ppt * w;
        for k in 0..3 {
            da[k] += ppt * dw[k];
        }
        basis.push((p, w, dw));
    }
    let (inverse, rank) = safe_inverse4(a);
    let gamma = inverse * DVec4::X;
    let dgamma: [DVec4; 3] = std::array::from_fn(|k| {
        let dp = DVec4::new(
            0.0,
            (k == 0) as u8 as f64,
            (k == 1) as u8 as f64,
            (k == 2) as u8 as f64,
        ) / h;
        inverse * (dp - da[k] * gamma)
    });
    let values = basis
        .into_iter()
        .map(|(p, w, dw)| {
            let gp = gamma.dot(p);
            let grad = DVec3::new(
                w * dgamma[0].dot(p) + dw.x * gp,
                w * dgamma[1].dot(p) + dw.y * gp,
                w * dgamma[2].dot(p) + dw.z * gp,
            );
            (w * gp, grad)
        })
        .collect();
    (values, rank == 4)
}

fn outer4(a: DVec4, b: DVec4) -> DMat4 {
    DMat4::from_cols(a * b.x, a * b.y, a * b.z, a * b.w)
}

/// Pseudo-inverse of a symmetric positive semi-definite 4 × 4 matrix by cyclic Jacobi rotations,
/// keeping eigenvalues above [`RELATIVE_THRESHOLD`] × the largest, and the rank kept. (Indexed loops:
/// the rotations read as Golub & Van Loan's Algorithm 8.4.3 does.)
#[allow(clippy::needless_range_loop)]
pub fn safe_inverse4(a: DMat4) -> (DMat4, usize) {
    if !a.is_finite() {
        return (DMat4::ZERO, 0);
    }
    let mut m = a.to_cols_array_2d();
    let mut q = DMat4::IDENTITY.to_cols_array_2d(); // columns are eigenvectors
    for _sweep in 0..60 {
        let mut off = 0.0;
        let mut diag = 0.0;
        for p in 0..4 {
            diag += m[p][p] * m[p][p];
            for r in p + 1..4 {
                off += m[p][r] * m[p][r];
            }
        }
        if off <= 1e-32 * diag || off == 0.0 {
            break;
        }
        for p in 0..4 {
            for r in p + 1..4 {
                if m[p][r] == 0.0 {
                    continue;
                }
                let theta = (m[r][r] - m[p][p]) / (2.0 * m[p][r]);
                let t = if theta == 0.0 {
                    1.0
                } else {
                    theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
                };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // m ← Jᵀ m J with the rotation J in the (p, r) plane.
                for k in 0..4 {
                    let (mkp, mkr) = (m[k][p], m[k][r]);
                    m[k][p] = c * mkp - s * mkr;
                    m[k][r] = s * mkp + c * mkr;
                }
                for k in 0..4 {
                    let (mpk, mrk) = (m[p][k], m[r][k]);
                    m[p][k] = c * mpk - s * mrk;
                    m[r][k] = s * mpk + c * mrk;
                }
                for k in 0..4 {
                    // Rows k of the eigenvector matrix: column p and r of Q.
                    let (qkp, qkr) = (q[p][k], q[r][k]);
                    q[p][k] = c * qkp - s * qkr;
                    q[r][k] = s * qkp + c * qkr;
                }
            }
        }
    }
    let largest = (0..4).map(|k| m[k][k].abs()).fold(0.0, f64::max);
    let mut inverse = DMat4::ZERO;
    let mut rank = 0;
    for k in 0..4 {
        let lambda = m[k][k];
        if largest > 0.0 && lambda > RELATIVE_THRESHOLD * largest {
            let v = DVec4::from_array(q[k]);
            inverse += outer4(v, v) * (1.0 / lambda);
            rank += 1;
        }
    }
    (inverse, rank)
}
