//! Collisions with static obstacles given by signed distance functions, with Coulomb friction.

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// A static obstacle. Each gives, for a point, the signed distance to its surface (negative inside
/// the solid part) and the outward normal there.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "collider", rename_all = "kebab-case")]
pub enum Collider {
    /// The half-space below the plane n·x = offset is solid (the ground: n = +y, offset = height).
    Plane { normal: DVec3, offset: f64 },
    /// A solid ball.
    Sphere { center: DVec3, radius: f64 },
    /// A container: everything outside the box is solid (walls, floor and ceiling).
    BoxWalls { min: DVec3, max: DVec3 },
}

impl Collider {
    /// The ground plane y = height.
    pub fn ground(height: f64) -> Self {
        Collider::Plane {
            normal: DVec3::Y,
            offset: height,
        }
    }

    /// (signed distance φ(x), outward normal ∇φ); φ < 0 means x is inside the obstacle.
    pub fn signed_distance(&self, x: DVec3) -> (f64, DVec3) {
        match *self {
            Collider::Plane { normal, offset } => (normal.dot(x) - offset, normal),
            Collider::Sphere { center, radius } => {
                let d = x - center;
                let length = d.length();
                let normal = if length > 0.0 { d / length } else { DVec3::Y };
                (length - radius, normal)
            }
            Collider::BoxWalls { min, max } => {
                // Distance to the nearest wall, measured inward: the free space is the box.
                let walls = [
                    (x.x - min.x, DVec3::X),
                    (max.x - x.x, -DVec3::X),
                    (x.y - min.y, DVec3::Y),
                    (max.y - x.y, -DVec3::Y),
                    (x.z - min.z, DVec3::Z),
                    (max.z - x.z, -DVec3::Z),
                ];
                walls
                    .into_iter()
                    .fold((f64::INFINITY, DVec3::Y), |best, w| {
                        if w.0 < best.0 {
                            w
                        } else {
                            best
                        }
                    })
            }
        }
    }
}

/// Resolve one point against one collider: if it is inside, project it onto the surface, remove the
/// velocity into the surface, and reduce the tangential velocity by Coulomb friction μ·|Δv_n|
/// (never reversing it). Returns the position correction applied.
pub fn resolve_contact(
    collider: &Collider,
    x: DVec3,
    velocity: &mut DVec3,
    friction: f64,
) -> DVec3 {
    let (phi, normal) = collider.signed_distance(x);
    if phi >= 0.0 {
        return DVec3::ZERO;
    }
    let v_n = velocity.dot(normal);
    let normal_loss = (-v_n).max(0.0);
    if v_n < 0.0 {
        *velocity -= v_n * normal;
    }
    let tangential = *velocity - velocity.dot(normal) * normal;
    let speed = tangential.length();
    if speed > 0.0 {
        let kept = (1.0 - friction * normal_loss / speed).max(0.0);
        *velocity -= (1.0 - kept) * tangential;
    }
    -phi * normal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts_project_out_stop_the_normal_velocity_and_apply_coulomb_friction() {
        let ground = Collider::ground(0.0);
        // 1 cm below, falling at 2 m/s and sliding at 1 m/s with μ = 0.25: the normal velocity is
        // removed and friction takes μ·2 = 0.5 m/s off the sliding speed.
        let mut v = DVec3::new(1.0, -2.0, 0.0);
        let correction = resolve_contact(&ground, DVec3::new(0.3, -0.01, 0.0), &mut v, 0.25);
        assert!((correction - DVec3::new(0.0, 0.01, 0.0)).length() < 1e-15);
        assert!((v - DVec3::new(0.5, 0.0, 0.0)).length() < 1e-15);
        // High friction stops sliding but never reverses it.
        let mut v = DVec3::new(1.0, -2.0, 0.0);
        resolve_contact(&ground, DVec3::new(0.3, -0.01, 0.0), &mut v, 10.0);
        assert_eq!(v, DVec3::ZERO);
        // Outside: untouched.
        let mut v = DVec3::new(1.0, -2.0, 0.0);
        assert_eq!(
            resolve_contact(&ground, DVec3::new(0.0, 0.5, 0.0), &mut v, 1.0),
            DVec3::ZERO
        );
        assert_eq!(v, DVec3::new(1.0, -2.0, 0.0));
    }

    #[test]
    fn signed_distances_of_sphere_and_box_walls() {
        let sphere = Collider::Sphere {
            center: DVec3::new(1.0, 0.0, 0.0),
            radius: 0.5,
        };
        let (phi, n) = sphere.signed_distance(DVec3::new(1.0, 0.2, 0.0));
        assert!((phi + 0.3).abs() < 1e-15 && (n - DVec3::Y).length() < 1e-15);
        let walls = Collider::BoxWalls {
            min: DVec3::ZERO,
            max: DVec3::splat(1.0),
        };
        let (phi, n) = walls.signed_distance(DVec3::new(1.1, 0.5, 0.5));
        assert!(
            (phi + 0.1).abs() < 1e-15 && n == -DVec3::X,
            "outside the +x wall: pushed back in −x"
        );
        assert!((walls.signed_distance(DVec3::splat(0.5)).0 - 0.5).abs() < 1e-15);
    }
}
