//! A body among the boundary particles that moves inside DFSPH's pressure solves (strong coupling, in
//! the spirit of Gissler, Peer, Band, Bender & Teschner 2019, "Interlinked SPH pressure solvers for
//! strong fluid-rigid coupling", ACM TOG 38: the body's velocity answers the pressure within the solve,
//! not a step later).
//!
//! The body's motion within one step is taken as a sum of rigid modes: q_m u_m(x_k) over the modes m
//! (in 2D the two translations and the rotation about the centre of mass), each u_m a velocity field
//! over the body's particles, orthogonal in the mass matrix, with modal mass M_m = Σ_k m_k |u_m(x_k)|².
//! The fluid's pressure on the body — particle k takes J_k = Δt m Σ_i y_i ρ₀ V_k ∇W_ik from the fluid
//! particles i (y_i = κ_i/ρ_i; Akinci et al. 2012 eq. 10) — changes each mode by
//!
//!   Δq_m = Σ_k J_k·u_m(x_k) / M_m = Δt m Σ_i y_i c_im / M_m,   c_im = Σ_k ρ₀ V_k ∇W_ik·u_m(x_k),
//!
//! and the body's velocity Σ_m Δq_m u_m changes each fluid particle's density rate by −Σ_m Δq_m c_im.
//! So the predicted compression c(y) = c⁰ − A y of DFSPH's solves (`super::dfsph`, module notes) gets
//! the term −B y with
//!
//!   B = Δt² m Σ_m c_m c_mᵀ / M_m,
//!
//! symmetric and positive semidefinite, a rank-one term per mode: A + B is the pressure system of the
//! fluid and the body together, and the bounded CG solves it as it solves A. The body's elastic
//! deformation is left to its own step (`super::coupling`); the modes carry its motion as a whole,
//! which is what a light body's added mass acts on.

use super::kernel::Vector;

/// The rigid modes of a body whose particles are the fluid's boundary particles first..first + len.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigidModes {
    /// The body's first boundary particle (the walls come before it).
    pub first: usize,
    /// u_m(x_k) of each mode m at each body particle k.
    pub velocity: Vec<Vec<Vector>>,
    /// M_m = Σ_k m_k |u_m(x_k)|².
    pub mass: Vec<f64>,
}

impl RigidModes {
    /// The modes with velocity fields `fields` (one value per body particle each, orthogonal in the
    /// mass matrix) over particles of masses `masses`; modes without mass are dropped.
    pub fn new(first: usize, masses: &[f64], fields: Vec<Vec<Vector>>) -> Self {
        let mut modes = Self {
            first,
            ..Self::default()
        };
        for field in fields {
            assert_eq!(field.len(), masses.len(), "one velocity per body particle");
            let mass: f64 = field
                .iter()
                .zip(masses)
                .map(|(u, m)| m * u.length_squared())
                .sum();
            if mass > 0.0 {
                modes.velocity.push(field);
                modes.mass.push(mass);
            }
        }
        modes
    }

    /// The number of modes.
    pub fn len(&self) -> usize {
        self.mass.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.mass.is_empty()
    }

    /// The number of the body's particles (0 without modes).
    pub fn particle_count(&self) -> usize {
        self.velocity.first().map_or(0, Vec::len)
    }

    /// The body particle that boundary particle `b` is, if it is one.
    #[inline(always)]
    pub fn particle(&self, b: usize) -> Option<usize> {
        let k = b.checked_sub(self.first)?;
        (k < self.particle_count()).then_some(k)
    }

    /// Σ_m Δq_m u_m(x_k): body particle k's velocity change for the modes' changes `dq`.
    pub fn velocity_change(&self, k: usize, dq: &[f64]) -> Vector {
        self.velocity.iter().zip(dq).map(|(u, q)| *q * u[k]).sum()
    }

    /// The modes' changes Δq_m = Σ_k J_k·u_m(x_k) / M_m for the impulses J_k = `impulse[k]` (one per
    /// body particle): the generalised impulse over the modal mass.
    pub fn modal_changes(&self, impulse: &[Vector]) -> Vec<f64> {
        self.velocity
            .iter()
            .zip(&self.mass)
            .map(|(u, mass)| u.iter().zip(impulse).map(|(u, j)| u.dot(*j)).sum::<f64>() / mass)
            .collect()
    }

    /// The impulses `impulse` (one per body particle) as the modes carry them: Δq_m = Σ_k J_k·u_m(x_k)
    /// / M_m, and particle k takes m_k Σ_m Δq_m u_m(x_k). The same total momentum (and, with the
    /// rotation among the modes, angular momentum about the centre of mass) as `impulse`, spread as a
    /// rigid body's motion: the body answers as the solve took it to.
    pub fn spread(&self, impulse: &[Vector], masses: &[f64]) -> Vec<Vector> {
        let dq = self.modal_changes(impulse);
        masses
            .iter()
            .enumerate()
            .map(|(k, m)| *m * self.velocity_change(k, &dq))
            .collect()
    }
}
