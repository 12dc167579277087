//! The small solvers behind the lesson pages. Each module reads like the equations of its page.

pub mod cracks;
pub mod deformation;
pub mod explicit_implicit;
pub mod integrating_solid;
pub mod kernels;
pub mod mls_gradient;
pub mod neighbourhood_search;
pub mod pbd;
pub mod sph_approximation;
pub mod sph_fluids;
pub mod sph_fluids_3d;
pub mod time_integration;
