//! One module per lesson page.

pub mod time_integration;
