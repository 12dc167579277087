//! Surface meshes of the sampling shapes (box, sphere, torus, cylinder), for drawing them deformed by the phyxels'
//! displacement field ([`super::surface`]).

use super::mesh::TriangleMesh;
use super::sampling::Shape;
use glam::DVec3;
use std::f64::consts::{PI, TAU};

impl Shape {
    /// The shape's boundary as a triangle mesh with about `segments` quads along each curve or edge,
    /// oriented outward (positive enclosed volume).
    ///
    /// A box gets its own vertices on each face (sharp edges keep face normals); the sphere and the
    /// torus share vertices across their seams (smooth normals).
    pub fn surface_mesh(&self, segments: usize) -> TriangleMesh {
        let n = segments.max(2);
        let mut mesh = match *self {
            Shape::Box { min, max } => box_mesh(min, max, n),
            Shape::Sphere { center, radius } => weld(grid_mesh(n, 2 * n, false, true, |s, t| {
                let (theta, phi) = (PI * s, TAU * t);
                center
                    + radius
                        * DVec3::new(
                            theta.sin() * phi.cos(),
                            theta.cos(),
                            theta.sin() * phi.sin(),
                        )
            })),
            Shape::Torus { center, ring, tube } => grid_mesh(n, 2 * n, true, true, |s, t| {
                let (around_tube, around_axis) = (TAU * s, TAU * t);
                let r = ring + tube * around_tube.cos();
                center
                    + DVec3::new(
                        r * around_axis.cos(),
                        tube * around_tube.sin(),
                        r * around_axis.sin(),
                    )
            }),
            // One profile revolved about the x axis: the left cap (radius 0 → r), the side, the
            // right cap (r → 0), a quarter, a half and a quarter of the rows; the caps' centres welded.
            Shape::Cylinder {
                center,
                radius,
                length,
            } => {
                let rows = 4 * n.div_ceil(2);
                weld(grid_mesh(rows, 2 * n, false, true, |s, t| {
                    let (x, r) = if s <= 0.25 {
                        (-0.5 * length, 4.0 * s * radius)
                    } else if s <= 0.75 {
                        ((2.0 * s - 1.0) * length, radius)
                    } else {
                        (0.5 * length, 4.0 * (1.0 - s) * radius)
                    };
                    let phi = TAU * t;
                    center + DVec3::new(x, r * phi.cos(), r * phi.sin())
                }))
            }
        };
        if mesh.volume() < 0.0 {
            for t in &mut mesh.triangles {
                t.swap(1, 2);
            }
        }
        mesh
    }
}

/// A (rows × columns) grid of quads over the parameter square [0, 1]², mapped by `point`; a wrapped
/// direction reuses its first row or column instead of repeating it.
fn grid_mesh(
    rows: usize,
    columns: usize,
    wrap_rows: bool,
    wrap_columns: bool,
    point: impl Fn(f64, f64) -> DVec3,
) -> TriangleMesh {
    let row_count = if wrap_rows { rows } else { rows + 1 };
    let column_count = if wrap_columns { columns } else { columns + 1 };
    let mut mesh = TriangleMesh::default();
    for i in 0..row_count {
        for j in 0..column_count {
            mesh.vertices
                .push(point(i as f64 / rows as f64, j as f64 / columns as f64));
        }
    }
    let index = |i: usize, j: usize| ((i % row_count) * column_count + j % column_count) as u32;
    for i in 0..rows {
        for j in 0..columns {
            let (a, b, c, d) = (
                index(i, j),
                index(i + 1, j),
                index(i + 1, j + 1),
                index(i, j + 1),
            );
            mesh.triangles.push([a, b, c]);
            mesh.triangles.push([a, c, d]);
        }
    }
    mesh
}

/// Merge vertices that coincide (to 1e-9 of the mesh size) and drop the triangles that collapse: the
/// sphere's poles, where a whole grid row meets in one point.
fn weld(mesh: TriangleMesh) -> TriangleMesh {
    let (lo, hi) = mesh.bounds();
    let tolerance = 1e-9 * (hi - lo).length().max(f64::MIN_POSITIVE);
    let mut index_of = std::collections::HashMap::new();
    let mut welded = TriangleMesh::default();
    let remap: Vec<u32> = mesh
        .vertices
        .iter()
        .map(|v| {
            let key = (*v / tolerance).round().as_i64vec3().to_array();
            *index_of.entry(key).or_insert_with(|| {
                welded.vertices.push(*v);
                welded.vertices.len() as u32 - 1
            })
        })
        .collect();
    welded.triangles = mesh
        .triangles
        .iter()
        .map(|t| t.map(|k| remap[k as usize]))
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[2] != t[0])
        .collect();
    welded
}

/// The six faces of an axis-aligned box, each an n × n grid, outward.
fn box_mesh(min: DVec3, max: DVec3, n: usize) -> TriangleMesh {
    let mut mesh = TriangleMesh::default();
    let size = max - min;
    // For each face: the fixed axis, which side, and the two in-plane axes ordered so that
    // first × second points outward on the max side.
    for (axis, u, v) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
        for max_side in [false, true] {
            let face = grid_mesh(n, n, false, false, |s, t| {
                let mut p = min;
                p[axis] = if max_side { max[axis] } else { min[axis] };
                p[u] += s * size[u];
                p[v] += t * size[v];
                p
            });
            let offset = mesh.vertices.len() as u32;
            mesh.vertices.extend(face.vertices);
            mesh.triangles.extend(face.triangles.into_iter().map(|t| {
                let t = t.map(|k| k + offset);
                if max_side {
                    [t[0], t[2], t[1]]
                } else {
                    t
                }
            }));
        }
    }
    mesh
}

/// Area-weighted vertex normals (unit length; zero for a vertex of degenerate triangles only).
pub fn vertex_normals(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Vec<DVec3> {
    let mut normals = vec![DVec3::ZERO; vertices.len()];
    for t in triangles {
        let [a, b, c] = t.map(|k| vertices[k as usize]);
        // |(b − a) × (c − a)| is twice the area: the sum weights each face by its area.
        let face = (b - a).cross(c - a);
        for k in t {
            normals[*k as usize] += face;
        }
    }
    normals
        .into_iter()
        .map(|n| n.try_normalize().unwrap_or(DVec3::ZERO))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitive_meshes_enclose_their_shapes_volume_facing_outward() {
        let shapes = [
            Shape::Box {
                min: DVec3::new(-0.1, 0.2, 0.3),
                max: DVec3::new(0.4, 0.5, 0.9),
            },
            Shape::Sphere {
                center: DVec3::new(0.1, 0.2, 0.3),
                radius: 0.5,
            },
            Shape::Torus {
                center: DVec3::new(0.0, 1.0, 0.0),
                ring: 0.6,
                tube: 0.25,
            },
            Shape::Cylinder {
                center: DVec3::new(0.2, -0.1, 0.3),
                radius: 0.3,
                length: 1.2,
            },
        ];
        for shape in shapes {
            let mesh = shape.surface_mesh(32);
            // A polygonal approximation of a curved surface loses O(1/n²) of the volume.
            let error = (mesh.volume() / shape.volume() - 1.0).abs();
            assert!(error < 0.01, "{shape:?}: volume error {error}");
            let (lo, hi) = shape.bounds();
            let inside = 0.5 * (lo + hi)
                + match shape {
                    Shape::Torus { ring, .. } => DVec3::new(ring, 0.0, 0.0),
                    _ => DVec3::ZERO,
                };
            assert!((mesh.winding_number(inside) - 1.0).abs() < 1e-6);
            assert!(mesh.winding_number(hi + DVec3::ONE).abs() < 1e-6);
            // The vertex normals point away from the inside point (outward).
            let normals = vertex_normals(&mesh.vertices, &mesh.triangles);
            let outward = mesh
                .vertices
                .iter()
                .zip(&normals)
                .filter(|(v, n)| n.dot(**v - inside) > 0.0)
                .count();
            // (On a torus the inner ring's normals face the hole, towards its axis, not away from a
            // point in the tube: count only that every normal is set.)
            if !matches!(shape, Shape::Torus { .. }) {
                assert_eq!(outward, mesh.vertices.len(), "{shape:?}");
            }
            assert!(normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-9));
        }
        assert!(Shape::Sphere {
            center: DVec3::ZERO,
            radius: 1.0
        }
        .surface_mesh(8)
        .is_closed());
        assert!(Shape::Torus {
            center: DVec3::ZERO,
            ring: 1.0,
            tube: 0.3
        }
        .surface_mesh(8)
        .is_closed());
        assert!(Shape::Cylinder {
            center: DVec3::ZERO,
            radius: 0.3,
            length: 1.0
        }
        .surface_mesh(8)
        .is_closed());
    }
}
