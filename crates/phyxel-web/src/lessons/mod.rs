//! One module per lesson page.

pub mod cracks;
pub mod deformation;
pub mod explicit_implicit;
pub mod integrating_solid;
pub mod integrating_solid_cylinder;
pub mod kernels;
pub mod mls_gradient;
pub mod neighbourhood_search;
pub mod pbd;
pub mod sph_approximation;
pub mod sph_fluids;
pub mod time_integration;
