//! What a fluid simulation refuses or stops on: input it cannot hold, and a step that would blow up.
//! Every error says what happened and what to change; none is a panic.

use std::fmt;

/// Why a fluid could not be built or a step was not taken.
#[derive(Clone, Debug, PartialEq)]
pub enum FluidError {
    /// More particles than the solver holds (fluid and boundary counted apart).
    TooManyParticles {
        what: &'static str,
        count: usize,
        limit: usize,
    },
    /// A setting outside its physical range (spacing ≤ 0, a NaN, …).
    BadInput(String),
    /// The step was not taken: it would have violated the CFL condition or the density error
    /// exploded. The state is the one before the step.
    BlowUp(String),
    /// A particle left the domain the neighbour grid covers (only after a blow-up or a leak).
    LeftDomain { particle: usize, x: f64, y: f64 },
}

impl fmt::Display for FluidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FluidError::TooManyParticles { what, count, limit } => write!(
                f,
                "{count} {what} particles is more than the limit of {limit} this solver holds"
            ),
            FluidError::BadInput(message) => write!(f, "{message}"),
            FluidError::BlowUp(message) => write!(f, "step refused: {message}"),
            FluidError::LeftDomain { particle, x, y } => write!(
                f,
                "particle {particle} left the domain at ({x:.4}, {y:.4}) m: the fluid leaked or blew up"
            ),
        }
    }
}

impl std::error::Error for FluidError {}
