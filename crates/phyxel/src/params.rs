//! Checking parameters that come from outside (controls, URL parameters, scene files).

use std::fmt;

/// A parameter outside its physical range.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// Which parameter (the control's name).
    pub param: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.param, self.message)
    }
}

impl std::error::Error for ParamError {}

/// Check `value` lies in [min, max] and is finite.
pub fn check_range(param: &'static str, value: f64, min: f64, max: f64) -> Result<f64, ParamError> {
    if !value.is_finite() {
        return Err(ParamError {
            param,
            message: "must be a finite number".into(),
        });
    }
    if value < min || value > max {
        return Err(ParamError {
            param,
            message: format!("must lie between {min} and {max}"),
        });
    }
    Ok(value)
}
