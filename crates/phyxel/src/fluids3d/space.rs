//! The space the 3D fluid lives in (the 2D fluid's `fluids/space.rs`, one dimension up): y is up, as
//! in the 3D demo.

use crate::kernels::Dimension;
use glam::{DVec3, Vec3};

/// A position, velocity or gradient.
pub type Vector = DVec3;
/// A vector in single precision: the pair kernels' gradients as the fluid keeps them
/// (`kernel::PairKernel`).
pub type SingleVector = Vec3;
/// The dimension the kernel is normalized in.
pub const DIMENSION: Dimension = Dimension::Three;
/// Coordinates per vector.
pub const DIM: usize = 3;
/// The most fluid particles a 3D fluid holds on the CPU (the worker target is 50 000 at 30
/// steps per second on two threads).
pub const MAX_FLUID_PARTICLES: usize = 100_000;

/// The closest a fluid particle may come to a wall particle, over Δx (`Fluid::keep_off_walls`). A
/// lattice wall's surface lies Δx/2 outside its first layer, and the point of that surface farthest
/// from the layer's particles (between them) is √d/2 Δx away — √3/2 = 0.866 in space — so the constraint holds the
/// surface only above that; below 1, so particles resting on a wall, 1 Δx from its particles, are
/// left alone.
pub const WALL_DISTANCE: f64 = 0.9;

/// `v` rounded to single precision.
#[inline(always)]
pub fn to_single(v: Vector) -> SingleVector {
    v.as_vec3()
}

/// `v` in double precision (exact).
#[inline(always)]
pub fn from_single(v: SingleVector) -> Vector {
    v.as_dvec3()
}

/// The coordinates of `v`, x first.
#[inline(always)]
pub fn coordinates(v: Vector) -> [f64; DIM] {
    v.to_array()
}

/// The points of the cubic lattice of spacing `dx` with integer coordinates in [−reach, reach]³.
pub fn lattice_points(reach: i64, dx: f64) -> Vec<Vector> {
    let mut points = Vec::new();
    for a in -reach..=reach {
        for b in -reach..=reach {
            for c in -reach..=reach {
                points.push(Vector::new(a as f64, b as f64, c as f64) * dx);
            }
        }
    }
    points
}
