//! Time integration of second-order systems  ẍ = a(t, x, v) = M⁻¹ f(t, x, v).
//!
//! The integrators are generic over the state vector ([`VectorSpace`]): a scalar for the 1D spring of
//! the lesson, a 2D vector for the projectile, a list of 3D vectors for the phyxel solver. Each method is
//! written the way the time-integration lesson typesets it (examples site, `time_integration.html` and
//! `spring_plot.html`; Hairer, Lubich & Wanner, *Geometric Numerical Integration*, for the symplectic ones).
//!
//! | method             | global order | force evaluations per step | symplectic |
//! |--------------------|--------------|----------------------------|------------|
//! | explicit Euler     | 1            | 1                          | no         |
//! | symplectic Euler   | 1            | 1                          | yes        |
//! | leap-frog          | 2            | 2 (1 for positions)        | yes        |
//! | position Verlet    | 2            | 2 (1 for positions)        | yes        |
//! | velocity Verlet    | 2            | 2                          | yes        |
//! | RK2 (midpoint)     | 2            | 2                          | no         |
//! | RK4                | 4            | 4                          | no         |
//! | implicit Euler     | 1            | 1 linear solve             | no         |

use glam::{DVec2, DVec3, Vec3};
use serde::{Deserialize, Serialize};

/// The state space an integrator works in: anything that supports `y ← y + α·x`.
pub trait VectorSpace: Clone {
    /// `self ← self + alpha · other` (BLAS `axpy`).
    fn add_scaled(&mut self, alpha: f64, other: &Self);
    /// Euclidean norm squared, used for errors and blow-up detection.
    fn norm_squared(&self) -> f64;
    /// True when every component is finite (no NaN, no ±∞).
    fn is_finite(&self) -> bool;

    /// `self + alpha · other`, as a new value.
    fn plus_scaled(&self, alpha: f64, other: &Self) -> Self {
        let mut sum = self.clone();
        sum.add_scaled(alpha, other);
        sum
    }
}

impl VectorSpace for f64 {
    fn add_scaled(&mut self, alpha: f64, other: &Self) {
        *self += alpha * other;
    }
    fn norm_squared(&self) -> f64 {
        self * self
    }
    fn is_finite(&self) -> bool {
        f64::is_finite(*self)
    }
}

impl VectorSpace for DVec2 {
    fn add_scaled(&mut self, alpha: f64, other: &Self) {
        *self += alpha * *other;
    }
    fn norm_squared(&self) -> f64 {
        self.length_squared()
    }
    fn is_finite(&self) -> bool {
        DVec2::is_finite(*self)
    }
}

impl VectorSpace for DVec3 {
    fn add_scaled(&mut self, alpha: f64, other: &Self) {
        *self += alpha * *other;
    }
    fn norm_squared(&self) -> f64 {
        self.length_squared()
    }
    fn is_finite(&self) -> bool {
        DVec3::is_finite(*self)
    }
}

impl VectorSpace for Vec3 {
    fn add_scaled(&mut self, alpha: f64, other: &Self) {
        *self += alpha as f32 * *other;
    }
    fn norm_squared(&self) -> f64 {
        f64::from(self.length_squared())
    }
    fn is_finite(&self) -> bool {
        Vec3::is_finite(*self)
    }
}

impl<T: VectorSpace> VectorSpace for Vec<T> {
    fn add_scaled(&mut self, alpha: f64, other: &Self) {
        assert_eq!(self.len(), other.len(), "state vectors differ in length");
        for (y, x) in self.iter_mut().zip(other) {
            y.add_scaled(alpha, x);
        }
    }
    fn norm_squared(&self) -> f64 {
        self.iter().map(VectorSpace::norm_squared).sum()
    }
    fn is_finite(&self) -> bool {
        self.iter().all(VectorSpace::is_finite)
    }
}

/// A mechanical system ẍ = a(t, x, v).
pub trait Dynamics {
    /// The type of positions and velocities.
    type Vector: VectorSpace;
    /// The acceleration a = M⁻¹ f(t, x, v).
    fn acceleration(&self, t: f64, x: &Self::Vector, v: &Self::Vector) -> Self::Vector;
}

/// A system that can take one linearized implicit Euler step (Baraff & Witkin 1998):
///
/// (M − Δt·D − Δt²·K) Δv = Δt·(f + Δt·K·v),   K = ∂f/∂x,  D = ∂f/∂v.
///
/// For the 1D spring f = −k x this is (1 + Δt²k/m) Δv = Δt/m·(f(x) − Δt·k·v) (`spring_plot.html`).
pub trait LinearizedDynamics: Dynamics {
    /// Solve the linear system above for the velocity change Δv.
    fn implicit_velocity_change(
        &self,
        t: f64,
        x: &Self::Vector,
        v: &Self::Vector,
        dt: f64,
    ) -> Self::Vector;
}

/// Position, velocity and time of a system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State<V> {
    pub t: f64,
    pub x: V,
    pub v: V,
}

impl<V: VectorSpace> State<V> {
    pub fn new(x: V, v: V) -> Self {
        Self { t: 0.0, x, v }
    }
    pub fn is_finite(&self) -> bool {
        self.t.is_finite() && self.x.is_finite() && self.v.is_finite()
    }
}

/// The time-integration methods of the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    ExplicitEuler,
    SymplecticEuler,
    LeapFrog,
    PositionVerlet,
    VelocityVerlet,
    Rk2,
    Rk4,
    ImplicitEuler,
}

impl Method {
    /// Every method, in the order the lesson lists them.
    pub const ALL: [Method; 8] = [
        Method::ExplicitEuler,
        Method::SymplecticEuler,
        Method::LeapFrog,
        Method::PositionVerlet,
        Method::VelocityVerlet,
        Method::Rk2,
        Method::Rk4,
        Method::ImplicitEuler,
    ];

    /// Stable identifier (URL parameters, messages).
    pub fn id(self) -> &'static str {
        match self {
            Method::ExplicitEuler => "explicit-euler",
            Method::SymplecticEuler => "symplectic-euler",
            Method::LeapFrog => "leap-frog",
            Method::PositionVerlet => "position-verlet",
            Method::VelocityVerlet => "velocity-verlet",
            Method::Rk2 => "rk2",
            Method::Rk4 => "rk4",
            Method::ImplicitEuler => "implicit-euler",
        }
    }

    /// Human-readable name.
    pub fn name(self) -> &'static str {
        match self {
            Method::ExplicitEuler => "Explicit Euler",
            Method::SymplecticEuler => "Symplectic Euler",
            Method::LeapFrog => "Leap-frog",
            Method::PositionVerlet => "Position Verlet",
            Method::VelocityVerlet => "Velocity Verlet",
            Method::Rk2 => "RK2 (midpoint)",
            Method::Rk4 => "RK4",
            Method::ImplicitEuler => "Implicit Euler",
        }
    }

    pub fn from_id(id: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.id() == id)
    }

    /// Order p of the global error: halving Δt divides the error by 2ᵖ.
    pub fn order(self) -> u32 {
        match self {
            Method::ExplicitEuler | Method::SymplecticEuler | Method::ImplicitEuler => 1,
            Method::LeapFrog | Method::PositionVerlet | Method::VelocityVerlet | Method::Rk2 => 2,
            Method::Rk4 => 4,
        }
    }

    /// Whether the method's flow map is symplectic (it conserves a modified energy).
    pub fn is_symplectic(self) -> bool {
        matches!(
            self,
            Method::SymplecticEuler
                | Method::LeapFrog
                | Method::PositionVerlet
                | Method::VelocityVerlet
        )
    }
}

/// An implicit method was asked of a system that provides no linearization (stiffness matrix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedsLinearization(pub Method);

impl std::fmt::Display for NeedsLinearization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} needs the system's stiffness matrix, which this system does not provide",
            self.0.name()
        )
    }
}

impl std::error::Error for NeedsLinearization {}

/// What a multistep method remembers between steps, valid for one Δt.
#[derive(Clone, Debug)]
enum History<V> {
    None,
    /// Leap-frog's staggered velocity v(t − Δt/2).
    HalfStepVelocity {
        v_half: V,
        dt: f64,
    },
    /// Position Verlet's previous position x(t − Δt).
    PreviousPosition {
        x_prev: V,
        dt: f64,
    },
}

/// One method plus the history it carries between steps.
#[derive(Clone, Debug)]
pub struct Integrator<V> {
    method: Method,
    history: History<V>,
}

impl<V: VectorSpace> Integrator<V> {
    pub fn new(method: Method) -> Self {
        Self {
            method,
            history: History::None,
        }
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// Forget the history (after the state was changed from outside, e.g. a restart or a drag).
    pub fn reset(&mut self) {
        self.history = History::None;
    }

    /// Advance `state` by one step of size `dt`.
    pub fn step<S>(&mut self, system: &S, state: &mut State<V>, dt: f64)
    where
        S: LinearizedDynamics<Vector = V>,
    {
        if self.method == Method::ImplicitEuler {
            implicit_euler(system, state, dt);
            state.t += dt;
        } else {
            self.step_explicit(system, state, dt)
                .expect("every other method is explicit");
        }
    }

    /// Advance by one step of a method that needs only the accelerations (every method but implicit
    /// Euler, which is refused for a system without a linearization).
    pub fn step_explicit<S>(
        &mut self,
        system: &S,
        state: &mut State<V>,
        dt: f64,
    ) -> Result<(), NeedsLinearization>
    where
        S: Dynamics<Vector = V>,
    {
        match self.method {
            Method::ExplicitEuler => explicit_euler(system, state, dt),
            Method::SymplecticEuler => symplectic_euler(system, state, dt),
            Method::LeapFrog => self.leap_frog(system, state, dt),
            Method::PositionVerlet => self.position_verlet(system, state, dt),
            Method::VelocityVerlet => velocity_verlet(system, state, dt),
            Method::Rk2 => rk2(system, state, dt),
            Method::Rk4 => rk4(system, state, dt),
            Method::ImplicitEuler => return Err(NeedsLinearization(self.method)),
        }
        state.t += dt;
        Ok(())
    }

    /// Leap-frog (kick–drift with staggered velocities):
    ///
    /// v(t + Δt/2) = v(t − Δt/2) + Δt·a(t),   x(t + Δt) = x(t) + Δt·v(t + Δt/2).
    ///
    /// The first step starts the staggering with v(Δt/2) = v(0) + Δt/2·a(0). The synchronized velocity
    /// reported in the state is v(t + Δt) = v(t + Δt/2) + Δt/2·a(t + Δt).
    fn leap_frog<S: Dynamics<Vector = V>>(&mut self, system: &S, state: &mut State<V>, dt: f64) {
        let a = system.acceleration(state.t, &state.x, &state.v);
        let v_half = match &self.history {
            History::HalfStepVelocity { v_half, dt: h } if *h == dt => v_half.plus_scaled(dt, &a),
            _ => state.v.plus_scaled(0.5 * dt, &a),
        };
        state.x.add_scaled(dt, &v_half);
        let a_next = system.acceleration(state.t + dt, &state.x, &v_half);
        state.v = v_half.plus_scaled(0.5 * dt, &a_next);
        self.history = History::HalfStepVelocity { v_half, dt };
    }

    /// Position (Störmer) Verlet:  x(t + Δt) = 2x(t) − x(t − Δt) + Δt²·a(t).
    ///
    /// The first step uses the Taylor start x(Δt) = x(0) + Δt·v(0) + ½Δt²·a(0). The velocity is the
    /// central difference v(t) = (x(t + Δt) − x(t − Δt)) / 2Δt, evaluated at the new time with the
    /// next position predicted by the same Verlet formula:
    /// v(t + Δt) = (x(t + Δt) − x(t))/Δt + ½Δt·a(t + Δt).
    fn position_verlet<S: Dynamics<Vector = V>>(
        &mut self,
        system: &S,
        state: &mut State<V>,
        dt: f64,
    ) {
        let a = system.acceleration(state.t, &state.x, &state.v);
        let x_next = match &self.history {
            History::PreviousPosition { x_prev, dt: h } if *h == dt => {
                // 2x − x_prev + Δt² a
                let mut x_next = state.x.plus_scaled(1.0, &state.x);
                x_next.add_scaled(-1.0, x_prev);
                x_next.add_scaled(dt * dt, &a);
                x_next
            }
            _ => {
                let mut x_next = state.x.plus_scaled(dt, &state.v);
                x_next.add_scaled(0.5 * dt * dt, &a);
                x_next
            }
        };
        // Backward difference: the velocity argument for velocity-dependent forces.
        let mut v_backward = x_next.plus_scaled(-1.0, &state.x);
        scale(&mut v_backward, 1.0 / dt);
        let a_next = system.acceleration(state.t + dt, &x_next, &v_backward);
        state.v = v_backward.plus_scaled(0.5 * dt, &a_next);
        let x_prev = std::mem::replace(&mut state.x, x_next);
        self.history = History::PreviousPosition { x_prev, dt };
    }
}

/// `v ← alpha · v`, written with the one operation [`VectorSpace`] provides.
fn scale<V: VectorSpace>(v: &mut V, alpha: f64) {
    let copy = v.clone();
    v.add_scaled(alpha - 1.0, &copy);
}

/// Explicit Euler:  x(t + Δt) = x(t) + Δt·v(t),   v(t + Δt) = v(t) + Δt·a(t).
pub fn explicit_euler<S: Dynamics>(system: &S, state: &mut State<S::Vector>, dt: f64) {
    let a = system.acceleration(state.t, &state.x, &state.v);
    state.x.add_scaled(dt, &state.v);
    state.v.add_scaled(dt, &a);
}

/// Symplectic (semi-implicit) Euler:  v(t + Δt) = v(t) + Δt·a(t),   x(t + Δt) = x(t) + Δt·v(t + Δt).
pub fn symplectic_euler<S: Dynamics>(system: &S, state: &mut State<S::Vector>, dt: f64) {
    let a = system.acceleration(state.t, &state.x, &state.v);
    state.v.add_scaled(dt, &a);
    state.x.add_scaled(dt, &state.v);
}

/// Velocity Verlet:
///
/// x(t + Δt) = x(t) + Δt·v(t) + ½Δt²·a(t),   v(t + Δt) = v(t) + ½Δt·(a(t) + a(t + Δt)).
pub fn velocity_verlet<S: Dynamics>(system: &S, state: &mut State<S::Vector>, dt: f64) {
    let a = system.acceleration(state.t, &state.x, &state.v);
    state.x.add_scaled(dt, &state.v);
    state.x.add_scaled(0.5 * dt * dt, &a);
    let v_predicted = state.v.plus_scaled(dt, &a);
    let a_next = system.acceleration(state.t + dt, &state.x, &v_predicted);
    state.v.add_scaled(0.5 * dt, &a);
    state.v.add_scaled(0.5 * dt, &a_next);
}

/// Runge–Kutta 2 (midpoint), with s = (x, v) and f(t, s) = (v, a(t, x, v)):
///
/// k₁ = Δt·f(t, s),   k₂ = Δt·f(t + Δt/2, s + k₁/2),   s(t + Δt) = s(t) + k₂.
pub fn rk2<S: Dynamics>(system: &S, state: &mut State<S::Vector>, dt: f64) {
    let (t, x, v) = (state.t, &state.x, &state.v);
    let a1 = system.acceleration(t, x, v);
    let x_mid = x.plus_scaled(0.5 * dt, v);
    let v_mid = v.plus_scaled(0.5 * dt, &a1);
    let a2 = system.acceleration(t + 0.5 * dt, &x_mid, &v_mid);
    state.x.add_scaled(dt, &v_mid);
    state.v.add_scaled(dt, &a2);
}

/// Classic fourth-order Runge–Kutta:
///
/// k₁ = f(t, s), k₂ = f(t + Δt/2, s + Δt/2·k₁), k₃ = f(t + Δt/2, s + Δt/2·k₂), k₄ = f(t + Δt, s + Δt·k₃),
/// s(t + Δt) = s(t) + Δt/6·(k₁ + 2k₂ + 2k₃ + k₄).
pub fn rk4<S: Dynamics>(system: &S, state: &mut State<S::Vector>, dt: f64) {
    let (t, x, v) = (state.t, &state.x, &state.v);
    // k = (dx, dv) = (velocity, acceleration) at each stage.
    let (dx1, dv1) = (v.clone(), system.acceleration(t, x, v));
    let (x2, v2) = (x.plus_scaled(0.5 * dt, &dx1), v.plus_scaled(0.5 * dt, &dv1));
    let dv2 = system.acceleration(t + 0.5 * dt, &x2, &v2);
    let dx2 = v2;
    let (x3, v3) = (x.plus_scaled(0.5 * dt, &dx2), v.plus_scaled(0.5 * dt, &dv2));
    let dv3 = system.acceleration(t + 0.5 * dt, &x3, &v3);
    let dx3 = v3;
    let (x4, v4) = (x.plus_scaled(dt, &dx3), v.plus_scaled(dt, &dv3));
    let dv4 = system.acceleration(t + dt, &x4, &v4);
    let dx4 = v4;
    for (dx, dv, w) in [
        (&dx1, &dv1, 1.0),
        (&dx2, &dv2, 2.0),
        (&dx3, &dv3, 2.0),
        (&dx4, &dv4, 1.0),
    ] {
        state.x.add_scaled(dt * w / 6.0, dx);
        state.v.add_scaled(dt * w / 6.0, dv);
    }
}

/// Linearized implicit Euler: solve (M − Δt·D − Δt²·K) Δv = Δt·(f + Δt·K·v) (see
/// [`LinearizedDynamics`]), then v(t + Δt) = v(t) + Δv,  x(t + Δt) = x(t) + Δt·v(t + Δt).
pub fn implicit_euler<S: LinearizedDynamics>(system: &S, state: &mut State<S::Vector>, dt: f64) {
    let dv = system.implicit_velocity_change(state.t, &state.x, &state.v, dt);
    state.v.add_scaled(1.0, &dv);
    state.x.add_scaled(dt, &state.v);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ẍ = −ω² x written for a list of 3D vectors (the shape the phyxel solver uses).
    struct Oscillators {
        omega_squared: f64,
    }

    impl Dynamics for Oscillators {
        type Vector = Vec<DVec3>;
        fn acceleration(&self, _t: f64, x: &Vec<DVec3>, _v: &Vec<DVec3>) -> Vec<DVec3> {
            x.iter().map(|p| -self.omega_squared * *p).collect()
        }
    }

    impl LinearizedDynamics for Oscillators {
        fn implicit_velocity_change(
            &self,
            _t: f64,
            x: &Vec<DVec3>,
            v: &Vec<DVec3>,
            dt: f64,
        ) -> Vec<DVec3> {
            let w2 = self.omega_squared;
            x.iter()
                .zip(v)
                .map(|(x, v)| dt * (-w2 * *x - dt * w2 * *v) / (1.0 + dt * dt * w2))
                .collect()
        }
    }

    #[test]
    fn every_method_integrates_vector_states_componentwise() {
        // Three independent oscillators with different amplitudes: each component must follow the
        // same scalar solution scaled by its amplitude, whatever the method.
        let system = Oscillators { omega_squared: 4.0 };
        for method in Method::ALL {
            let amplitudes = [1.0, -2.0, 0.5];
            let x0: Vec<DVec3> = amplitudes
                .iter()
                .map(|&a| DVec3::new(a, 2.0 * a, 0.0))
                .collect();
            let mut state = State::new(x0, vec![DVec3::ZERO; 3]);
            let mut integrator = Integrator::new(method);
            for _ in 0..100 {
                integrator.step(&system, &mut state, 0.01);
            }
            let reference = state.x[0].x;
            for (p, a) in state.x.iter().zip(amplitudes) {
                assert!((p.x - a * reference).abs() < 1e-12, "{method:?}");
                assert!((p.y - 2.0 * a * reference).abs() < 1e-12, "{method:?}");
                assert_eq!(p.z, 0.0);
            }
            // After t = 1 with ω = 2: x ≈ cos 2 for every method at this small Δt.
            assert!(
                (reference - 2f64.cos()).abs() < 0.02,
                "{method:?}: {reference}"
            );
            assert!((state.t - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn method_ids_round_trip() {
        for method in Method::ALL {
            assert_eq!(Method::from_id(method.id()), Some(method));
        }
        assert_eq!(Method::from_id("euler"), None);
    }
}
