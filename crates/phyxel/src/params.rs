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

/// One parameter a lesson page sets: its public name (the URL and message name of the page's
/// control), its range, whether it is a whole number, and its default. Each lesson keeps a table of
/// them (`PARAMETERS`): its setters check values against it, and its page builds its controls from it,
/// so the page cannot accept a value the solver refuses.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Param {
    pub name: &'static str,
    pub min: f64,
    pub max: f64,
    pub integer: bool,
    pub default: f64,
}

impl Param {
    /// A real number in [min, max].
    pub const fn real(name: &'static str, min: f64, max: f64, default: f64) -> Self {
        Self {
            name,
            min,
            max,
            integer: false,
            default,
        }
    }

    /// A whole number in [min, max].
    pub const fn integer(name: &'static str, min: f64, max: f64, default: f64) -> Self {
        Self {
            name,
            min,
            max,
            integer: true,
            default,
        }
    }

    /// `value` if it lies in the range (and is whole, for a whole-number parameter).
    pub fn check(&self, value: f64) -> Result<f64, ParamError> {
        check_range(self.name, value, self.min, self.max)?;
        if self.integer && value.fract() != 0.0 {
            return Err(ParamError {
                param: self.name,
                message: "must be a whole number".into(),
            });
        }
        Ok(value)
    }

    /// (min, max).
    pub const fn range(&self) -> (f64, f64) {
        (self.min, self.max)
    }
}

/// Tests for a lesson's table: its defaults lie in range, its names are distinct, and `check`
/// takes the ends and refuses just beyond them.
pub fn check_table(table: &[Param]) -> Result<(), String> {
    for (i, p) in table.iter().enumerate() {
        if table[..i].iter().any(|q| q.name == p.name) {
            return Err(format!("{} appears twice", p.name));
        }
        p.check(p.default)
            .map_err(|e| format!("default out of range: {e}"))?;
        for end in [p.min, p.max] {
            p.check(end).map_err(|e| format!("end refused: {e}"))?;
        }
        let step = if p.integer {
            1.0
        } else {
            1e-9 * (p.max - p.min).max(1e-300)
        };
        for beyond in [p.min - step, p.max + step] {
            if p.check(beyond).is_ok() {
                return Err(format!(
                    "{} = {beyond} accepted outside [{}, {}]",
                    p.name, p.min, p.max
                ));
            }
        }
    }
    Ok(())
}
