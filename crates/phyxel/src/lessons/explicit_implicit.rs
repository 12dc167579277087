//! The "Explicit vs implicit" lesson: one clamped beam twice, the same corotated MLS material
//! integrated by background quadrature (seed 003 §3.3), one stepped by symplectic Euler (explicit:
//! stable only below the discretization's bound 2/ω_max, which the thesis estimates as h·√(ρ/E), §5;
//! [`crate::meshless::stability`] measures it), the other by corotated implicit Euler solved with
//! conjugate gradients (Brunet et al. 2019 §3.5–3.6; Zhou et al. 2013), at the same frame rate.
//!
//! Both advance by the same frame time: the explicit beam in as many substeps of its own Δt as the
//! frame needs, the implicit one in steps of the implicit Δt (1/60 s by default). When E rises past
//! what the explicit step holds, the explicit beam's blow-up is detected and it stops (the state
//! before the failed step is kept) while the implicit beam carries on.

use crate::lessons::integrating_solid::{Cantilever, Integration, GRAVITY};
use crate::meshless::implicit::{CorotatedImplicit, Rayleigh, SolveStats};
use crate::meshless::material::Material;
use crate::meshless::simulation::{BlowUp, Elasticity, Environment, Simulation};
use crate::meshless::stability::symplectic_euler_bound;

/// The lesson's parameters: the beam's material and resolution, both time steps, damping and CG.
/// The page's controls take their ranges and defaults from here (`ExplicitImplicitLesson.parameters()`), and
/// the bindings check values against the same.
pub mod param {
    use crate::params::Param;
    pub const YOUNG: Param = Param::real("young", 1e3, 1e11, 1e6);
    pub const POISSON: Param = Param::real("poisson", 0.0, 0.45, 0.3);
    pub const DENSITY: Param = Param::real("density", 10.0, 20_000.0, 1000.0);
    /// Phyxels across the thickness, both faces included.
    pub const ACROSS: Param = Param::integer("across", 3.0, 6.0, 4.0);
    pub const EXPLICIT_DT: Param = Param::real("explicitDt", 1e-6, 0.05, 0.0005);
    pub const IMPLICIT_DT: Param = Param::real("implicitDt", 1e-4, 0.1, 1.0 / 60.0);
    pub const DAMPING: Param = Param::real("damping", 0.0, 100.0, 1.0);
    pub const TOLERANCE: Param = Param::real("tolerance", 1e-10, 0.5, 1e-4);
    pub const MAX_ITERATIONS: Param = Param::integer("maxIterations", 1.0, 10_000.0, 500.0);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[
    param::YOUNG,
    param::POISSON,
    param::DENSITY,
    param::ACROSS,
    param::EXPLICIT_DT,
    param::IMPLICIT_DT,
    param::DAMPING,
    param::TOLERANCE,
    param::MAX_ITERATIONS,
];

/// The beam and its material: the integrating-solid lesson's cantilever ([`Cantilever`]), phyxels on
/// a cubic lattice with both faces sampled, clamped at x = 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    /// Free length L (m), along +x from the clamp.
    pub length: f64,
    /// Side H (m) of the square cross-section.
    pub thickness: f64,
    /// Phyxels across the thickness (both faces included).
    pub across: usize,
    pub material: Material,
    /// How the elastic energy is integrated: the page's beams use background quadrature (seed 003
    /// §3.3), whose deflection converges to the 3-D solution; the nodal models are for comparison.
    pub integration: Integration,
}

impl Beam {
    /// The same beam as the integrating-solid lesson's [`Cantilever`] (its body, clamp and theory).
    pub fn cantilever(&self) -> Cantilever {
        Cantilever {
            height: self.thickness,
            length: self.length,
            across: self.across,
            material: self.material,
        }
    }

    /// Timoshenko's static deflection under the beam's own weight at distance x from the clamp
    /// ([`Cantilever::timoshenko_deflection`]).
    pub fn timoshenko_deflection(&self, x: f64) -> f64 {
        self.cantilever().timoshenko_deflection(x)
    }

    /// The 3-D finite-element static tip deflection where it is known (at the page's shape and
    /// ν = 0.3: [`crate::lessons::integrating_solid::FEM_OVER_TIMOSHENKO_L5_NU03`]).
    pub fn fem_tip(&self) -> Option<f64> {
        self.cantilever().fem_tip()
    }

    /// Lattice spacing a = H / (across − 1).
    pub fn spacing(&self) -> f64 {
        self.cantilever().spacing()
    }

    /// The beam as a simulation: [`Cantilever::body`] integrated as [`Beam::integration`] (the
    /// quadrature holds its clamped face by a penalty, the nodal models fix the face and one layer
    /// inside the wall), no colliders, the corotated linear model.
    pub fn simulation(&self, damping: f64) -> Simulation {
        let (body, held) = self
            .cantilever()
            .body(self.integration)
            .expect("a beam three phyxels across or more has a body");
        let environment = Environment {
            gravity: glam::DVec3::new(0.0, -GRAVITY, 0.0),
            colliders: vec![],
            damping,
            ..Environment::default()
        };
        let mut sim = Simulation::new(body, environment);
        sim.fixed = held;
        sim.elasticity = Elasticity::CorotatedLinear;
        sim
    }
}

/// What one frame did.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Explicit substeps taken this frame.
    pub explicit_steps: usize,
    /// The implicit steps' CG solves this frame (the last one, and the total iterations).
    pub implicit_solve: Option<SolveStats>,
    pub implicit_iterations: usize,
}

/// The two beams side by side.
pub struct ExplicitVsImplicit {
    pub beam: Beam,
    pub explicit: Simulation,
    pub implicit: Simulation,
    /// The explicit beam's step (s).
    pub explicit_dt: f64,
    /// Symplectic Euler's step bound 2/ω_max of the beam's discretization, measured
    /// ([`symplectic_euler_bound`]).
    pub explicit_bound: f64,
    /// The implicit beam's step (s).
    pub implicit_dt: f64,
    /// Set when the explicit beam blew up: it then stays at its last good state.
    pub explicit_failure: Option<BlowUp>,
    pub implicit_failure: Option<BlowUp>,
    /// Frame time not yet simulated by each beam (a step never straddles frames).
    explicit_lag: f64,
    implicit_lag: f64,
}

impl ExplicitVsImplicit {
    /// Both beams at rest, undeformed. `damping` is the mass-proportional damping c (1/s) of both.
    pub fn new(
        beam: Beam,
        explicit_dt: f64,
        implicit_dt: f64,
        damping: f64,
        settings: CorotatedImplicit,
    ) -> Self {
        let explicit = beam.simulation(damping);
        let mut implicit = beam.simulation(damping);
        implicit.set_corotated_implicit(Some(CorotatedImplicit {
            rayleigh: Rayleigh {
                mass: 0.0,
                ..settings.rayleigh
            },
            ..settings
        }));
        let explicit_bound = symplectic_euler_bound(&explicit.body, &explicit.fixed);
        Self {
            beam,
            explicit,
            implicit,
            explicit_dt,
            explicit_bound,
            implicit_dt,
            explicit_failure: None,
            implicit_failure: None,
            explicit_lag: 0.0,
            implicit_lag: 0.0,
        }
    }

    /// The thesis' estimate h·√(ρ/E) of the explicit step bound (its eq. 3.59) for the beam's
    /// material; the discretization's own bound is [`ExplicitVsImplicit::explicit_bound`].
    pub fn cfl_time_step(&self) -> f64 {
        self.explicit.cfl_time_step()
    }

    /// Advance both beams by `frame_time` seconds, each in whole steps of its own Δt (the rest carries
    /// over to the next frame). A beam that blew up stays stopped.
    pub fn advance(&mut self, frame_time: f64) -> Frame {
        let explicit_steps = self.advance_explicit(frame_time);
        let solves = self.advance_implicit(frame_time);
        Frame {
            explicit_steps,
            implicit_solve: solves.last().copied(),
            implicit_iterations: solves.iter().map(|s| s.iterations).sum(),
        }
    }

    /// The explicit beam's part of a frame; returns the substeps taken.
    pub fn advance_explicit(&mut self, frame_time: f64) -> usize {
        let mut steps = 0;
        if self.explicit_failure.is_none() {
            self.explicit_lag += frame_time;
            // Whole steps only; 10⁻⁹ of a step absorbs the rounding of repeated additions.
            while self.explicit_lag >= self.explicit_dt * (1.0 - 1e-9) {
                self.explicit_lag -= self.explicit_dt;
                if let Err(failure) = self.explicit.step(self.explicit_dt) {
                    self.explicit_failure = Some(failure);
                    break;
                }
                steps += 1;
            }
        }
        steps
    }

    /// The implicit beam's part of a frame; returns each step's CG solve.
    pub fn advance_implicit(&mut self, frame_time: f64) -> Vec<SolveStats> {
        let mut solves = Vec::new();
        if self.implicit_failure.is_none() {
            self.implicit_lag += frame_time;
            while self.implicit_lag >= self.implicit_dt * (1.0 - 1e-9) {
                self.implicit_lag -= self.implicit_dt;
                if let Err(failure) = self.implicit.step(self.implicit_dt) {
                    self.implicit_failure = Some(failure);
                    break;
                }
                solves.extend(self.implicit.last_solve());
            }
        }
        solves
    }

    /// Mean downward displacement of the phyxels on the free end face x = L (m)
    /// ([`Beam::tip_deflection`]).
    pub fn tip_deflection(&self, sim: &Simulation) -> f64 {
        self.beam.tip_deflection(sim)
    }
}

impl Beam {
    /// Mean downward displacement of the phyxels of `sim` (this beam) on the free end face x = L (m).
    pub fn tip_deflection(&self, sim: &Simulation) -> f64 {
        let tip_x = self.length - 1e-9 * self.spacing();
        let (sum, count) = sim
            .body
            .reference
            .iter()
            .zip(&sim.body.displacement)
            .filter(|(x, _)| x.x > tip_x)
            .fold((0.0, 0usize), |(sum, n), (_, u)| (sum - u.y, n + 1));
        sum / count.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }

    use super::*;
    use crate::meshless::implicit::StaticSolve;

    /// The page's beam (0.5 × 0.1 × 0.1 m) at its default resolution and ν, ρ, with Young's modulus
    /// `young`.
    fn beam(young: f64) -> Beam {
        Beam {
            length: 0.5,
            thickness: 0.1,
            across: param::ACROSS.default as usize,
            material: Material {
                young,
                poisson: param::POISSON.default,
                density: param::DENSITY.default,
                volume_stiffness: 0.0,
            },
            integration: Integration::Quadrature,
        }
    }

    #[test]
    fn timoshenko_s_curve_ends_at_the_tip_deflection_of_beam_theory() {
        // q L⁴/(8 E I) + q L²/(2 κ G A), κ = 10(1 + ν)/(12 + 11ν) (Cowper 1966), written out here.
        let b = beam(1e7);
        let (q, l, nu) = (1000.0 * 9.81 * 0.01, 0.5f64, 0.3);
        let (ei, kga) = (
            1e7 * 1e-4 / 12.0,
            10.0 * (1.0 + nu) / (12.0 + 11.0 * nu) * 1e7 / (2.0 * (1.0 + nu)) * 0.01,
        );
        let tip = q * l.powi(4) / (8.0 * ei) + q * l * l / (2.0 * kga);
        assert!((b.timoshenko_deflection(l) - tip).abs() < 1e-12 * tip);
        assert_eq!(b.timoshenko_deflection(0.0), 0.0);
        assert!(b.timoshenko_deflection(0.25) < tip);
        // The page's shape and ν have a 3-D reference, 1.6 % below beam theory.
        assert!((b.fem_tip().unwrap() / tip - 0.983799).abs() < 1e-9);
    }

    #[test]
    fn a_stiff_beam_at_60_hz_stops_the_explicit_side_and_not_the_implicit_one() {
        // E = 1 GPa: the measured bound is about 0.04 ms, far below a 1 ms explicit step.
        let mut lesson = ExplicitVsImplicit::new(
            beam(1e9),
            1e-3,
            1.0 / 60.0,
            1.0,
            CorotatedImplicit::default(),
        );
        assert!(lesson.explicit_bound < 1e-4);
        for _ in 0..60 {
            lesson.advance(1.0 / 60.0);
        }
        let failure = lesson
            .explicit_failure
            .clone()
            .expect("the explicit beam blows up");
        assert!(failure.time < 0.1, "caught within 0.1 s: {failure:?}");
        assert!(lesson.implicit_failure.is_none());
        assert!(
            (lesson.implicit.time - 1.0).abs() < 1e-9,
            "one second at 60 Hz"
        );
        // The stopped explicit beam holds finite, last-good positions.
        assert!(lesson
            .explicit
            .body
            .displacement
            .iter()
            .all(|u| u.is_finite()));
        // Implicit Euler damps the beam's first mode (ωΔt ≈ 7) within a few steps: after a second it
        // hangs where the static solve of the same discretization puts it.
        let tip = lesson.tip_deflection(&lesson.implicit);
        let mut statics = lesson.beam.simulation(0.0);
        assert!(statics.solve_static(StaticSolve::default()).converged);
        let static_tip = lesson.tip_deflection(&statics);
        assert!(
            (tip - static_tip).abs() < 0.02 * static_tip,
            "tip {tip} m, static {static_tip} m"
        );
    }

    /// The static tip deflection of the page's beam at `across` and E = `young`, over the (linear)
    /// 3-D FEM's.
    fn static_error(across: usize, young: f64) -> f64 {
        let b = Beam {
            across,
            ..beam(young)
        };
        let mut sim = b.simulation(0.0);
        let mut settings = StaticSolve::default();
        settings.linear.max_iterations = 20_000;
        assert!(sim.solve_static(settings).converged);
        b.tip_deflection(&sim) / b.fem_tip().unwrap() - 1.0
    }

    #[test]
    fn the_static_beam_converges_to_the_3d_solution_and_the_defaults_sag_beyond_linear_theory() {
        // What the page says beside its readouts. In the linear range (E = 100 MPa, a sag of 1 mm)
        // the quadrature beam's static tip converges to the 27-node FEM solution at 3, 4 (the
        // default) and 6 across.
        let linear: Vec<f64> = [3, 4, 6]
            .into_iter()
            .map(|n| static_error(n, 1e8))
            .collect();
        println!("linear range, static tip vs 3-D FEM at 3/4/6 across: {linear:?}");
        assert!(
            linear.windows(2).all(|w| w[1].abs() < w[0].abs()),
            "{linear:?}"
        );
        // The page quotes −3.0 %, −1.4 %, −0.5 %.
        for (error, quoted) in linear.iter().zip([-0.030, -0.014, -0.005]) {
            assert!((error - quoted).abs() < 0.0015, "{linear:?}");
        }
        // At the default E = 1 MPa the tip sags a fifth of the length: the corotated beam stiffens
        // with the rotation (linear theory does not), so its tip deflects a few per cent less than
        // the linear reference — and that much less than in the linear range.
        let default = static_error(4, param::YOUNG.default);
        println!("default E: static tip vs 3-D linear FEM {default}");
        assert!(default < linear[1] - 0.01, "{default}");
        // The page quotes −3.7 %.
        assert!((default + 0.037).abs() < 0.0015, "{default}");
    }

    #[test]
    fn at_the_defaults_the_explicit_step_is_under_half_its_measured_bound() {
        let lesson = ExplicitVsImplicit::new(
            beam(param::YOUNG.default),
            param::EXPLICIT_DT.default,
            param::IMPLICIT_DT.default,
            param::DAMPING.default,
            CorotatedImplicit::default(),
        );
        let ratio = lesson.explicit_dt / lesson.explicit_bound;
        println!(
            "bound {} s (h√(ρ/E) {} s), Δt/bound {ratio}",
            lesson.explicit_bound,
            lesson.cfl_time_step()
        );
        assert!(ratio > 0.3 && ratio < 0.5, "{ratio}");
        assert!(lesson.explicit_bound < 0.6 * lesson.cfl_time_step());
    }

    #[test]
    fn at_the_defaults_the_implicit_beam_settles_at_its_static_deflection() {
        // The page's "Implicit vs 3-D FEM" readout reaches the static value the page quotes.
        let defaults = beam(param::YOUNG.default);
        let mut lesson = ExplicitVsImplicit::new(
            defaults,
            param::EXPLICIT_DT.default,
            param::IMPLICIT_DT.default,
            param::DAMPING.default,
            CorotatedImplicit::default(),
        );
        for _ in 0..480 {
            lesson.advance_implicit(1.0 / 60.0);
        }
        let settled = lesson.tip_deflection(&lesson.implicit) / defaults.fem_tip().unwrap() - 1.0;
        let statics = static_error(4, param::YOUNG.default);
        println!("after 8 s {settled}, static {statics}");
        assert!((settled - statics).abs() < 0.005, "{settled} vs {statics}");
        // At rest b = Δt(f + M g) has fallen to the level of the solves' own residuals: measured
        // against the weight impulse Δt‖M g‖ (and from x₀ = 0 where the warm start is worse) it takes
        // a few iterations a step (mean 8 measured 2026-11-24); measured against ‖b‖ alone CG chased
        // 10⁻⁴ of an ever smaller b, 40–104 iterations every step (mean 80).
        let resting: Vec<usize> = (0..120)
            .map(|_| {
                lesson.advance_implicit(1.0 / 60.0);
                lesson.implicit.last_solve().unwrap().iterations
            })
            .collect();
        let mean = resting.iter().sum::<usize>() as f64 / resting.len() as f64;
        assert!(mean < 20.0, "CG iterations at rest: {resting:?}");
    }

    #[test]
    fn below_the_bound_both_beams_swing_alike() {
        // E = 100 kPa: bound ≈ 3 ms; explicit at 0.5 ms, implicit at 2 ms; 0.3 s of the first swing.
        let mut lesson =
            ExplicitVsImplicit::new(beam(1e5), 0.5e-3, 2e-3, 0.0, CorotatedImplicit::default());
        assert!(lesson.explicit_dt < 0.5 * lesson.explicit_bound);
        let mut largest_gap = 0.0f64;
        let mut largest_tip = 0.0f64;
        for _ in 0..30 {
            let frame = lesson.advance(0.01);
            assert_eq!(frame.explicit_steps, 20, "{:?}", lesson.explicit_failure);
            let (e, i) = (
                lesson.tip_deflection(&lesson.explicit),
                lesson.tip_deflection(&lesson.implicit),
            );
            largest_gap = largest_gap.max((e - i).abs());
            largest_tip = largest_tip.max(e.abs());
        }
        assert!(lesson.explicit_failure.is_none() && lesson.implicit_failure.is_none());
        assert!(largest_tip > 0.02, "the soft beam sags: {largest_tip} m");
        // Implicit Euler at 2 ms lags and damps the swing a little: within 20 % of the swing.
        assert!(
            largest_gap < 0.2 * largest_tip,
            "gap {largest_gap} m of {largest_tip} m"
        );
    }
}
