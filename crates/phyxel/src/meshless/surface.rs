//! Surface animation: a triangle mesh embedded in the phyxels and moved by their displacement field
//! (tutorial §7.2, "Alternative 2", after MKN04 §6; tutorial eq. 68):
//!
//!   ũ(x) = Σ_j ω̃_j(x) (u_j + ∇u_j (x − x̄_j)),   ω̃_j = ω_j / Σ_k ω_k,   ω_j = W_poly6(|x − x̄_j|, h_j),
//!
//! a partition of unity over the first-order Taylor expansions of the phyxels' displacements. Because
//! MLS reproduces linear fields exactly, a linear displacement field moves every vertex exactly.
//! The weights depend only on the rest positions: they are computed once per reference shape
//! ([`EmbeddedSurface::bind`]) and the vertices follow the body with a weighted sum per frame.

use super::body::Body;
use super::kernel::poly6;
use super::mesh::TriangleMesh;
use super::neighbours::HashGrid;
use glam::{DMat3, DVec3};

/// A surface mesh bound to a body's phyxels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmbeddedSurface {
    pub triangles: Vec<[u32; 3]>,
    /// Vertex positions x in the body's reference configuration.
    rest: Vec<DVec3>,
    /// Vertex v's phyxels are `phyxel[start[v]..start[v + 1]]` with weights ω̃ in `weight`.
    start: Vec<u32>,
    phyxel: Vec<u32>,
    weight: Vec<f64>,
    /// Every phyxel some vertex follows, once each (sorted).
    followed: Vec<u32>,
    /// For each vertex, the first vertex at the same rest position (to 10⁻⁹ of the mesh's size): the
    /// welded mesh's corners (a box's faces are separate grids that meet at its edges).
    welded: Vec<u32>,
}

impl EmbeddedSurface {
    /// Bind `mesh` (in the body's reference configuration) to the phyxels whose support contains each
    /// vertex. A vertex outside every support follows its nearest phyxel.
    pub fn bind(mesh: &TriangleMesh, body: &Body) -> Self {
        let mut surface = Self {
            triangles: mesh.triangles.clone(),
            ..Self::default()
        };
        surface.rebind(mesh.vertices.clone(), body);
        surface
    }

    /// The surface in the body's reference configuration (where it was bound last).
    pub fn rest_mesh(&self) -> TriangleMesh {
        TriangleMesh {
            vertices: self.rest.clone(),
            triangles: self.triangles.clone(),
        }
    }

    /// Bind the vertices anew at rest positions `rest` — after the body's reference shape changed.
    pub fn rebind(&mut self, rest: Vec<DVec3>, body: &Body) {
        self.start = vec![0];
        self.phyxel.clear();
        self.weight.clear();
        let largest_h = body.support_radius.iter().cloned().fold(0.0, f64::max);
        let grid = (largest_h > 0.0).then(|| HashGrid::build(&body.reference, largest_h));
        for x in &rest {
            let first = self.phyxel.len();
            if let Some(grid) = &grid {
                for j in grid.candidates(*x) {
                    let w = poly6(
                        x.distance(body.reference[j as usize]),
                        body.support_radius[j as usize],
                    );
                    if w > 0.0 {
                        self.phyxel.push(j);
                        self.weight.push(w);
                    }
                }
            }
            if self.phyxel.len() == first {
                if let Some(nearest) = nearest(&body.reference, *x) {
                    self.phyxel.push(nearest);
                    self.weight.push(1.0);
                }
            }
            let total: f64 = self.weight[first..].iter().sum();
            self.weight[first..].iter_mut().for_each(|w| *w /= total);
            self.start.push(self.phyxel.len() as u32);
        }
        self.followed = self.phyxel.clone();
        self.followed.sort_unstable();
        self.followed.dedup();
        self.welded = weld(&rest);
        self.rest = rest;
    }

    /// Every phyxel some vertex follows, once each.
    pub fn followed_phyxels(&self) -> &[u32] {
        &self.followed
    }

    /// For each vertex, the first vertex at the same rest position: the corners of the welded mesh.
    pub fn welded_vertices(&self) -> &[u32] {
        &self.welded
    }

    pub fn vertex_count(&self) -> usize {
        self.rest.len()
    }

    /// The vertices in the body's reference configuration (moved by each reference update).
    pub fn rest_vertices(&self) -> &[DVec3] {
        &self.rest
    }

    /// The binding: vertex v follows phyxels `phyxel[start[v]..start[v + 1]]` with the normalized
    /// weights ω̃ at the same places of `weight` (for the GPU's copy of [`Self::deformed_vertices`]).
    pub fn binding(&self) -> (&[u32], &[u32], &[f64]) {
        (&self.start, &self.phyxel, &self.weight)
    }

    /// Deformed vertex positions x + ũ(x) (tutorial eq. 68), given each phyxel's displacement gradient
    /// ∇u_j ([`Body::displacement_gradients`]).
    pub fn deformed_vertices(&self, body: &Body, displacement_gradients: &[DMat3]) -> Vec<DVec3> {
        self.rest
            .iter()
            .enumerate()
            .map(|(v, x)| {
                let range = self.start[v] as usize..self.start[v + 1] as usize;
                let displacement: DVec3 = self.phyxel[range.clone()]
                    .iter()
                    .zip(&self.weight[range])
                    .map(|(&j, &w)| {
                        let j = j as usize;
                        w * (body.displacement[j]
                            + displacement_gradients[j] * (*x - body.reference[j]))
                    })
                    .sum();
                *x + displacement
            })
            .collect()
    }

    /// The deformed vertex v as a linear combination of the phyxels' displacements: the coefficients
    /// a_vk of x_v = x̄_v + Σ_k a_vk u_k, each phyxel once (sorted by index). Eq. 68 with the MLS
    /// gradient ∇u_j = Σ_k (u_k − u_j) d_jkᵀ (MKN04 eq. 8) inserted:
    ///
    ///   a_vk = ω̃_vk + Σ_j ω̃_vj (d_jk · (x̄_v − x̄_j)) [k ∈ N(j)] − [k = j] ω̃_vj Σ_l d_jl · (x̄_v − x̄_j).
    ///
    /// Σ_k a_vk = 1 (a translation moves the vertex with it) and, MLS reproducing linear fields,
    /// Σ_k a_vk x̄_k = x̄_v, so Σ_k a_vk x_k = x_v in every configuration: a force f at the vertex
    /// carried to the phyxels as a_vk f (the transpose of this map, seed 003 eq. 17 with the
    /// embedding's own weights) has the force's total and its moment about any point.
    pub fn vertex_coefficients(&self, v: usize, body: &Body) -> Vec<(usize, f64)> {
        let mut terms: Vec<(usize, f64)> = Vec::new();
        self.each_vertex_coefficient(v, body, |k, a| terms.push((k, a)));
        terms.sort_unstable_by_key(|t| t.0);
        let mut merged: Vec<(usize, f64)> = Vec::with_capacity(terms.len());
        for (k, a) in terms {
            match merged.last_mut() {
                Some(last) if last.0 == k => last.1 += a,
                _ => merged.push((k, a)),
            }
        }
        merged
    }

    /// The terms of [`Self::vertex_coefficients`] as they come, a phyxel possibly several times.
    pub fn each_vertex_coefficient(&self, v: usize, body: &Body, mut term: impl FnMut(usize, f64)) {
        let hoods = &body.neighbours;
        let range = self.start[v] as usize..self.start[v + 1] as usize;
        for (&j, &w) in self.phyxel[range.clone()].iter().zip(&self.weight[range]) {
            let j = j as usize;
            let offset = self.rest[v] - body.reference[j];
            let mut own = w;
            for e in hoods.edges(j) {
                let s = w * body.mls.d()[e].dot(offset);
                term(hoods.neighbour[e] as usize, s);
                own -= s;
            }
            term(j, own);
        }
    }

    /// A per-phyxel quantity carried to the vertices with the same weights: Σ_j ω̃_j q_j.
    pub fn interpolate(&self, values: &[f64]) -> Vec<f64> {
        (0..self.vertex_count())
            .map(|v| {
                let range = self.start[v] as usize..self.start[v + 1] as usize;
                self.phyxel[range.clone()]
                    .iter()
                    .zip(&self.weight[range])
                    .map(|(&j, &w)| w * values[j as usize])
                    .sum()
            })
            .collect()
    }
}

/// For each vertex, the first vertex at the same place (to 10⁻⁹ of the mesh's size).
pub(crate) fn weld(vertices: &[DVec3]) -> Vec<u32> {
    let (lo, hi) = vertices
        .iter()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let tolerance = 1e-9 * (hi - lo).length().max(f64::MIN_POSITIVE);
    let mut first = std::collections::HashMap::new();
    vertices
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let key = (*v / tolerance).round().as_i64vec3().to_array();
            *first.entry(key).or_insert(i as u32)
        })
        .collect()
}

fn nearest(points: &[DVec3], x: DVec3) -> Option<u32> {
    points
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.distance_squared(x).total_cmp(&b.1.distance_squared(x)))
        .map(|(j, _)| j as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meshless::body::SupportRadius;
    use crate::meshless::material::Material;
    use crate::meshless::sampling::{sample, Lattice, Shape};

    #[test]
    fn a_linear_displacement_field_moves_every_vertex_exactly_and_vertices_combine_the_phyxels() {
        let shape = Shape::Sphere {
            center: DVec3::new(0.1, 0.5, -0.2),
            radius: 0.3,
        };
        let spacing = 0.07;
        let mut body = Body::new(
            sample(&shape, spacing, Lattice::BodyCentredCubic),
            Lattice::BodyCentredCubic.cell_volume(spacing),
            spacing,
            Material::JELLY,
            SupportRadius::SpacingMultiple { factor: 2.0 },
        );
        let mesh = shape.surface_mesh(12);
        let surface = EmbeddedSurface::bind(&mesh, &body);
        // u(x) = G x + c: a stretch, shear and rotation-like part and a translation.
        let g = DMat3::from_cols_array(&[0.3, -0.2, 0.1, 0.25, -0.1, 0.05, -0.15, 0.2, 0.4]);
        let c = DVec3::new(0.5, -0.3, 0.2);
        for (u, x) in body.displacement.iter_mut().zip(&body.reference) {
            *u = g * *x + c;
        }
        let gradients = body.displacement_gradients();
        let deformed = surface.deformed_vertices(&body, &gradients);
        let size = 0.6;
        for (x, y) in mesh.vertices.iter().zip(&deformed) {
            let exact = *x + g * *x + c;
            assert!(
                y.distance(exact) <= 1e-9 * size,
                "vertex {x}: {y} vs exact {exact}"
            );
        }
        // The same vertices as linear combinations of the phyxels: Σ a = 1, and Σ a x_k is the
        // deformed vertex for any displacement (here a non-linear one).
        for (u, x) in body.displacement.iter_mut().zip(&body.reference) {
            *u = DVec3::new(x.y * x.y, (3.0 * x.x).sin(), x.x * x.z) * 0.2;
        }
        let deformed = surface.deformed_vertices(&body, &body.displacement_gradients());
        let positions = body.positions();
        for (v, y) in deformed.iter().enumerate() {
            let a = surface.vertex_coefficients(v, &body);
            let total: f64 = a.iter().map(|t| t.1).sum();
            let combined: DVec3 = a.iter().map(|&(k, a)| a * positions[k]).sum();
            assert!((total - 1.0).abs() < 1e-12, "vertex {v}: Σa = {total}");
            assert!(
                combined.distance(*y) <= 1e-9 * size,
                "vertex {v}: {combined} vs {y}"
            );
        }
    }

    #[test]
    fn weights_form_a_partition_of_unity_and_a_far_vertex_follows_its_nearest_phyxel() {
        let points = vec![DVec3::ZERO, DVec3::X * 0.1, DVec3::Y * 0.1];
        let body = Body::new(
            points,
            1e-3,
            0.1,
            Material::JELLY,
            SupportRadius::SpacingMultiple { factor: 2.0 },
        );
        let mesh = TriangleMesh {
            vertices: vec![DVec3::splat(0.05), DVec3::new(5.0, 0.1, 0.0)],
            triangles: vec![],
        };
        let surface = EmbeddedSurface::bind(&mesh, &body);
        let sum: f64 = surface.weight[..surface.start[1] as usize].iter().sum();
        assert!((sum - 1.0).abs() < 1e-12);
        assert_eq!(surface.phyxel[surface.start[1] as usize..], [1]);
        assert_eq!(surface.weight[surface.start[1] as usize..], [1.0]);
        // Interpolation reproduces constants (partition of unity) and picks the far vertex's phyxel.
        let constant = surface.interpolate(&[2.5; 3]);
        assert!((constant[0] - 2.5).abs() < 1e-12);
        assert_eq!(surface.interpolate(&[0.0, 7.0, 0.0])[1], 7.0);
    }
}
