//! Bindings and drawing for the deformation-gradient lesson. The estimate is
//! [`phyxel::lessons::deformation`] — the phyxel solver's MLS on one neighbourhood.

use crate::check;
use crate::view::{device_pixel_ratio, View};
use glam::{DMat3, DVec3};
use phyxel::lessons::deformation::{linear_map, param, Neighbourhood, PARAMETERS, SUPPORT_RADIUS};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// The in-plane 2×2 blocks, row-major: [a11, a12, a21, a22].
#[derive(Serialize)]
struct Matrices {
    map: [f64; 4],
    deformation_gradient: [f64; 4],
    green: [f64; 4],
    cauchy: [f64; 4],
}

fn block(m: DMat3) -> [f64; 4] {
    [m.x_axis.x, m.y_axis.x, m.x_axis.y, m.y_axis.y]
}

#[wasm_bindgen]
pub struct DeformationLesson {
    neighbourhood: Neighbourhood,
    map: DMat3,
    view: View,
}

#[wasm_bindgen]
impl DeformationLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    #[wasm_bindgen(constructor)]
    pub fn new() -> DeformationLesson {
        DeformationLesson {
            neighbourhood: Neighbourhood::new(7),
            map: DMat3::IDENTITY,
            view: View::equal_aspect(-2.6, 2.6, -2.0, 2.0),
        }
    }

    /// T = R(θ)·S·U with θ in degrees, scales s_x, s_y and shear γ.
    pub fn set_map(
        &mut self,
        angle_deg: f64,
        scale_x: f64,
        scale_y: f64,
        shear: f64,
    ) -> Result<(), JsError> {
        let angle = check(param::ANGLE, angle_deg)?.to_radians();
        self.map = linear_map(
            angle,
            check(param::SCALE_X, scale_x)?,
            check(param::SCALE_Y, scale_y)?,
            check(param::SHEAR, shear)?,
        );
        Ok(())
    }

    /// T, the MLS estimate of F, and the Green and Cauchy strains (in-plane 2×2 blocks).
    pub fn matrices(&self) -> Result<JsValue, JsError> {
        let estimate = self.neighbourhood.estimate(self.map);
        let matrices = Matrices {
            map: block(self.map),
            deformation_gradient: block(estimate.deformation_gradient),
            green: block(estimate.green),
            cauchy: block(estimate.cauchy),
        };
        serde_wasm_bindgen::to_value(&matrices).map_err(|e| JsError::new(&e.to_string()))
    }

    pub fn neighbour_count(&self) -> usize {
        self.neighbourhood.reference.len() - 1
    }

    /// Draw the reference neighbourhood (grey, with the support circle) and the deformed one (blue).
    pub fn draw(&self, ctx: &CanvasRenderingContext2d, width: f64, height: f64) {
        let dpr = device_pixel_ratio();
        let px = |p: DVec3| self.view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        // The support circle, before and after the map.
        let circle: Vec<DVec3> = (0..=96)
            .map(|k| {
                DVec3::from((
                    SUPPORT_RADIUS
                        * glam::DVec2::from_angle(k as f64 / 96.0 * std::f64::consts::TAU),
                    0.0,
                ))
            })
            .collect();
        let outline = |points: &[DVec3], color: &str, dashed: bool| {
            ctx.set_stroke_style_str(color);
            ctx.set_line_width(1.5 * dpr);
            let dash = js_sys::Array::new();
            if dashed {
                dash.push(&JsValue::from(6.0 * dpr));
                dash.push(&JsValue::from(4.0 * dpr));
            }
            let _ = ctx.set_line_dash(&dash);
            ctx.begin_path();
            for (i, p) in points.iter().enumerate() {
                let (x, y) = px(*p);
                if i == 0 {
                    ctx.move_to(x, y);
                } else {
                    ctx.line_to(x, y);
                }
            }
            ctx.stroke();
        };
        outline(&circle, "#bbb", true);
        outline(
            &circle.iter().map(|p| self.map * *p).collect::<Vec<_>>(),
            "#93c5fd",
            true,
        );
        let dots = |points: &[DVec3], color: &str, radius: f64| {
            ctx.set_fill_style_str(color);
            for p in points {
                let (x, y) = px(*p);
                ctx.begin_path();
                let _ = ctx.arc(x, y, radius * dpr, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
        };
        dots(&self.neighbourhood.reference, "#9ca3af", 3.5);
        let deformed = self.neighbourhood.deformed(self.map);
        // Spokes from the phyxel to its neighbours: x_ij after the map.
        for p in &deformed[1..] {
            outline(&[deformed[0], *p], "#bfdbfe", false);
        }
        dots(&deformed, "#1d4ed8", 4.5);
        dots(&deformed[..1], "#d62828", 6.0);
    }
}

impl Default for DeformationLesson {
    fn default() -> Self {
        Self::new()
    }
}
