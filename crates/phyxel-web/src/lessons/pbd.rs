//! Bindings and drawing for the PBD/XPBD lesson. The solver is [`phyxel::lessons::pbd`].

use crate::check;
use crate::view::{device_pixel_ratio, View};
use glam::DVec2;
use phyxel::lessons::pbd::{cloth, dropped_box, param, rope, PbdSystem, Projection, PARAMETERS};
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

#[wasm_bindgen]
pub struct PbdLesson {
    system: PbdSystem,
    mass: f64,
    view: View,
    /// The particle held by the pointer and whether it was fixed before.
    held: Option<(usize, bool)>,
}

#[wasm_bindgen]
impl PbdLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// "cloth" (the examples site's 40 × 30 cloth, spacing 0.2), "rope" or "box"; particle mass m.
    #[wasm_bindgen(constructor)]
    pub fn new(scene: &str, mass: f64) -> Result<PbdLesson, JsError> {
        let mass = check(param::MASS, mass)?;
        let (system, view) = match scene {
            "cloth" => (
                cloth(40, 30, 0.2, mass),
                View::equal_aspect(-1.0, 8.8, -7.0, 0.8),
            ),
            "rope" => (
                rope(20, 0.25, mass),
                View::equal_aspect(-5.5, 5.5, -5.8, 0.5),
            ),
            "box" => (dropped_box(mass), View::equal_aspect(-3.5, 3.5, -3.2, 3.2)),
            other => {
                return Err(JsError::new(&format!(
                    "unknown scene “{other}” (known: cloth, rope, box)"
                )))
            }
        };
        Ok(PbdLesson {
            system,
            mass,
            view,
            held: None,
        })
    }

    pub fn particle_count(&self) -> usize {
        self.system.positions.len()
    }

    pub fn constraint_count(&self) -> usize {
        self.system.constraints.len()
    }

    /// `steps` steps of Δt with `iterations` projections; `solver` is "pbd" (uses `stiffness`) or
    /// "xpbd" (uses `compliance`).
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        steps: f64,
        dt: f64,
        iterations: f64,
        solver: &str,
        stiffness: f64,
        compliance: f64,
        gravity: f64,
    ) -> Result<(), JsError> {
        let dt = check(param::DT, dt)?;
        let steps = crate::whole("steps", steps, 0.0, crate::MAX_STEPS_PER_CALL)?;
        let iterations = check(param::ITERATIONS, iterations)? as usize;
        let projection = match solver {
            "pbd" => Projection::Pbd {
                stiffness: check(param::STIFFNESS, stiffness)?,
            },
            "xpbd" => Projection::Xpbd {
                compliance: check(param::COMPLIANCE, compliance)?,
            },
            other => {
                return Err(JsError::new(&format!(
                    "unknown solver “{other}” (known: pbd, xpbd)"
                )))
            }
        };
        let gravity = DVec2::new(0.0, -check(param::GRAVITY, gravity)?);
        for _ in 0..steps {
            self.system.step(dt, iterations, gravity, projection);
        }
        Ok(())
    }

    /// The largest relative constraint violation |C|/d.
    pub fn max_relative_error(&self) -> f64 {
        self.system.max_relative_error()
    }

    /// Grab the particle nearest to the canvas point (px, py) within 20 CSS pixels; false if none.
    pub fn grab(&mut self, px: f64, py: f64, width: f64, height: f64) -> bool {
        let (x, y) = self.view.to_world(px, py, width, height);
        let (x1, _) = self
            .view
            .to_world(px + 20.0 * device_pixel_ratio(), py, width, height);
        match self.system.nearest(DVec2::new(x, y), (x1 - x).abs()) {
            Some(i) => {
                let was_fixed = self.system.inverse_masses[i] == 0.0;
                self.system.set_fixed(i, self.mass, true);
                self.held = Some((i, was_fixed));
                true
            }
            None => false,
        }
    }

    /// Move the held particle to the canvas point (px, py).
    pub fn drag_to(&mut self, px: f64, py: f64, width: f64, height: f64) {
        if let Some((i, _)) = self.held {
            let (x, y) = self.view.to_world(px, py, width, height);
            self.system.positions[i] = DVec2::new(x, y);
        }
    }

    /// Let go of the held particle (it becomes free again unless it was fixed).
    pub fn release(&mut self) {
        if let Some((i, was_fixed)) = self.held.take() {
            self.system.set_fixed(i, self.mass, was_fixed);
        }
    }

    /// Constraints as lines, particles as dots (fixed ones red).
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        let scale = device_pixel_ratio();
        let px = |p: DVec2| self.view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        if let Some(floor) = self.system.floor {
            let (_, y) = px(DVec2::new(0.0, floor));
            ctx.set_fill_style_str("#e5e7eb");
            ctx.fill_rect(0.0, y, width, height - y);
        }
        ctx.set_stroke_style_str("#1d4ed8");
        ctx.set_line_width(1.0 * scale);
        ctx.begin_path();
        for c in &self.system.constraints {
            let (ax, ay) = px(self.system.positions[c.a]);
            let (bx, by) = px(self.system.positions[c.b]);
            ctx.move_to(ax, ay);
            ctx.line_to(bx, by);
        }
        ctx.stroke();
        for (p, w) in self
            .system
            .positions
            .iter()
            .zip(&self.system.inverse_masses)
        {
            let (x, y) = px(*p);
            ctx.set_fill_style_str(if *w == 0.0 { "#d62828" } else { "#0f172a" });
            ctx.begin_path();
            let _ = ctx.arc(
                x,
                y,
                if *w == 0.0 { 4.0 } else { 1.8 } * scale,
                0.0,
                std::f64::consts::TAU,
            );
            ctx.fill();
        }
    }
}
