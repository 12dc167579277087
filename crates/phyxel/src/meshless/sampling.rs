//! Filling shapes with phyxels on a lattice (MKN04 §5; thesis §3.3).

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// The lattice the phyxels sit on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lattice {
    /// Points at the corners of cubes of edge `spacing`: one phyxel per spacing³.
    Cubic,
    /// Cubic plus the cube centres (body-centred cubic): two phyxels per spacing³.
    BodyCentredCubic,
}

impl Lattice {
    /// Volume each lattice point stands for.
    pub fn cell_volume(self, spacing: f64) -> f64 {
        match self {
            Lattice::Cubic => spacing.powi(3),
            Lattice::BodyCentredCubic => 0.5 * spacing.powi(3),
        }
    }
}

/// A solid shape to fill.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "kebab-case")]
pub enum Shape {
    /// Axis-aligned box between two corners.
    Box {
        min: DVec3,
        max: DVec3,
    },
    Sphere {
        center: DVec3,
        radius: f64,
    },
    /// Torus around the y axis through `center`: tube of radius `tube` at distance `ring` from the axis.
    Torus {
        center: DVec3,
        ring: f64,
        tube: f64,
    },
    /// Circular cylinder with its axis along x through `center`: radius `radius`, length `length`
    /// (from x = center.x − length/2 to center.x + length/2). Seed 003 §4.2's two-material scene.
    Cylinder {
        center: DVec3,
        radius: f64,
        length: f64,
    },
}

impl Shape {
    /// Whether `p` lies inside (boundary included).
    pub fn contains(&self, p: DVec3) -> bool {
        const EPS: f64 = 1e-9;
        match *self {
            Shape::Box { min, max } => p.cmpge(min - EPS).all() && p.cmple(max + EPS).all(),
            Shape::Sphere { center, radius } => (p - center).length() <= radius + EPS,
            Shape::Torus { center, ring, tube } => {
                let q = p - center;
                let radial = (q.x * q.x + q.z * q.z).sqrt() - ring;
                (radial * radial + q.y * q.y).sqrt() <= tube + EPS
            }
            Shape::Cylinder {
                center,
                radius,
                length,
            } => {
                let q = p - center;
                q.x.abs() <= 0.5 * length + EPS && (q.y * q.y + q.z * q.z).sqrt() <= radius + EPS
            }
        }
    }

    /// Bounding box (min, max).
    pub fn bounds(&self) -> (DVec3, DVec3) {
        match *self {
            Shape::Box { min, max } => (min, max),
            Shape::Sphere { center, radius } => (center - radius, center + radius),
            Shape::Torus { center, ring, tube } => {
                let r = DVec3::new(ring + tube, tube, ring + tube);
                (center - r, center + r)
            }
            Shape::Cylinder {
                center,
                radius,
                length,
            } => {
                let r = DVec3::new(0.5 * length, radius, radius);
                (center - r, center + r)
            }
        }
    }

    /// Exact volume, for checking the sampling.
    pub fn volume(&self) -> f64 {
        use std::f64::consts::PI;
        match *self {
            Shape::Box { min, max } => (max - min).element_product(),
            Shape::Sphere { radius, .. } => 4.0 / 3.0 * PI * radius.powi(3),
            Shape::Torus { ring, tube, .. } => 2.0 * PI * PI * ring * tube * tube,
            // π r² L.
            Shape::Cylinder { radius, length, .. } => PI * radius * radius * length,
        }
    }
}

/// Lattice points inside `shape`, starting from the bounding box's minimum corner.
pub fn sample(shape: &Shape, spacing: f64, lattice: Lattice) -> Vec<DVec3> {
    assert!(
        spacing > 0.0 && spacing.is_finite(),
        "lattice spacing must be positive"
    );
    let (min, max) = shape.bounds();
    let counts = ((max - min) / spacing + 1e-9).floor().as_ivec3() + 1;
    let mut points = Vec::new();
    let mut push_layer = |offset: DVec3, counts: glam::IVec3| {
        for k in 0..counts.z {
            for j in 0..counts.y {
                for i in 0..counts.x {
                    let p = min + offset + spacing * DVec3::new(i as f64, j as f64, k as f64);
                    if shape.contains(p) {
                        points.push(p);
                    }
                }
            }
        }
    };
    push_layer(DVec3::ZERO, counts);
    if lattice == Lattice::BodyCentredCubic {
        push_layer(DVec3::splat(0.5 * spacing), counts - 1);
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_gets_every_lattice_point() {
        let shape = Shape::Box {
            min: DVec3::ZERO,
            max: DVec3::new(1.0, 0.5, 0.3),
        };
        assert_eq!(sample(&shape, 0.1, Lattice::Cubic).len(), 11 * 6 * 4);
        assert_eq!(
            sample(&shape, 0.1, Lattice::BodyCentredCubic).len(),
            11 * 6 * 4 + 10 * 5 * 3
        );
    }

    #[test]
    fn sampled_volume_converges_to_the_shape_volume() {
        // Σ cell volume over the points inside approaches the exact volume as the spacing shrinks.
        let shapes = [
            Shape::Sphere {
                center: DVec3::new(0.1, 0.2, 0.3),
                radius: 0.5,
            },
            Shape::Torus {
                center: DVec3::ZERO,
                ring: 0.6,
                tube: 0.25,
            },
            Shape::Cylinder {
                center: DVec3::new(0.1, -0.2, 0.0),
                radius: 0.3,
                length: 1.1,
            },
        ];
        for shape in shapes {
            for lattice in [Lattice::Cubic, Lattice::BodyCentredCubic] {
                let volume =
                    |s: f64| sample(&shape, s, lattice).len() as f64 * lattice.cell_volume(s);
                let coarse = (volume(0.05) / shape.volume() - 1.0).abs();
                let fine = (volume(0.02) / shape.volume() - 1.0).abs();
                assert!(fine < 0.03, "{shape:?} {lattice:?}: volume error {fine}");
                assert!(
                    fine < coarse + 0.005,
                    "{shape:?} {lattice:?}: no convergence ({coarse} → {fine})"
                );
                for p in sample(&shape, 0.05, lattice) {
                    assert!(shape.contains(p));
                }
            }
        }
    }
}
