//! Bindings and drawing for the SPH fluids lesson. The physics is [`phyxel::fluids`] (the solvers)
//! and [`phyxel::lessons::sph_fluids`] (the page's scene and parameters).

use crate::colour::colour_scale;
use crate::view::{device_pixel_ratio, View};
use glam::DVec2;
use phyxel::fluids::surface::Surface;
use phyxel::fluids::{FloatingBody, FluidSimulation, Solver};
use phyxel::lessons::sph_fluids::{
    apply, dam_break, drop_body, stir, submerged_fraction, Settings, BOX_HEIGHT, BOX_LENGTH,
    COLUMN_WIDTH, PARAMETERS,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

#[derive(Serialize)]
struct Report {
    solver: &'static str,
    particles: usize,
    time: f64,
    dt: f64,
    steps: u64,
    /// Mean compression (ρ − ρ₀)⁺/ρ₀ and the largest.
    density_error: f64,
    max_density_error: f64,
    iterations: u32,
    max_speed: f64,
    /// Σ m (kg per metre of depth).
    mass: f64,
    /// The body's submerged fraction and Archimedes' ρ_body/ρ₀, with a body.
    submerged: Option<f64>,
    archimedes: Option<f64>,
    /// The refusal that stopped the last advance, if any.
    error: Option<String>,
}

/// The dam break in the lesson worker.
#[wasm_bindgen]
pub struct SphFluidsLesson {
    simulation: FluidSimulation,
    /// The dropped body (`body` > 0), coupled both ways.
    body: Option<FloatingBody>,
    settings: Settings,
    surface: Surface,
    view: View,
    error: Option<String>,
}

fn to_js(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

#[wasm_bindgen]
impl SphFluidsLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// The dam break with `solver` ("wcsph", "dfsph" or "pbf") and a body of ρ_body/ρ₀ = `body` (0: none).
    #[wasm_bindgen(constructor)]
    pub fn new(
        solver: &str,
        across: f64,
        xsph: f64,
        iterations: f64,
        sound: f64,
        body: f64,
    ) -> Result<SphFluidsLesson, JsError> {
        let settings = Settings::new(across, xsph, iterations, sound)
            .and_then(|s| s.with_body(body))
            .map_err(to_js)?;
        let solver = Solver::from_id(solver).map_err(to_js)?;
        let mut simulation = dam_break(settings, solver).map_err(to_js)?;
        let body = drop_body(&mut simulation, settings).map_err(to_js)?;
        let a = COLUMN_WIDTH;
        let spacing = simulation.fluid.spacing();
        Ok(SphFluidsLesson {
            surface: Surface::new(
                DVec2::splat(-2.0 * spacing),
                DVec2::new(BOX_LENGTH * a + 2.0 * spacing, 2.0 * BOX_HEIGHT * a),
                0.5 * spacing,
            ),
            simulation,
            body,
            settings,
            view: View::equal_aspect(
                -0.05 * a,
                (BOX_LENGTH + 0.05) * a,
                -0.05 * a,
                (BOX_HEIGHT + 0.05) * a,
            ),
            error: None,
        })
    }

    /// Back to the column at rest (same solver and parameters).
    pub fn restart(&mut self) -> Result<(), JsError> {
        let mut simulation = dam_break(self.settings, self.simulation.solver).map_err(to_js)?;
        self.body = drop_body(&mut simulation, self.settings).map_err(to_js)?;
        self.simulation = simulation;
        self.error = None;
        Ok(())
    }

    /// Switch the solver; the particles, their velocities and the body carry over (every solver
    /// carries a body).
    pub fn set_solver(&mut self, solver: &str) -> Result<(), JsError> {
        let solver = Solver::from_id(solver).map_err(to_js)?;
        self.simulation.set_solver(solver);
        self.error = None;
        Ok(())
    }

    /// Change ξ, the iteration limit and WCSPH's speed of sound on the running fluid; a new particle
    /// count or body restarts it.
    pub fn set_parameters(
        &mut self,
        across: f64,
        xsph: f64,
        iterations: f64,
        sound: f64,
        body: f64,
    ) -> Result<(), JsError> {
        let settings = Settings::new(across, xsph, iterations, sound)
            .and_then(|s| s.with_body(body))
            .map_err(to_js)?;
        let restart =
            settings.across != self.settings.across || settings.body != self.settings.body;
        self.settings = settings;
        if restart {
            self.restart()
        } else {
            apply(&mut self.simulation, settings);
            Ok(())
        }
    }

    /// Step until `seconds` more are simulated or `max_steps` are taken; returns the steps taken. A
    /// refused step stops it and is reported (`report().error`) until the next restart or change.
    pub fn advance(&mut self, seconds: f64, max_steps: u32) -> u32 {
        if self.error.is_some() || !(seconds.is_finite() && seconds > 0.0) {
            return 0;
        }
        let end = self.simulation.fluid.time + seconds;
        let mut steps = 0;
        while steps < max_steps && self.simulation.fluid.time < end {
            let result = match &mut self.body {
                Some(body) => body.step(&mut self.simulation),
                None => self.simulation.step(),
            };
            if let Err(error) = result {
                self.error = Some(error.to_string());
                break;
            }
            steps += 1;
        }
        steps
    }

    pub fn time(&self) -> f64 {
        self.simulation.fluid.time
    }

    /// Stir at the canvas point (px, py) moving at (vx, vy) canvas pixels per second.
    pub fn stir(&mut self, px: f64, py: f64, vx: f64, vy: f64, width: f64, height: f64) {
        if ![px, py, vx, vy, width, height]
            .iter()
            .all(|v| v.is_finite())
            || width <= 0.0
            || height <= 0.0
        {
            return;
        }
        let (x, y) = self.view.to_world(px, py, width, height);
        let (x1, y1) = self.view.to_world(px + vx, py + vy, width, height);
        let velocity = DVec2::new(x1 - x, y1 - y).clamp_length_max(5.0);
        self.simulation.fluid.stir = Some(stir(DVec2::new(x, y), velocity));
    }

    pub fn stop_stir(&mut self) {
        self.simulation.fluid.stir = None;
    }

    pub fn report(&self) -> Result<JsValue, JsError> {
        let s = &self.simulation;
        let f = &s.fluid;
        let fraction = self.body.as_ref().and_then(|b| submerged_fraction(s, b));
        let report = Report {
            solver: s.solver.name(),
            particles: f.len(),
            time: f.time,
            dt: s.last.dt,
            steps: s.steps(),
            density_error: f.density_error(),
            max_density_error: f.max_density_error(),
            iterations: s.last.iterations,
            max_speed: f.max_speed(),
            mass: f.total_mass(),
            submerged: fraction.map(|(s, _)| s),
            archimedes: fraction.map(|(_, a)| a),
            error: self.error.clone(),
        };
        serde_wasm_bindgen::to_value(&report).map_err(to_js)
    }

    /// Particles coloured by `colour_by` ("density": ρ/ρ₀ from 0.98 to 1.02; "pressure": p over
    /// ρ₀ g 2a; "speed": |v| over √(2 g 2a)), the walls in grey and the free surface (marching
    /// squares) in blue; a body's particles in brown.
    pub fn draw(
        &mut self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        colour_by: &str,
    ) {
        let dpr = device_pixel_ratio();
        let view = self.view;
        let px = |p: DVec2| view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let f = &self.simulation.fluid;
        let (x0, _) = px(DVec2::ZERO);
        let (x1, _) = px(DVec2::X * f.spacing());
        let radius = (0.5 * (x1 - x0)).clamp(0.8 * dpr, 8.0 * dpr);
        let first = self.body.as_ref().map_or(f.boundary.x.len(), |b| b.first);
        ctx.set_fill_style_str("#9ca3af");
        for &b in &f.boundary.x[..first] {
            let (x, y) = px(b);
            ctx.fill_rect(x - radius, y - radius, 2.0 * radius, 2.0 * radius);
        }
        if let Some(body) = &self.body {
            ctx.set_fill_style_str("#92400e");
            for &b in &body.solid.positions {
                let (x, y) = px(b);
                ctx.fill_rect(x - radius, y - radius, 2.0 * radius, 2.0 * radius);
            }
        }
        let rho0 = f.rest_density();
        let g = f.settings.gravity.length();
        let height_scale = 2.0 * COLUMN_WIDTH;
        for i in 0..f.len() {
            let t = match colour_by {
                "pressure" => f.pressure[i] / (rho0 * g * height_scale),
                "speed" => f.v[i].length() / (2.0 * g * height_scale).sqrt(),
                _ => (f.density[i] / rho0 - 0.98) / 0.04,
            };
            ctx.set_fill_style_str(&colour_scale(t.clamp(0.0, 1.0)));
            let (x, y) = px(f.x[i]);
            ctx.begin_path();
            let _ = ctx.arc(x, y, radius, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        self.surface.extract(f);
        ctx.set_stroke_style_str("#1d4ed8");
        ctx.set_line_width(1.5 * dpr);
        ctx.begin_path();
        for &(a, b) in &self.surface.segments {
            let (ax, ay) = px(a);
            let (bx, by) = px(b);
            ctx.move_to(ax, ay);
            ctx.line_to(bx, by);
        }
        ctx.stroke();
    }
}
