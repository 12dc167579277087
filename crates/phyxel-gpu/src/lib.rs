//! The phyxel solver on WebGPU compute. Each pass of the CPU solver (`phyxel::meshless`) has a WGSL
//! twin in `shaders/` with the same name:
//!
//! | CPU pass | WGSL entry point |
//! | --- | --- |
//! | `Body::phyxel_stresses_at` (pass 3: ∇u, strain, stress, force matrix) | `phyxel_stresses` |
//! | `Body::gather_forces` (pass 4: the force gather) | `gather_forces` |
//! | `Simulation::step` with symplectic Euler, collisions (pass 5) | `integrate` |
//!
//! The neighbourhoods and MLS weights (passes 1–2) are still built on the CPU and uploaded; plasticity,
//! melting and the drag spring run on the CPU backend only so far.
//!
//! Natively wgpu runs on Vulkan (Mesa lavapipe in CI); in the browser on WebGPU.

mod context;
mod layout;
mod readback;
mod solver;

pub use context::{GpuContext, GpuError};
pub use solver::{GpuSolver, GpuState};
