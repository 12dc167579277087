//! One module per lesson page.

pub mod kernels;
pub mod phyxels;
pub mod time_integration;
