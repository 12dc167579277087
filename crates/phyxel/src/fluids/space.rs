//! The plane the 2D fluid lives in: its vector type, the dimension its kernel is normalized in, and
//! the few operations that name coordinates (cell indices, the rest lattice). Everything else in
//! `fluids/` is written in vectors and kernel calls only, so `crate::fluids3d` compiles the same
//! solver files over its own `space.rs` (3D vectors, 3 × 3 × 3 cells).

use crate::kernels::Dimension;
use glam::{DVec2, Vec2};

/// A position, velocity or gradient.
pub type Vector = DVec2;
/// A vector in single precision: the pair kernels' gradients as the fluid keeps them
/// (`kernel::PairKernel`).
pub type SingleVector = Vec2;
/// The dimension the kernel is normalized in.
pub const DIMENSION: Dimension = Dimension::Two;
/// Coordinates per vector.
pub const DIM: usize = 2;
/// The most fluid particles a 2D fluid holds (the lesson's budget: 10 000 at 60 steps per second on
/// one browser thread, with room to spare).
pub const MAX_FLUID_PARTICLES: usize = 50_000;

/// The closest a fluid particle may come to a wall particle, over Δx (`Fluid::keep_off_walls`). A
/// lattice wall's surface lies Δx/2 outside its first layer, and the point of that surface farthest
/// from the layer's particles (between them) is √d/2 Δx away — √2/2 = 0.707 in the plane — so the constraint holds the
/// surface only above that; below 1, so particles resting on a wall, 1 Δx from its particles, are
/// left alone.
pub const WALL_DISTANCE: f64 = 0.75;

/// `v` rounded to single precision.
#[inline(always)]
pub fn to_single(v: Vector) -> SingleVector {
    v.as_vec2()
}

/// `v` in double precision (exact).
#[inline(always)]
pub fn from_single(v: SingleVector) -> Vector {
    v.as_dvec2()
}

/// The coordinates of `v`, x first.
#[inline(always)]
pub fn coordinates(v: Vector) -> [f64; DIM] {
    v.to_array()
}

/// The points of the square lattice of spacing `dx` with integer coordinates in [−reach, reach]².
pub fn lattice_points(reach: i64, dx: f64) -> Vec<Vector> {
    let mut points = Vec::new();
    for a in -reach..=reach {
        for b in -reach..=reach {
            points.push(Vector::new(a as f64, b as f64) * dx);
        }
    }
    points
}
