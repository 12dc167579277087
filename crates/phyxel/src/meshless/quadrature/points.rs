//! Integration points on a regular background grid, cropped to the shape (seed 003 §3.3, Fig. 1 b–c;
//! eq. 7: ∫_Ω f dΩ ≈ Σ_I v_I f(x_I)).
//!
//! Every cell of the grid is classified by its corners: a cell whose eight corners lie inside the
//! shape gets the tensor Gauss–Legendre points of the chosen order, with weights that sum to the cell's
//! volume; a cell near the surface (some corner of it or of a cell beside it inside) is cut into its
//! eight octants, each sampled on an s × s × s lattice of midpoints, and each octant that is partly
//! inside gets one point at the centroid of its inside samples with the inside part's volume. Cells
//! that lie wholly inside an axis-aligned box face are therefore exact, and for curved surfaces the
//! volume error falls with the sampling (Σ v_I is checked against the analytic volumes and the mesh's
//! signed volume in the tests).

use crate::meshless::inside::IndexedMesh;
use crate::meshless::mesh::TriangleMesh;
use crate::meshless::sampling::Shape;
use crate::parallel::map_indices;
use glam::{DVec3, IVec3};

/// A solid region the grid is cropped to.
pub trait Region: Sync {
    /// Whether `p` lies inside (boundary included).
    fn contains(&self, p: DVec3) -> bool;
    /// An axis-aligned box (min, max) around the region.
    fn bounds(&self) -> (DVec3, DVec3);
}

impl Region for Shape {
    fn contains(&self, p: DVec3) -> bool {
        Shape::contains(self, p)
    }
    fn bounds(&self) -> (DVec3, DVec3) {
        Shape::bounds(self)
    }
}

impl Region for IndexedMesh {
    fn contains(&self, p: DVec3) -> bool {
        IndexedMesh::contains(self, p)
    }
    fn bounds(&self) -> (DVec3, DVec3) {
        self.mesh().bounds()
    }
}

impl Region for TriangleMesh {
    fn contains(&self, p: DVec3) -> bool {
        TriangleMesh::contains(self, p)
    }
    fn bounds(&self) -> (DVec3, DVec3) {
        TriangleMesh::bounds(self)
    }
}

/// The background grid: cubic cells of edge `cell` with a corner at `origin`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BackgroundGrid {
    pub origin: DVec3,
    /// Cell edge (m).
    pub cell: f64,
    /// Gauss–Legendre points per axis in a full cell (1–3).
    pub gauss_order: usize,
    /// Midpoint samples per axis and octant in a cell at the surface.
    pub surface_samples: usize,
}

impl BackgroundGrid {
    /// A grid of cells of edge `cell` through `origin`, 2 × 2 × 2 Gauss points a cell and 4³ samples
    /// an octant at the surface.
    pub fn new(origin: DVec3, cell: f64) -> Self {
        Self {
            origin,
            cell,
            gauss_order: 2,
            surface_samples: 4,
        }
    }
}

/// Gauss–Legendre abscissae on [−1, 1] and their weights (summing to 2), orders 1–3.
pub fn gauss_legendre(order: usize) -> (&'static [f64], &'static [f64]) {
    const SQRT_1_3: f64 = 0.577_350_269_189_625_8; // 1/√3
    const SQRT_3_5: f64 = 0.774_596_669_241_483_4; // √(3/5)
    match order {
        1 => (&[0.0], &[2.0]),
        2 => (&[-SQRT_1_3, SQRT_1_3], &[1.0, 1.0]),
        _ => (
            &[-SQRT_3_5, 0.0, SQRT_3_5],
            &[5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0],
        ),
    }
}

/// The integration points x_I and their volumes v_I.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntegrationPoints {
    pub position: Vec<DVec3>,
    pub volume: Vec<f64>,
    /// Cells wholly inside (Gauss points).
    pub full_cells: usize,
    /// Cells cut by the surface (octant points).
    pub cut_cells: usize,
}

impl IntegrationPoints {
    pub fn len(&self) -> usize {
        self.position.len()
    }

    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Σ_I v_I, the body's volume as the quadrature sees it.
    pub fn total_volume(&self) -> f64 {
        self.volume.iter().sum()
    }
}

/// The integration points of `region` on `grid` (module docs). The work is bounded by the caller:
/// it is proportional to the number of cells in the region's bounding box.
pub fn integration_points(region: &dyn Region, grid: BackgroundGrid) -> IntegrationPoints {
    let (min, max) = region.bounds();
    let c = grid.cell;
    // Cells that overlap the bounds, plus one ring so that the cut test sees outside corners.
    let first = ((min - grid.origin) / c).floor().as_ivec3() - 1;
    let last = ((max - grid.origin) / c).ceil().as_ivec3() + 1;
    let cells = last - first; // cells per axis
    let nodes = cells + 1;
    let node_index = |n: IVec3| (n.x + nodes.x * (n.y + nodes.y * n.z)) as usize;
    let inside_node: Vec<bool> = map_indices((nodes.x * nodes.y * nodes.z) as usize, |k| {
        let k = k as i32;
        let n = IVec3::new(
            k % nodes.x,
            (k / nodes.x) % nodes.y,
            k / (nodes.x * nodes.y),
        );
        region.contains(grid.origin + (first + n).as_dvec3() * c)
    });
    let corners_inside = |cell: IVec3| -> usize {
        (0..8)
            .filter(|b| {
                let n = cell + IVec3::new(b & 1, (b >> 1) & 1, (b >> 2) & 1);
                inside_node[node_index(n)]
            })
            .count()
    };
    let cell_count = (cells.x * cells.y * cells.z) as usize;
    let per_cell: Vec<(u8, Vec<(DVec3, f64)>)> = map_indices(cell_count, |k| {
        let k = k as i32;
        let cell = IVec3::new(
            k % cells.x,
            (k / cells.x) % cells.y,
            k / (cells.x * cells.y),
        );
        let lo = grid.origin + (first + cell).as_dvec3() * c;
        if corners_inside(cell) == 8 {
            return (1, gauss_points(lo, c, grid.gauss_order));
        }
        // Near the surface if any corner of this cell or of a cell beside it is inside.
        let near = (-1..=1).any(|dz| {
            (-1..=1).any(|dy| {
                (-1..=1).any(|dx| {
                    let other = cell + IVec3::new(dx, dy, dz);
                    other.cmpge(IVec3::ZERO).all()
                        && other.cmplt(cells).all()
                        && corners_inside(other) > 0
                })
            })
        });
        if !near {
            return (0, Vec::new());
        }
        let points = octant_points(region, lo, c, grid.surface_samples.max(1));
        (if points.is_empty() { 0 } else { 2 }, points)
    });
    let mut result = IntegrationPoints::default();
    for (kind, points) in per_cell {
        match kind {
            1 => result.full_cells += 1,
            2 => result.cut_cells += 1,
            _ => {}
        }
        for (x, v) in points {
            result.position.push(x);
            result.volume.push(v);
        }
    }
    result
}

/// The tensor Gauss points of a full cell [lo, lo + c]³: x = lo + c(1 + ξ)/2, v = (c/2)³ w_a w_b w_c.
fn gauss_points(lo: DVec3, c: f64, order: usize) -> Vec<(DVec3, f64)> {
    let (xi, w) = gauss_legendre(order);
    let half = 0.5 * c;
    let mut points = Vec::with_capacity(xi.len().pow(3));
    for (zk, wk) in xi.iter().zip(w) {
        for (yj, wj) in xi.iter().zip(w) {
            for (xa, wa) in xi.iter().zip(w) {
                let offset = DVec3::new(1.0 + xa, 1.0 + yj, 1.0 + zk) * half;
                points.push((lo + offset, half.powi(3) * wa * wj * wk));
            }
        }
    }
    points
}

/// One point per octant of a cut cell: the centroid of the octant's inside samples, with the inside
/// fraction of the octant's volume.
fn octant_points(region: &dyn Region, lo: DVec3, c: f64, s: usize) -> Vec<(DVec3, f64)> {
    let half = 0.5 * c;
    let step = half / s as f64;
    let mut points = Vec::new();
    for octant in 0..8 {
        let corner = lo
            + DVec3::new(
                (octant & 1) as f64,
                ((octant >> 1) & 1) as f64,
                ((octant >> 2) & 1) as f64,
            ) * half;
        let mut sum = DVec3::ZERO;
        let mut count = 0usize;
        for k in 0..s {
            for j in 0..s {
                for i in 0..s {
                    let p = corner + (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * step;
                    if region.contains(p) {
                        sum += p;
                        count += 1;
                    }
                }
            }
        }
        if count > 0 {
            let fraction = count as f64 / (s * s * s) as f64;
            points.push((sum / count as f64, fraction * half.powi(3)));
        }
    }
    points
}

/// Surface quadrature points on one face of the box [min, max]: the face x_axis = max (or min) cut
/// into cells of edge about `cell`, 2 × 2 Gauss points a cell, each with its area. For loads on a face
/// (a traction t gives f_i = Σ_s A_s φ_i(x_s) t, seed 003 eq. 17) and for holding it.
pub fn box_face_points(
    min: DVec3,
    max: DVec3,
    axis: usize,
    at_max: bool,
    cell: f64,
) -> Vec<(DVec3, f64)> {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let size = max - min;
    let counts = [u, v].map(|k| ((size[k] / cell).round() as usize).max(1));
    let steps = [size[u] / counts[0] as f64, size[v] / counts[1] as f64];
    let (xi, _) = gauss_legendre(2);
    let mut points = Vec::with_capacity(4 * counts[0] * counts[1]);
    for cu in 0..counts[0] {
        for cv in 0..counts[1] {
            for a in xi {
                for b in xi {
                    let mut p = if at_max { max } else { min };
                    p[u] = min[u] + (cu as f64 + 0.5 * (1.0 + a)) * steps[0];
                    p[v] = min[v] + (cv as f64 + 0.5 * (1.0 + b)) * steps[1];
                    points.push((p, 0.25 * steps[0] * steps[1]));
                }
            }
        }
    }
    points
}
