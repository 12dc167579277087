//! Closed triangle meshes as phyxel shapes: OBJ parsing, the inside test by generalized winding number
//! (Jacobson, Kavan & Sorkine-Hornung 2013), and lattice sampling of the interior.

use glam::DVec3;
use std::fmt;

/// A triangle mesh (indices into `vertices`, counter-clockwise seen from outside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriangleMesh {
    pub vertices: Vec<DVec3>,
    pub triangles: Vec<[u32; 3]>,
}

/// A malformed OBJ file, with the line at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshError {
    /// 1-based line number (0 for problems of the whole file).
    pub line: usize,
    pub message: String,
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "OBJ: {}", self.message)
        } else {
            write!(f, "OBJ line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for MeshError {}

/// The bunny-like test mesh shipped with the solver (`data/bunny.obj`, about 0.7 m tall).
pub fn bunny() -> TriangleMesh {
    parse_obj(include_str!("../../data/bunny.obj")).expect("the shipped bunny mesh is valid")
}

/// Parse the `v` and `f` records of a Wavefront OBJ file (polygons are fan-triangulated; `f` entries
/// may be `i`, `i/t`, `i//n` or `i/t/n`, with negative indices counting from the end).
pub fn parse_obj(text: &str) -> Result<TriangleMesh, MeshError> {
    let mut mesh = TriangleMesh::default();
    let mut faces: Vec<(usize, Vec<i64>)> = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        let error = |message: String| MeshError {
            line: number,
            message,
        };
        let mut fields = line.split_whitespace();
        match fields.next() {
            Some("v") => {
                let coords: Vec<f64> = fields
                    .take(3)
                    .map(|f| f.parse::<f64>().ok().filter(|x| x.is_finite()))
                    .collect::<Option<_>>()
                    .ok_or_else(|| {
                        error(format!("a vertex needs three finite numbers: “{line}”"))
                    })?;
                if coords.len() != 3 {
                    return Err(error(format!("a vertex needs three coordinates: “{line}”")));
                }
                mesh.vertices
                    .push(DVec3::new(coords[0], coords[1], coords[2]));
            }
            Some("f") => {
                let indices: Vec<i64> = fields
                    .map(|f| f.split('/').next().unwrap_or("").parse::<i64>().ok())
                    .collect::<Option<_>>()
                    .ok_or_else(|| error(format!("face indices must be integers: “{line}”")))?;
                if indices.len() < 3 {
                    return Err(error(format!(
                        "a face needs at least three vertices: “{line}”"
                    )));
                }
                faces.push((number, indices));
            }
            _ => {} // comments, normals, texture coordinates, groups, materials
        }
    }
    let n = mesh.vertices.len() as i64;
    for (number, indices) in faces {
        let resolved: Vec<u32> = indices
            .iter()
            .map(|&i| match i {
                1.. if i <= n => Some((i - 1) as u32),
                ..=-1 if -i <= n => Some((n + i) as u32),
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or_else(|| MeshError {
                line: number,
                message: format!(
                    "a face refers to a vertex that does not exist (the file has {n})"
                ),
            })?;
        for k in 1..resolved.len() - 1 {
            mesh.triangles
                .push([resolved[0], resolved[k], resolved[k + 1]]);
        }
    }
    if mesh.triangles.is_empty() {
        return Err(MeshError {
            line: 0,
            message: "the file has no faces".into(),
        });
    }
    Ok(mesh)
}

impl TriangleMesh {
    fn corners(&self, t: &[u32; 3]) -> [DVec3; 3] {
        t.map(|i| self.vertices[i as usize])
    }

    /// The generalized winding number w(p) = Σ Ω_t(p) / 4π over the triangles' signed solid angles
    /// (Van Oosterom & Strackee 1983): 1 inside a closed, outward-oriented mesh, 0 outside.
    pub fn winding_number(&self, p: DVec3) -> f64 {
        let total: f64 = self
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = self.corners(t).map(|v| v - p);
                let (la, lb, lc) = (a.length(), b.length(), c.length());
                let numerator = a.dot(b.cross(c));
                let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
                2.0 * numerator.atan2(denominator)
            })
            .sum();
        total / (4.0 * std::f64::consts::PI)
    }

    pub fn contains(&self, p: DVec3) -> bool {
        self.winding_number(p) > 0.5
    }

    /// Enclosed volume by the divergence theorem: Σ a·(b × c) / 6.
    pub fn volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = self.corners(t);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    pub fn bounds(&self) -> (DVec3, DVec3) {
        self.vertices
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(*v), hi.max(*v))
            })
    }

    /// The same surface with vertices at bit-identical positions merged (a primitive's flat-shaded
    /// faces repeat their corners), so that [`TriangleMesh::is_closed`] judges the shape, not its
    /// indexing.
    pub fn welded(&self) -> TriangleMesh {
        let mut index = std::collections::HashMap::new();
        let mut vertices = Vec::new();
        let map: Vec<u32> = self
            .vertices
            .iter()
            .map(|v| {
                let key = [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
                *index.entry(key).or_insert_with(|| {
                    vertices.push(*v);
                    (vertices.len() - 1) as u32
                })
            })
            .collect();
        let triangles = self
            .triangles
            .iter()
            .map(|t| t.map(|k| map[k as usize]))
            .collect();
        TriangleMesh {
            vertices,
            triangles,
        }
    }

    /// Whether every edge is shared by exactly two triangles that traverse it in opposite directions
    /// (closed, consistently oriented).
    pub fn is_closed(&self) -> bool {
        let mut edges = std::collections::HashMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
            }
        }
        edges
            .iter()
            .all(|(&(a, b), &count)| count == 1 && edges.get(&(b, a)) == Some(&1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meshless::inside::sample_mesh;
    use crate::meshless::sampling::Lattice;

    const CUBE: &str =
        "# unit cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
        f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

    #[test]
    fn a_cube_mesh_is_closed_and_its_winding_number_is_one_inside_and_zero_outside() {
        let mesh = parse_obj(CUBE).unwrap();
        assert_eq!(mesh.triangles.len(), 12);
        assert!(mesh.is_closed());
        assert!((mesh.volume() - 1.0).abs() < 1e-12);
        assert!((mesh.winding_number(DVec3::splat(0.5)) - 1.0).abs() < 1e-12);
        assert!((mesh.winding_number(DVec3::new(0.1, 0.9, 0.3)) - 1.0).abs() < 1e-12);
        assert!(mesh.winding_number(DVec3::new(1.5, 0.5, 0.5)).abs() < 1e-12);
        assert!(mesh.winding_number(DVec3::new(-3.0, 7.0, 2.0)).abs() < 1e-12);
        // Sampling the cube mesh: a lattice inset by half a spacing, 10 points per axis, all inside.
        assert_eq!(sample_mesh(&mesh, 0.1, Lattice::Cubic).len(), 10 * 10 * 10);
    }

    #[test]
    fn the_bunny_is_closed_and_sampling_recovers_its_volume() {
        let mesh = bunny();
        assert!(mesh.is_closed(), "the shipped mesh must be watertight");
        let volume = mesh.volume();
        assert!(volume > 0.0, "outward orientation gives a positive volume");
        let spacing = 0.04;
        let sampled = sample_mesh(&mesh, spacing, Lattice::Cubic).len() as f64 * spacing.powi(3);
        assert!(
            (sampled / volume - 1.0).abs() < 0.05,
            "sampled {sampled} m³ of {volume} m³"
        );
    }

    #[test]
    fn malformed_files_are_reported_with_their_line() {
        let cases = [
            ("v 0 0 0\nv 1 0\nf 1 2 3", 2, "three"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x", 4, "integers"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9", 4, "does not exist"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2", 4, "at least three"),
            ("v 0 0 0\nv nan 0 0", 2, "finite"),
            ("# empty", 0, "no faces"),
        ];
        for (text, line, words) in cases {
            let error = parse_obj(text).unwrap_err();
            assert_eq!(error.line, line, "{error}");
            assert!(error.to_string().contains(words), "{error}");
        }
        let negative = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n").unwrap();
        assert_eq!(negative.triangles, vec![[0, 1, 2]]);
    }
}
