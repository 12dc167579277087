//! # phyxel
//!
//! Meshless physics for the Phyxel lessons: time integrators and the small solvers of the lesson pages,
//! and the phyxel solver ([`meshless`]) — particles whose elastic forces come from a moving-least-squares
//! estimate of the displacement gradient (Müller et al. 2004, "MKN04").
//!
//! This crate has no web dependencies: it builds and tests natively and as WebAssembly.
//!
//! Where to start reading: [`meshless`] lists the phyxel solver's passes in the order a step runs
//! them (neighbours → MLS → stresses → force gather → integration), a module each, and
//! `meshless/simulation.rs` is the step itself. Each lesson page has its physics in a file of
//! [`lessons`] named like the page (`pbd.html` → `lessons/pbd.rs`), with the page's symbols and its
//! parameter table ([`params::Param`]); [`integrators`] and [`kernels`] are the shared pieces they use.
//!
//! [`fluids`] holds the SPH fluid solvers (WCSPH, DFSPH, PBF) with particle walls and the free surface
//! by marching squares: a fluid, its solver switched at run time, stepped at the CFL step, refusing a
//! step that would blow up.

pub mod bounded_cg;
pub mod conjugate_gradient;
pub mod deflation;
pub mod fluids;
pub mod fluids3d;
pub mod integrators;
pub mod kernels;
pub mod lessons;
pub mod meshless;
pub mod parallel;
pub mod params;
pub mod picking;
