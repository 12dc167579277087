//! SPH fluids in 3D (issue 19, item 3): the 2D fluid's solver files — the shared passes, WCSPH, DFSPH,
//! PBF, the neighbour grid and Akinci et al.'s boundary volumes — compiled a second time over this
//! module's `space.rs` (3D vectors, the cubic spline normalized in 3D, 3 × 3 × 3 cell scans), so the
//! two fluids are the same equations by construction and every fix to one is a fix to both. What is
//! 2D only stays in `crate::fluids`: marching squares and the floating body of the lesson.
//!
//! The files, in the order a reader takes them: `space.rs` (what names coordinates), then the shared
//! files of `crate::fluids` in their order there, then `scene.rs` (a column in a box of wall
//! particles: the hydrostatic column and the dam break), `pour.rs` (a glass filled from a nozzle) and `tests.rs` (the claims against theory).

// Clippy's `duplicate_mod` guards against a file loaded twice by mistake; here it is the design.
#![allow(clippy::duplicate_mod)]

pub use crate::fluids::error;
#[path = "fluids/boundary.rs"]
pub mod boundary;
#[path = "fluids/dfsph.rs"]
pub mod dfsph;
#[path = "fluids/fluid.rs"]
pub mod fluid;
#[path = "fluids/grid.rs"]
pub mod grid;
#[path = "fluids/kernel.rs"]
pub mod kernel;
#[path = "fluids/pbf.rs"]
pub mod pbf;
pub mod pour;
#[path = "fluids/rigid_modes.rs"]
pub mod rigid_modes;
pub mod scene;
#[path = "fluids/simulation.rs"]
pub mod simulation;
pub mod space;
#[cfg(test)]
mod tests;
#[path = "fluids/wcsph.rs"]
pub mod wcsph;

pub use error::FluidError;
pub use fluid::{Fluid, FluidSettings, Limits, StepReport, Stir};
pub use pour::{Glass, Nozzle, Pour};
pub use scene::Column;
pub use simulation::{FluidSimulation, Solver};
