//! One module per lesson page.

pub mod phyxels;
pub mod time_integration;
