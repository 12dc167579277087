//! SPH fluids in 2D (issue 19): the weakly compressible solver of seed 002 §6.1–6.4 (WCSPH), a
//! pressure solver that keeps the density at rest (DFSPH, Bender & Koschier 2015) and position-based
//! fluids (PBF, Macklin & Müller 2013), all against walls sampled by particles with Akinci et al.'s
//! (2012) volumes, so any collider shape works; the free surface by marching squares (seed 002 §6.5).
//!
//! The files, in the order a reader takes them (each uses only those before it):
//!
//! - `error.rs` — what is refused and why ([`FluidError`]);
//! - `space.rs` — the vector type, the dimension and what names coordinates (the only file the 3D
//!   fluid, `crate::fluids3d`, replaces; it compiles the others again over 3D vectors);
//! - `kernel.rs` — the cubic-spline kernel;
//! - `grid.rs` — the cell grid and the neighbour lists in compressed rows;
//! - `boundary.rs` — wall particles and their volumes V_b;
//! - `fluid.rs` — the particles and the passes every solver shares (density, gravity and stirring,
//!   XSPH, the blow-up check);
//! - `rigid_modes.rs` — a body's rigid motion inside DFSPH's pressure solves (strong coupling);
//! - `wcsph.rs`, `dfsph.rs`, `pbf.rs` — the three solvers' steps;
//! - `simulation.rs` — a fluid with its solver, switched at run time, stepped at the CFL step;
//! - `coupling.rs` — a deformable phyxel body in the fluid, two-way (Akinci et al. 2012 §3.3–3.4);
//! - `surface.rs` — marching squares;
//! - `scene.rs` — the column and the dam break in a box of wall particles;
//! - `experiment.rs` — Martin & Moyce's measured dam-break front;
//! - `tests.rs` — the claims, against theory and Martin & Moyce's experiment.

pub mod boundary;
pub mod coupling;
#[cfg(test)]
mod coupling_tests;
pub mod dfsph;
pub mod error;
pub mod experiment;
pub mod fluid;
pub mod grid;
pub mod kernel;
pub mod pbf;
pub mod rigid_modes;
pub mod scene;
pub mod simulation;
pub mod space;
pub mod surface;
#[cfg(test)]
mod tests;
pub mod wcsph;

pub use coupling::{Block, FloatingBody};
pub use error::FluidError;
pub use fluid::{Fluid, FluidSettings, Limits, StepReport, Stir};
pub use scene::Column;
pub use simulation::{FluidSimulation, Solver};
