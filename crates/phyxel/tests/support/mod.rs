//! Shared support for the integration tests: each test file that needs it declares `mod support;`
//! and uses only some of it, hence `dead_code` is allowed here.

#[allow(dead_code)]
pub mod hex27;
