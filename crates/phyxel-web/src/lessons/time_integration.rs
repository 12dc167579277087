//! Bindings and canvas rendering for the time-integration lesson. The physics is
//! [`phyxel::lessons::time_integration`]; this file only moves numbers to and from the page and draws.

use crate::view::{device_pixel_ratio, View};
use phyxel::integrators::Method;
use phyxel::lessons::time_integration::{
    Comparison, MethodReadout, Projectile, Scene, Spring, PARAMETERS,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// Points kept per trail on the projectile view.
const TRAIL_LENGTH: usize = 4000;

#[derive(Serialize)]
struct MethodInfo {
    id: &'static str,
    name: &'static str,
    order: u32,
    symplectic: bool,
}

#[derive(Serialize)]
struct Readout {
    id: &'static str,
    x: f64,
    y: f64,
    energy: f64,
    error: f64,
    diverged: Option<String>,
}

#[derive(Serialize)]
struct Snapshot {
    time: f64,
    /// The analytic solution at `time`.
    exact: ExactPoint,
    methods: Vec<Readout>,
}

#[derive(Serialize)]
struct ExactPoint {
    x: f64,
    y: f64,
    energy: f64,
}

/// The lesson's simulation as the page sees it.
#[wasm_bindgen]
pub struct TimeIntegrationLesson {
    scene: Scene,
    comparison: Comparison,
    /// Projectile trails, one per method (positions at every step).
    trails: Vec<Vec<(f64, f64)>>,
    view: View,
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(value).map_err(|e| JsError::new(&e.to_string()))
}

#[wasm_bindgen]
impl TimeIntegrationLesson {
    /// The spring scene: stiffness k, mass m, released at rest from x₀.
    pub fn spring(k: f64, m: f64, x0: f64) -> Result<TimeIntegrationLesson, JsError> {
        Self::build(Scene::Spring {
            spring: Spring {
                stiffness: k,
                mass: m,
            },
            x0,
        })
    }

    /// The projectile scene: gravity g, mass m, launch speed v₀ and angle (degrees).
    pub fn projectile(
        g: f64,
        m: f64,
        v0: f64,
        angle_deg: f64,
    ) -> Result<TimeIntegrationLesson, JsError> {
        Self::build(Scene::Projectile {
            projectile: Projectile {
                gravity: g,
                mass: m,
            },
            speed: v0,
            angle_deg,
        })
    }

    fn build(scene: Scene) -> Result<TimeIntegrationLesson, JsError> {
        let comparison = Comparison::new(scene).map_err(|e| JsError::new(&e.to_string()))?;
        let view = match scene {
            Scene::Spring { x0, .. } => {
                let half_width = 1.3 * x0.abs().max(0.5);
                View::stretched(-half_width, half_width, -1.0, 1.0)
            }
            Scene::Projectile { .. } => {
                let t_end = flight_time(&scene);
                let (mut x_min, mut x_max, mut y_min, mut y_max) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
                for i in 0..=100 {
                    let (x, y, _) = comparison.exact(t_end * i as f64 / 100.0);
                    (x_min, x_max, y_min, y_max) =
                        (x_min.min(x), x_max.max(x), y_min.min(y), y_max.max(y));
                }
                let pad = 0.08 * (x_max - x_min).max(y_max - y_min).max(1e-3);
                View::equal_aspect(x_min - pad, x_max + pad, y_min - pad, y_max + pad)
            }
        };
        let trails = vec![Vec::new(); Method::ALL.len()];
        Ok(TimeIntegrationLesson {
            scene,
            comparison,
            trails,
            view,
        })
    }

    /// Every method: id, name, order, whether symplectic.
    pub fn methods() -> Result<JsValue, JsError> {
        let info: Vec<_> = Method::ALL
            .iter()
            .map(|m| MethodInfo {
                id: m.id(),
                name: m.name(),
                order: m.order(),
                symplectic: m.is_symplectic(),
            })
            .collect();
        to_js(&info)
    }

    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// Advance every method by `steps` steps of `dt`. The projectile restarts after it landed.
    pub fn step(&mut self, dt: f64, steps: f64) -> Result<(), JsError> {
        let steps = crate::whole("steps", steps, 0.0, crate::MAX_STEPS_PER_CALL)?;
        for _ in 0..steps {
            self.comparison
                .step(dt)
                .map_err(|e| JsError::new(&e.to_string()))?;
            if let Scene::Projectile { .. } = self.scene {
                if self.comparison.time() > 1.1 * flight_time(&self.scene) {
                    self.restart();
                }
                for (trail, r) in self.trails.iter_mut().zip(self.comparison.readouts()) {
                    if trail.len() < TRAIL_LENGTH && !r.diverged {
                        trail.push((r.x, r.y));
                    }
                }
            }
        }
        Ok(())
    }

    /// Back to t = 0 with the same parameters.
    pub fn restart(&mut self) {
        // The scene was validated when the lesson was built.
        if let Ok(fresh) = Comparison::new(self.scene) {
            self.comparison = fresh;
        }
        self.trails.iter_mut().for_each(Vec::clear);
    }

    pub fn time(&self) -> f64 {
        self.comparison.time()
    }

    /// Time, analytic solution and every method's position, energy, error and blow-up explanation.
    pub fn snapshot(&self) -> Result<JsValue, JsError> {
        let time = self.comparison.time();
        let (x, y, energy) = self.comparison.exact(time);
        let methods = self
            .comparison
            .readouts()
            .into_iter()
            .map(|r: MethodReadout| Readout {
                id: r.method.id(),
                x: r.x,
                y: r.y,
                energy: r.energy,
                error: r.error,
                diverged: self.comparison.divergence(r.method).map(str::to_owned),
            })
            .collect::<Vec<_>>();
        to_js(&Snapshot {
            time,
            exact: ExactPoint { x, y, energy },
            methods,
        })
    }

    /// The world position under canvas pixel (px, py) on a canvas of the given size.
    pub fn canvas_to_world(&self, px: f64, py: f64, width: f64, height: f64) -> Vec<f64> {
        let (x, y) = self.view.to_world(px, py, width, height);
        vec![x, y]
    }

    /// Draw the scene. `colors[i]` is the CSS colour of method i (in [`Method::ALL`] order), `enabled[i]`
    /// whether it is shown; `drag` is an optional world point being dragged to, drawn as a preview.
    pub fn draw(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        colors: Vec<String>,
        enabled: Vec<u8>,
        drag: Option<Vec<f64>>,
    ) {
        let dpr = device_pixel_ratio();
        let style = Style {
            ctx,
            view: &self.view,
            width,
            height,
            dpr,
        };
        style.clear();
        let shown = |i: usize| enabled.get(i).copied().unwrap_or(1) != 0;
        let color = |i: usize| colors.get(i).map(String::as_str).unwrap_or("#444");
        let readouts = self.comparison.readouts();
        match self.scene {
            Scene::Spring { .. } => {
                let rows = readouts.len() + 1;
                let row_y = |row: usize| 0.9 - 1.8 * (row as f64 + 0.5) / rows as f64;
                style.vertical_line(0.0, "#bbb");
                let (exact, _, _) = self.comparison.exact(self.comparison.time());
                style.spring_row(row_y(0), exact, "#2a9d3a", true);
                for (i, r) in readouts.iter().enumerate() {
                    if shown(i) {
                        style.spring_row(row_y(i + 1), r.x, color(i), false);
                    }
                }
                if let Some(p) = drag.as_deref() {
                    style.vertical_line(p[0], "#e76f51");
                }
            }
            Scene::Projectile { .. } => {
                style.horizontal_line(0.0, "#bbb");
                let t_end = 1.1 * flight_time(&self.scene);
                let path: Vec<_> = (0..=200)
                    .map(|i| {
                        let (x, y, _) = self.comparison.exact(t_end * i as f64 / 200.0);
                        (x, y)
                    })
                    .collect();
                style.polyline(&path, "#2a9d3a", 2.0, true);
                let (ex, ey, _) = self.comparison.exact(self.comparison.time());
                style.ball(ex, ey, "#2a9d3a", true);
                for (i, r) in readouts.iter().enumerate() {
                    if shown(i) {
                        style.polyline(&self.trails[i], color(i), 1.5, false);
                        style.ball(r.x, r.y, color(i), false);
                    }
                }
                if let Some(p) = drag.as_deref() {
                    style.polyline(&[(0.0, 0.0), (p[0], p[1])], "#e76f51", 2.0, true);
                }
            }
        }
    }
}

/// How long the projectile is shown before the lesson restarts it: until it is back at launch height
/// (t = 2v₀ sin θ / g), at least 0.5 s and at most 20 s.
fn flight_time(scene: &Scene) -> f64 {
    match *scene {
        Scene::Projectile {
            projectile,
            speed,
            angle_deg,
        } => {
            let vy = speed * angle_deg.to_radians().sin();
            if projectile.gravity > 0.0 && vy > 0.0 {
                (2.0 * vy / projectile.gravity).clamp(0.5, 20.0)
            } else {
                2.0
            }
        }
        Scene::Spring { .. } => f64::INFINITY,
    }
}

/// Drawing helpers in world coordinates.
struct Style<'a> {
    ctx: &'a CanvasRenderingContext2d,
    view: &'a View,
    width: f64,
    height: f64,
    /// Device pixels per CSS pixel: line widths and radii are given in CSS pixels.
    dpr: f64,
}

impl Style<'_> {
    fn px(&self, x: f64, y: f64) -> (f64, f64) {
        self.view.to_canvas(x, y, self.width, self.height)
    }

    fn clear(&self) {
        self.ctx.set_fill_style_str("#fff");
        self.ctx.fill_rect(0.0, 0.0, self.width, self.height);
    }

    fn line_style(&self, color: &str, width: f64, dashed: bool) {
        self.ctx.set_stroke_style_str(color);
        self.ctx.set_line_width(width * self.dpr);
        let dash = js_sys::Array::new();
        if dashed {
            dash.push(&JsValue::from(6.0));
            dash.push(&JsValue::from(4.0));
        }
        let _ = self.ctx.set_line_dash(&dash);
    }

    fn polyline(&self, points: &[(f64, f64)], color: &str, width: f64, dashed: bool) {
        if points.len() < 2 {
            return;
        }
        self.line_style(color, width, dashed);
        self.ctx.begin_path();
        for (i, &(x, y)) in points.iter().enumerate() {
            let (px, py) = self.px(x, y);
            if i == 0 {
                self.ctx.move_to(px, py);
            } else {
                self.ctx.line_to(px, py);
            }
        }
        self.ctx.stroke();
    }

    fn vertical_line(&self, x: f64, color: &str) {
        let (bottom, top) = self.view.y_range();
        self.polyline(&[(x, bottom), (x, top)], color, 1.0, true);
    }

    fn horizontal_line(&self, y: f64, color: &str) {
        let (left, right) = self.view.x_range();
        self.polyline(&[(left, y), (right, y)], color, 1.0, true);
    }

    fn ball(&self, x: f64, y: f64, color: &str, hollow: bool) {
        let (px, py) = self.px(x, y);
        let r = 7.0 * self.dpr;
        self.ctx.begin_path();
        let _ = self.ctx.arc(px, py, r, 0.0, std::f64::consts::TAU);
        if hollow {
            self.line_style(color, 2.5, false);
            self.ctx.stroke();
        } else {
            self.ctx.set_fill_style_str(color);
            self.ctx.fill();
        }
    }

    /// A zig-zag spring from the anchor at x = 0 to the mass at x, on one row of the spring view.
    fn spring_row(&self, y: f64, x: f64, color: &str, hollow: bool) {
        let coils = 12;
        let amplitude = 0.25 * 1.8 / (Method::ALL.len() as f64 + 1.0);
        let points: Vec<_> = (0..=2 * coils)
            .map(|i| {
                let s = i as f64 / (2 * coils) as f64;
                let wiggle = if i == 0 || i == 2 * coils {
                    0.0
                } else if i % 2 == 0 {
                    amplitude
                } else {
                    -amplitude
                };
                (s * x, y + wiggle)
            })
            .collect();
        self.polyline(&points, if hollow { "#9c9" } else { "#999" }, 1.0, false);
        self.ball(x, y, color, hollow);
    }
}
