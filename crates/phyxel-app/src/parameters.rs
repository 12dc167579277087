//! The numbers the page sets, as one table: each with the range the demo accepts (its checks use
//! these entries, and the page builds its controls from them, so the page cannot accept a value the
//! demo refuses), whether it is a whole number, the page's starting value and its unit. The
//! bindings hand the table to JavaScript (`PhyxelDemo.parameters()`).

use phyxel::meshless::material::Material;
use phyxel::params::{check_range, ParamError};

/// A number the page sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameter {
    /// The name its errors give it ("E: must lie between …").
    pub name: &'static str,
    /// The page's control for it (and its query parameter in a shared link).
    pub key: &'static str,
    /// The range the demo accepts, bounds included.
    pub min: f64,
    pub max: f64,
    /// Whether only whole numbers make sense.
    pub integer: bool,
    /// The page's starting value.
    pub default: f64,
    /// Its unit ("" for a pure number).
    pub unit: &'static str,
}

impl Parameter {
    /// `value` if it is finite, within [min, max] and whole where it must be; else the error naming
    /// the parameter.
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
}

const fn parameter(
    name: &'static str,
    key: &'static str,
    (min, max): (f64, f64),
    default: f64,
    unit: &'static str,
) -> Parameter {
    Parameter {
        name,
        key,
        min,
        max,
        integer: false,
        default,
        unit,
    }
}

const fn whole(parameter: Parameter) -> Parameter {
    Parameter {
        integer: true,
        ..parameter
    }
}

/// Phyxels across the 0.4 m objects (within `phyxel::meshless::scene`'s own bounds, which the
/// scene checks again when it is built).
pub const RESOLUTION: Parameter =
    whole(parameter("resolution", "resolution", (3.0, 60.0), 10.0, ""));
/// From jelly to steel (2·10¹¹ Pa) and beyond.
pub const YOUNG: Parameter = parameter("E", "young", (1e2, 1e12), Material::JELLY.young, "Pa");
pub const POISSON: Parameter = parameter("ν", "poisson", (0.0, 0.49), Material::JELLY.poisson, "");
pub const DENSITY: Parameter = parameter(
    "ρ",
    "density",
    (10.0, 2e4),
    Material::JELLY.density,
    "kg/m³",
);
pub const VOLUME_STIFFNESS: Parameter = parameter(
    "k_v",
    "volumeStiffness",
    (0.0, 1e12),
    Material::JELLY.volume_stiffness,
    "Pa",
);
pub const DAMPING: Parameter = parameter("damping", "damping", (0.0, 50.0), 0.5, "1/s");
pub const FRICTION: Parameter = parameter("friction", "friction", (0.0, 2.0), 0.5, "");
pub const CG_TOLERANCE: Parameter = parameter("CG tolerance", "cgTolerance", (1e-8, 0.1), 1e-4, "");
pub const CG_ITERATIONS: Parameter = whole(parameter(
    "CG iterations",
    "cgIterations",
    (1.0, 5_000.0),
    500.0,
    "",
));
pub const YIELD: Parameter = parameter("yield", "yieldStrain", (0.0, 2.0), 0.05, "");
pub const CREEP: Parameter = parameter("creep", "creep", (0.0, 1e3), 5.0, "1/s");
pub const MAX_STRAIN: Parameter = parameter("max", "maxStrain", (0.0, 5.0), 0.6, "");
/// 0 is no heating: releasing the heat tool sets it (`Demo::set_heat_source`).
pub const HEAT_RATE: Parameter = parameter("heat rate", "heatRate", (0.0, 5e3), 300.0, "K/s");
pub const HEAT_RADIUS: Parameter = parameter("heat radius", "heatRadius", (0.02, 1.0), 0.12, "m");
/// The page's fixed time step (its automatic one is a fraction of the stability bound: see
/// [`CFL_FRACTION`]).
pub const DT: Parameter = parameter("Δt", "dt", (1e-6, 0.05), 5e-4, "s");
/// The automatic time step as a fraction of the stability bound h√(ρ/E) (thesis eq. 3.59).
pub const CFL_FRACTION: Parameter =
    parameter("Δt / (h√(ρ/E))", "cflFraction", (0.001, 2.0), 0.1, "");
/// Steps per frame when the page fixes them (else it fits them to a frame budget).
pub const SUBSTEPS: Parameter = whole(parameter("substeps", "substepCount", (1.0, 1e3), 10.0, ""));

/// The notched bar's tensile strength σ_t (Pa, the solver's unit): a crack starts where the largest
/// principal stress exceeds it. Positive (the solver refuses 0 and below); the default is the tests'
/// (2 kPa on jelly of E = 100 kPa).
pub const STRENGTH: Parameter = parameter("σ_t", "strength", (1.0, 1e9), 2e3, "Pa");
/// The crack fronts' propagation speed c_prop (m/s), positive.
pub const C_PROP: Parameter = parameter("c_prop", "cProp", (0.01, 1e3), 2.0, "m/s");
/// The transparency method's κ (seed 002 eq. 70), positive.
pub const KAPPA: Parameter = parameter("κ", "kappa", (0.01, 10.0), 0.5, "");
/// Adaptive resampling's Ω_min (seed 002 eq. 71, `phyxel::meshless::fracture::resample`): a cut
/// phyxel that sees fewer than Ω_min of its neighbours gets new phyxels beside it. Positive; the
/// seed's 10 by default; above 32 (a lattice phyxel's whole neighbourhood at h = 2.2 spacings) every
/// cut phyxel would be split.
pub const OMEGA_MIN: Parameter = parameter("Ω_min", "omegaMin", (1.0, 32.0), 10.0, "");
/// The uniaxial stress the notched bar's grips reach, as a fraction of the strength (over
/// [`crate::demo::RAMP_TIME`]).
pub const LOAD: Parameter = parameter("load", "load", (0.0, 2.0), 1.0, "");
/// The speed (m/s) at which the ball strikes the struck slab (`phyxel::meshless::fracture::slab`):
/// 0 or more (the solver refuses a negative or non-finite speed), at most 10 m/s — a quarter of the
/// advective bound 0.4 h/Δt at the demo's step on the default jelly (0.4 h/(0.1 h √(ρ/E)) = 4c =
/// 40 m/s): a phyxel the ball pushes moves at most 0.1 h a step. The default cracks the slab at the
/// impact and breaks it in two some 0.2 s later (`fracture::slab`'s tests), on the CPU and the GPU
/// alike: between 2 and 3 m/s the last crack that parts it cuts a ligament only just, and whether it
/// does is decided by rounding (phyxel-view's `the_fracture_scenes_crack_on_the_gpu_as_on_the_cpu`,
/// docs/fracture-3d.md).
pub const BALL_SPEED: Parameter = parameter("ball speed", "ballSpeed", (0.0, 10.0), 4.0, "m/s");
/// The speed Δv (m/s) the pointer's strike gives the phyxels near the point it hits, along the view
/// (`phyxel::meshless::fracture::tool::strike`): positive, at most 10 m/s for the ball speed's reason.
/// The default cracks the slab where it hits (the tool's tests: 4 m/s does, 0.1 m/s does not).
pub const STRIKE_SPEED: Parameter =
    parameter("strike speed", "strikeSpeed", (0.01, 10.0), 4.0, "m/s");

/// Any step the demo takes: the fixed [`DT`], or the automatic one (a fraction of the stability
/// bound, which a soft heavy body makes long), within this range (s).
pub const STEP_DT: (f64, f64) = (1e-7, 0.1);

/// The 3D demo's parameters, in the order of the page's controls.
pub const PARAMETERS: [Parameter; 24] = [
    RESOLUTION,
    YOUNG,
    POISSON,
    DENSITY,
    VOLUME_STIFFNESS,
    YIELD,
    CREEP,
    MAX_STRAIN,
    HEAT_RATE,
    HEAT_RADIUS,
    CG_TOLERANCE,
    CG_ITERATIONS,
    CFL_FRACTION,
    DT,
    SUBSTEPS,
    DAMPING,
    FRICTION,
    STRENGTH,
    C_PROP,
    KAPPA,
    OMEGA_MIN,
    LOAD,
    BALL_SPEED,
    STRIKE_SPEED,
];

#[cfg(test)]
mod tests {
    use super::*;
    use phyxel::meshless::implicit::CorotatedImplicit;
    use phyxel::meshless::melting::{Melting, DIFFUSIVITY};
    use phyxel::meshless::scene::SceneDescription;
    use phyxel::meshless::simulation::Environment;

    #[test]
    fn whole_numbers_refuse_fractions() {
        for p in PARAMETERS.iter().filter(|p| p.integer) {
            assert!(p.check(p.default).is_ok(), "{}", p.name);
            let error = p.check(p.default + 0.5).unwrap_err();
            assert!(
                error.to_string().contains("must be a whole number"),
                "{error}"
            );
        }
        assert!(RESOLUTION.check(10.5).is_err());
    }

    #[test]
    fn every_default_is_accepted_and_the_table_names_each_parameter_once() {
        for p in PARAMETERS {
            assert_eq!(p.check(p.default), Ok(p.default), "{}", p.name);
            assert!(!p.integer || p.default.fract() == 0.0, "{}", p.name);
            let named = PARAMETERS
                .iter()
                .filter(|q| q.key == p.key || q.name == p.name);
            assert_eq!(named.count(), 1, "{}", p.name);
        }
        let refused = YOUNG.check(1e13).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "E: must lie between 100 and 1000000000000"
        );
        assert!(DT.check(f64::NAN).is_err());
    }

    #[test]
    fn every_resolution_the_page_offers_is_one_the_scene_builds() {
        use phyxel::meshless::scene::{MAX_RESOLUTION, MIN_RESOLUTION};
        assert!(RESOLUTION.min >= f64::from(MIN_RESOLUTION));
        assert!(RESOLUTION.max <= f64::from(MAX_RESOLUTION));
        assert!(DT.min >= STEP_DT.0 && DT.max <= STEP_DT.1);
    }

    #[test]
    fn the_defaults_are_the_solvers_own_where_it_has_them() {
        let scene = SceneDescription::default();
        assert_eq!(RESOLUTION.default, f64::from(scene.resolution));
        assert_eq!(YOUNG.default, scene.material.young);
        assert_eq!(DENSITY.default, scene.material.density);
        let environment = Environment::default();
        assert_eq!(DAMPING.default, environment.damping);
        assert_eq!(FRICTION.default, environment.friction);
        let implicit = CorotatedImplicit::default();
        assert_eq!(CG_TOLERANCE.default, implicit.tolerance);
        assert_eq!(CG_ITERATIONS.default, implicit.max_iterations as f64);
    }

    #[test]
    fn the_fracture_controls_accept_only_what_the_solver_takes() {
        use phyxel::meshless::fracture::FractureSettings;
        // Positive ranges: the solver refuses 0 and below (FractureSettings::new's reasons).
        for p in [STRENGTH, C_PROP, KAPPA, OMEGA_MIN] {
            assert!(p.min > 0.0, "{}", p.name);
        }
        for (strength, c_prop, kappa, omega_min) in [
            (STRENGTH.min, C_PROP.min, KAPPA.min, OMEGA_MIN.min),
            (STRENGTH.max, C_PROP.max, KAPPA.max, OMEGA_MIN.max),
        ] {
            let settings = FractureSettings::new(strength, c_prop).unwrap();
            assert!(settings.with_transparency(kappa).is_ok());
            assert!(settings.with_resampling(omega_min).is_ok());
        }
        let settings = FractureSettings::new(STRENGTH.default, C_PROP.default).unwrap();
        assert!(settings.with_resampling(0.0).is_err());
        assert_eq!(
            OMEGA_MIN.default,
            phyxel::meshless::fracture::resampling::OMEGA_MIN
        );
        assert!(FractureSettings::new(0.0, C_PROP.default).is_err());
        assert!(FractureSettings::new(STRENGTH.default, 0.0).is_err());
        // The ball's speed: the solver takes 0 and the whole range, refuses below it.
        use phyxel::meshless::fracture::slab::struck_slab;
        let fracture = FractureSettings::new(STRENGTH.default, C_PROP.default).unwrap();
        for speed in [BALL_SPEED.min, BALL_SPEED.default, BALL_SPEED.max] {
            assert!(struck_slab(3, Material::JELLY, fracture, speed, DAMPING.default).is_ok());
        }
        assert!(struck_slab(3, Material::JELLY, fracture, -0.1, DAMPING.default).is_err());
        // The default load on the default jelly lies well within E/2 (the grips' range).
        const { assert!(LOAD.default * STRENGTH.default < 0.5 * YOUNG.default) };
    }

    #[test]
    fn the_longest_accepted_time_step_still_diffuses_heat_as_its_equation_says() {
        let longest = STEP_DT.1;
        // dT/dt = D (T̄ − T) stepped explicitly: a hot phyxel among cold neighbours loses D·Δt of its
        // excess in one step. The heat step clamps D·Δt at 1 (beyond it the step would overshoot
        // the neighbours' mean), so this holds exactly only while DIFFUSIVITY · Δt ≤ 1.
        let mut body = SceneDescription::default()
            .build(10_000)
            .unwrap()
            .simulation
            .body;
        let hot = body.len() / 2;
        let (cold, warm) = (body.temperature[0], 90.0);
        body.temperature[hot] = warm;
        Melting::default().heat(&mut body, longest);
        let expected = warm + DIFFUSIVITY * longest * (cold - warm);
        assert!(
            (body.temperature[hot] - expected).abs() < 1e-9,
            "{}",
            body.temperature[hot]
        );
    }
}
