//! One module per lesson page.

pub mod deformation;
pub mod kernels;
pub mod neighbourhood_search;
pub mod pbd;
pub mod phyxels;
pub mod time_integration;
