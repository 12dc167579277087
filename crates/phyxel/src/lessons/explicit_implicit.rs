//! The "Explicit vs implicit" lesson: one clamped beam twice, the same corotated MLS material, one
//! stepped by symplectic Euler (explicit: stable only for Δt below about h·√(ρ/E), thesis §5), the
//! other by corotated implicit Euler solved with conjugate gradients (Brunet et al. 2019 §3.5–3.6;
//! Zhou et al. 2013), at the same frame rate.
//!
//! Both advance by the same frame time: the explicit beam in as many substeps of its own Δt as the
//! frame needs, the implicit one in steps of the implicit Δt (1/60 s by default). When E rises past
//! what the explicit step holds, the explicit beam's blow-up is detected and it stops (the state
//! before the failed step is kept) while the implicit beam carries on.

use crate::lessons::integrating_solid::Integration;
use crate::meshless::body::{Body, NodalVolume, SupportRadius};
use crate::meshless::implicit::{CorotatedImplicit, Rayleigh, SolveStats};
use crate::meshless::material::Material;
use crate::meshless::quadrature::QuadratureSettings;
use crate::meshless::sampling::{sample, Lattice, Shape};
use crate::meshless::simulation::{BlowUp, Elasticity, Environment, Simulation};
use glam::DVec3;

/// Phyxels across the beam's thickness this many layers deep are clamped (at x < 0).
pub const CLAMP_LAYERS: usize = 2;
/// Support radius h = this × the lattice spacing, as in the 3D demo.
pub const SUPPORT_FACTOR: f64 = 2.2;

/// The lesson's parameters: the beam's material and resolution, both time steps, damping and CG.
/// The page's controls take their ranges and defaults from here (`ExplicitImplicitLesson.parameters()`), and
/// the bindings check values against the same.
pub mod param {
    use crate::params::Param;
    pub const YOUNG: Param = Param::real("young", 1e3, 1e11, 1e6);
    pub const POISSON: Param = Param::real("poisson", 0.0, 0.45, 0.3);
    pub const DENSITY: Param = Param::real("density", 10.0, 20_000.0, 1000.0);
    pub const ACROSS: Param = Param::integer("across", 2.0, 6.0, 3.0);
    pub const EXPLICIT_DT: Param = Param::real("explicitDt", 1e-6, 0.05, 0.00025);
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

/// The beam and its material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    /// Free length L (m), along +x from the clamp.
    pub length: f64,
    /// Side a (m) of the square cross-section.
    pub thickness: f64,
    /// Phyxels across the thickness.
    pub across: usize,
    pub material: Material,
    /// How the elastic energy is integrated. The page's beams are nodal (MKN04) for now: on this
    /// cell-centred lattice no phyxel lies on the surface, and the quadrature converges slowly there
    /// (with the face held: −21 %, −13 %, −7 % against Timoshenko at 3, 4, 6 across; embedded one
    /// spacing in the wall: +14 %, +12 %, +8 %); the integrating-solid lesson samples the faces.
    pub integration: Integration,
}

impl Beam {
    /// Euler–Bernoulli static deflection of a cantilever under its own weight at distance x from the
    /// clamp: w(x) = q x² (6L² − 4Lx + x²) / (24 E I), q = ρ g a², I = a⁴/12; at the tip q L⁴/(8 E I).
    pub fn euler_bernoulli_deflection(&self, x: f64, gravity: f64) -> f64 {
        let a = self.thickness;
        let q = self.material.density * gravity * a * a;
        let inertia = a.powi(4) / 12.0;
        let l = self.length;
        q * x * x * (6.0 * l * l - 4.0 * l * x + x * x) / (24.0 * self.material.young * inertia)
    }

    /// Lattice spacing a / across.
    pub fn spacing(&self) -> f64 {
        self.thickness / self.across as f64
    }

    /// x of the last layer of phyxels (cell centres), where the tip deflection is measured.
    pub fn tip_x(&self) -> f64 {
        self.length - 0.5 * self.spacing()
    }

    /// The beam as a simulation: cell-centred cubic lattice, the layers at x < 0 fixed, no colliders,
    /// the corotated linear model, integrated as [`Beam::integration`] (background quadrature over
    /// [`Beam::region`]).
    pub fn simulation(&self, damping: f64) -> Simulation {
        let s = self.spacing();
        let clamp = CLAMP_LAYERS as f64 * s;
        let shape = Shape::Box {
            min: DVec3::new(-clamp + 0.5 * s, 0.5 * s, 0.5 * s),
            max: DVec3::new(self.length, self.thickness, self.thickness),
        };
        let mut body = Body::new(
            sample(&shape, s, Lattice::Cubic),
            s.powi(3),
            s,
            self.material,
            SupportRadius::SpacingMultiple {
                factor: SUPPORT_FACTOR,
            },
        );
        match self.integration {
            Integration::NodalKernelDensity => {}
            Integration::NodalCellVolume => body.set_nodal_volume(NodalVolume::Cell),
            Integration::Quadrature => body
                .set_quadrature(&self.region(), s, QuadratureSettings::default())
                .expect("a beam one phyxel thick or more has a quadrature"),
        }
        let environment = Environment {
            colliders: vec![],
            damping,
            ..Environment::default()
        };
        let mut sim = Simulation::new(body, environment);
        sim.fixed = sim.body.reference.iter().map(|x| x.x < 0.0).collect();
        sim.elasticity = Elasticity::CorotatedLinear;
        sim
    }

    /// The region integrated by background quadrature: the beam [0, L] × [0, a]² and one lattice
    /// spacing of it inside the wall, where the held phyxels tie the field to zero (a rigid wall the
    /// beam is embedded in; with the integration stopping at x = 0 the wall's hold would be loose).
    pub fn region(&self) -> Shape {
        Shape::Box {
            min: DVec3::new(-self.spacing(), 0.0, 0.0),
            max: DVec3::new(self.length, self.thickness, self.thickness),
        }
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
        Self {
            beam,
            explicit,
            implicit,
            explicit_dt,
            implicit_dt,
            explicit_failure: None,
            implicit_failure: None,
            explicit_lag: 0.0,
            implicit_lag: 0.0,
        }
    }

    /// The explicit stability bound h·√(ρ/E) (thesis §5) of the beam's material.
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

    /// Mean downward displacement of the last layer of phyxels (m).
    pub fn tip_deflection(&self, sim: &Simulation) -> f64 {
        let tip_x = self.beam.tip_x() - 1e-9;
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

    fn beam(young: f64) -> Beam {
        Beam {
            length: 0.5,
            thickness: 0.1,
            across: 3,
            material: Material {
                young,
                poisson: 0.3,
                density: 1000.0,
                volume_stiffness: 0.0,
            },
            integration: Integration::NodalKernelDensity,
        }
    }

    #[test]
    fn the_euler_bernoulli_tip_deflection_is_q_l4_over_8ei() {
        let b = beam(1e7);
        let q = 1000.0 * 9.81 * 0.01;
        let i = 1e-4 / 12.0;
        let tip = b.euler_bernoulli_deflection(0.5, 9.81);
        assert!((tip - q * 0.5f64.powi(4) / (8.0 * 1e7 * i)).abs() < 1e-15);
        // w(0) = 0 and w grows monotonically along the beam.
        assert_eq!(b.euler_bernoulli_deflection(0.0, 9.81), 0.0);
        assert!(b.euler_bernoulli_deflection(0.25, 9.81) < tip);
    }

    #[test]
    fn a_stiff_beam_at_60_hz_stops_the_explicit_side_and_not_the_implicit_one() {
        // E = 1 GPa: h√(ρ/E) = 2.2 · 0.033 m · 10⁻³ s/m ≈ 0.073 ms, far below a 1 ms explicit step.
        let mut lesson = ExplicitVsImplicit::new(
            beam(1e9),
            1e-3,
            1.0 / 60.0,
            1.0,
            CorotatedImplicit::default(),
        );
        assert!(lesson.cfl_time_step() < 1e-4);
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
        // Implicit Euler damps the beam's 65 Hz first mode (ωΔt ≈ 7) within a few steps: after a
        // second it hangs where the static solve of the same discretization puts it.
        let tip = lesson.tip_deflection(&lesson.implicit);
        let mut statics = lesson.beam.simulation(0.0);
        assert!(statics.solve_static(StaticSolve::default()).converged);
        let static_tip = lesson.tip_deflection(&statics);
        assert!(
            (tip - static_tip).abs() < 0.02 * static_tip,
            "tip {tip} m, static {static_tip} m"
        );
        // Euler–Bernoulli: the coarse 3-across beam is too soft (the implicit module's convergence
        // test shows the error vanishing with refinement), but of the right size.
        let theory = lesson
            .beam
            .euler_bernoulli_deflection(lesson.beam.tip_x(), 9.81);
        assert!(
            tip > theory && tip < 2.0 * theory,
            "tip {tip} m, Euler–Bernoulli {theory} m"
        );
    }

    #[test]
    fn below_the_bound_both_beams_swing_alike() {
        // E = 100 kPa: bound ≈ 7.3 ms; explicit at 0.5 ms, implicit at 2 ms; 0.3 s of the first swing.
        let mut lesson =
            ExplicitVsImplicit::new(beam(1e5), 0.5e-3, 2e-3, 0.0, CorotatedImplicit::default());
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
