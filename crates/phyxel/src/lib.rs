//! # phyxel
//!
//! Meshless physics for the Phyxel lessons: time integrators and the small solvers of the lesson pages,
//! and the phyxel solver ([`meshless`]) — particles whose elastic forces come from a moving-least-squares
//! estimate of the displacement gradient (Müller et al. 2004, "MKN04").
//!
//! This crate has no web dependencies: it builds and tests natively and as WebAssembly.

pub mod conjugate_gradient;
pub mod integrators;
pub mod kernels;
pub mod lessons;
pub mod meshless;
pub mod parallel;
pub mod params;
