//! Fast inside tests for closed triangle meshes: the winding number of a point counted along a ray
//! in +x, with the triangles bucketed on a (y, z) grid so that a query tests only the few triangles
//! whose shadow covers it. The generalized winding number ([`TriangleMesh::winding_number`]) sums
//! over every triangle; for the Gauss points of a background quadrature (hundreds per cut cell) and
//! the lattice of a fine sampling that is too slow, and for a closed mesh the two agree.
//!
//! A ray from p in +x leaves a closed, outward-oriented solid through triangles whose normal has
//! n_x > 0 and enters through those with n_x < 0; the winding number is Σ sign(n_x) over the
//! triangles it crosses beyond p. Each triangle is tested in its (y, z) projection with edge
//! functions; a ray through a shared edge or vertex is counted once by the top-left rule of
//! rasterization (an edge function of zero counts only on the edges of one side), and a triangle seen
//! edge-on (n_x = 0) is skipped — its neighbours carry the crossing.
//!
//! [`sample_mesh`] puts a body's phyxels at the lattice points inside a mesh with it.

use super::mesh::TriangleMesh;
use super::sampling::Lattice;
use glam::{DVec2, DVec3};

/// A closed mesh with its triangles bucketed by their (y, z) bounding boxes.
#[derive(Clone, Debug)]
pub struct IndexedMesh {
    mesh: TriangleMesh,
    lo: DVec3,
    hi: DVec3,
    /// Grid cell edge in y and z.
    cell: DVec2,
    dims: [usize; 2],
    /// Triangles of cell (j, k): `triangle[start[j·dims[1] + k]..start[j·dims[1] + k + 1]]`.
    start: Vec<u32>,
    triangle: Vec<u32>,
}

impl IndexedMesh {
    /// Bucket `mesh`'s triangles on a grid of about √T × √T cells over its (y, z) bounds.
    pub fn new(mesh: TriangleMesh) -> Self {
        let (lo, hi) = mesh.bounds();
        let side = ((mesh.triangles.len() as f64).sqrt().ceil() as usize).clamp(1, 256);
        let dims = [side, side];
        let extent = DVec2::new(hi.y - lo.y, hi.z - lo.z).max(DVec2::splat(f64::MIN_POSITIVE));
        let cell = extent / side as f64;
        let cell_of = |y: f64, z: f64| {
            let j = (((y - lo.y) / cell.x) as usize).min(side - 1);
            let k = (((z - lo.z) / cell.y) as usize).min(side - 1);
            (j, k)
        };
        let mut buckets = vec![Vec::new(); side * side];
        for (t, corners) in mesh.triangles.iter().enumerate() {
            let [a, b, c] = corners.map(|i| mesh.vertices[i as usize]);
            let (j0, k0) = cell_of(a.y.min(b.y).min(c.y), a.z.min(b.z).min(c.z));
            let (j1, k1) = cell_of(a.y.max(b.y).max(c.y), a.z.max(b.z).max(c.z));
            for j in j0..=j1 {
                for k in k0..=k1 {
                    buckets[j * side + k].push(t as u32);
                }
            }
        }
        let mut start = vec![0u32];
        let mut triangle = Vec::new();
        for bucket in buckets {
            triangle.extend(bucket);
            start.push(triangle.len() as u32);
        }
        Self {
            mesh,
            lo,
            hi,
            cell,
            dims,
            start,
            triangle,
        }
    }

    /// The mesh it indexes.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The winding number of `p` counted along the ray in +x (module docs): 1 inside, 0 outside.
    pub fn winding_number(&self, p: DVec3) -> i32 {
        if p.cmplt(self.lo).any() || p.cmpgt(self.hi).any() {
            return 0;
        }
        let j = (((p.y - self.lo.y) / self.cell.x) as usize).min(self.dims[0] - 1);
        let k = (((p.z - self.lo.z) / self.cell.y) as usize).min(self.dims[1] - 1);
        let bucket = j * self.dims[1] + k;
        let q = DVec2::new(p.y, p.z);
        self.triangle[self.start[bucket] as usize..self.start[bucket + 1] as usize]
            .iter()
            .map(|&t| {
                let corners =
                    self.mesh.triangles[t as usize].map(|i| self.mesh.vertices[i as usize]);
                crossing(corners, p.x, q)
            })
            .sum()
    }

    pub fn contains(&self, p: DVec3) -> bool {
        self.winding_number(p) > 0
    }
}

/// Lattice points inside a closed mesh. The lattice starts half a spacing inside the bounding box, so
/// that no point lies on an axis-aligned face, where the winding number is ½.
pub fn sample_mesh(mesh: &TriangleMesh, spacing: f64, lattice: Lattice) -> Vec<DVec3> {
    let (min, max) = mesh.bounds();
    let inset = super::sampling::Shape::Box {
        min: min + 0.5 * spacing,
        max,
    };
    let candidates = super::sampling::sample(&inset, spacing, lattice);
    let indexed = IndexedMesh::new(mesh.clone());
    crate::parallel::map_indices(candidates.len(), |i| {
        indexed.contains(candidates[i]).then_some(candidates[i])
    })
    .into_iter()
    .flatten()
    .collect()
}

/// z-component of the 2D cross product.
fn cross2(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// Whether a point on the edge from `u` to `v` of a counter-clockwise triangle counts as covered:
/// the top-left rule, so that of two triangles sharing the edge exactly one covers it.
fn top_left(u: DVec2, v: DVec2) -> bool {
    let d = v - u;
    d.y < 0.0 || (d.y == 0.0 && d.x > 0.0)
}

/// sign(n_x) if the ray from (x, q) in +x crosses the triangle beyond x, else 0.
fn crossing([a, b, c]: [DVec3; 3], x: f64, q: DVec2) -> i32 {
    let (mut a2, mut b2, c2) = (
        DVec2::new(a.y, a.z),
        DVec2::new(b.y, b.z),
        DVec2::new(c.y, c.z),
    );
    let (mut ax, mut bx, cx) = (a.x, b.x, c.x);
    let area = cross2(b2 - a2, c2 - a2);
    if area == 0.0 {
        return 0;
    }
    let sign = if area > 0.0 { 1 } else { -1 };
    if area < 0.0 {
        std::mem::swap(&mut a2, &mut b2);
        std::mem::swap(&mut ax, &mut bx);
    }
    let edges = [(b2, c2), (c2, a2), (a2, b2)];
    let mut weights = [0.0; 3];
    for (w, (u, v)) in weights.iter_mut().zip(edges) {
        let e = cross2(v - u, q - u);
        if e < 0.0 || (e == 0.0 && !top_left(u, v)) {
            return 0;
        }
        *w = e;
    }
    let total: f64 = weights.iter().sum();
    let hit = (weights[0] * ax + weights[1] * bx + weights[2] * cx) / total;
    if hit > x {
        sign
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meshless::mesh::bunny;
    use crate::meshless::sampling::Shape;

    /// Points on a lattice through the mesh's box and beyond it, off the lattice of the mesh's own
    /// vertices.
    fn probes(mesh: &TriangleMesh, per_axis: usize) -> Vec<DVec3> {
        let (lo, hi) = mesh.bounds();
        let margin = 0.1 * (hi - lo);
        let (lo, hi) = (lo - margin, hi + margin);
        let mut out = Vec::new();
        for i in 0..per_axis {
            for j in 0..per_axis {
                for k in 0..per_axis {
                    let t = (DVec3::new(i as f64, j as f64, k as f64) + 0.37) / per_axis as f64;
                    out.push(lo + t * (hi - lo));
                }
            }
        }
        out
    }

    #[test]
    fn the_ray_count_agrees_with_the_generalized_winding_number_on_closed_meshes() {
        let sphere = Shape::Sphere {
            center: DVec3::new(0.1, 0.2, -0.3),
            radius: 0.25,
        };
        for mesh in [bunny(), sphere.surface_mesh(24).welded()] {
            assert!(mesh.is_closed());
            let indexed = IndexedMesh::new(mesh.clone());
            let mut inside = 0;
            for p in probes(&mesh, 24) {
                let w = mesh.winding_number(p);
                // Points within rounding of the surface may go either way.
                if (w - 0.5).abs() < 0.45 {
                    continue;
                }
                assert_eq!(indexed.contains(p), w > 0.5, "at {p}: w = {w}");
                inside += usize::from(w > 0.5);
            }
            assert!(inside > 100, "{inside} probes inside");
        }
    }

    #[test]
    fn a_ray_through_shared_edges_and_vertices_counts_each_crossing_once() {
        // A unit cube split into triangles: rays at y, z on its diagonals and edges' lines.
        let cube = Shape::Box {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        }
        .surface_mesh(1)
        .welded();
        let indexed = IndexedMesh::new(cube);
        for (y, z) in [(0.5, 0.5), (0.25, 0.25), (0.75, 0.25), (0.5, 0.25)] {
            assert_eq!(
                indexed.winding_number(DVec3::new(0.5, y, z)),
                1,
                "({y}, {z})"
            );
            assert_eq!(indexed.winding_number(DVec3::new(-0.5, y, z)), 0);
            assert_eq!(indexed.winding_number(DVec3::new(1.5, y, z)), 0);
        }
    }
}
