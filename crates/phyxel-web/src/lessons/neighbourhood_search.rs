//! Bindings and drawing for the neighbourhood-search lesson ([`phyxel::lessons::neighbourhood_search`]).

use crate::check;
use crate::view::{device_pixel_ratio, View};
use glam::DVec2;
use phyxel::lessons::neighbourhood_search::{check_work, neighbours_of, param, Swarm, PARAMETERS};
use phyxel::meshless::neighbours::Neighbourhoods;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

#[wasm_bindgen]
pub struct NeighbourhoodLesson {
    swarm: Swarm,
    hashed: Neighbourhoods,
    radius: f64,
    view: View,
}

#[wasm_bindgen]
impl NeighbourhoodLesson {
    /// The parameter table [{ name, min, max, integer, default }] the page builds its controls from.
    pub fn parameters() -> Result<JsValue, JsError> {
        crate::parameters(PARAMETERS)
    }

    /// `count` particles in [−1, 1]², searched with `radius`.
    #[wasm_bindgen(constructor)]
    pub fn new(count: f64, radius: f64) -> Result<NeighbourhoodLesson, JsError> {
        let count = check(param::COUNT, count)? as usize;
        let radius = check(param::RADIUS, radius)?;
        check_work(count, radius).map_err(|e| JsError::new(&e))?;
        let swarm = Swarm::new(count, 42);
        let hashed = swarm.hashed(radius);
        Ok(NeighbourhoodLesson {
            swarm,
            hashed,
            radius,
            view: View::equal_aspect(-1.05, 1.05, -1.05, 1.05),
        })
    }

    /// The search radius from the next search on; refused (the old one kept) beyond the work budget.
    pub fn set_radius(&mut self, radius: f64) -> Result<(), JsError> {
        let radius = check(param::RADIUS, radius)?;
        check_work(self.swarm.positions.len(), radius).map_err(|e| JsError::new(&e))?;
        self.radius = radius;
        Ok(())
    }

    pub fn count(&self) -> usize {
        self.swarm.positions.len()
    }

    pub fn advance(&mut self, dt: f64) {
        self.swarm.advance(dt);
    }

    /// Rebuild the hash grid and every neighbour list; returns the number of (ordered) neighbour pairs.
    pub fn hash_search(&mut self) -> usize {
        self.hashed = self.swarm.hashed(self.radius);
        self.hashed.neighbour.len()
    }

    /// Every neighbour list by brute force; returns the number of pairs and whether every list equals
    /// the hash grid's.
    pub fn brute_force_search(&self) -> Vec<f64> {
        let brute = self.swarm.brute_force(self.radius);
        let pairs: usize = brute.iter().map(Vec::len).sum();
        let agree = brute
            .iter()
            .enumerate()
            .all(|(i, list)| neighbours_of(&self.hashed, i) == *list);
        vec![pairs as f64, if agree { 1.0 } else { 0.0 }]
    }

    /// The neighbours of particle `query` (a whole number; none beyond the last particle) from the
    /// last hash search.
    pub fn neighbours(&self, query: f64) -> Result<Vec<u32>, JsError> {
        let query = crate::whole("the query particle", query, 0.0, f64::from(u32::MAX))?;
        Ok(if query < self.count() {
            neighbours_of(&self.hashed, query)
        } else {
            Vec::new()
        })
    }

    /// The particle nearest to canvas point (px, py).
    pub fn nearest(&self, px: f64, py: f64, width: f64, height: f64) -> u32 {
        let (x, y) = self.view.to_world(px, py, width, height);
        let target = DVec2::new(x, y);
        self.swarm
            .positions
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.distance(target).total_cmp(&b.1.distance(target)))
            .map_or(0, |(i, _)| i as u32)
    }

    /// Grid cells (edge = radius), the query's 3 × 3 block of cells, its search circle and neighbours.
    pub fn draw(
        &self,
        ctx: &CanvasRenderingContext2d,
        width: f64,
        height: f64,
        query: f64,
    ) -> Result<(), JsError> {
        let query = crate::whole("the query particle", query, 0.0, f64::from(u32::MAX))?;
        let dpr = device_pixel_ratio();
        let px = |p: DVec2| self.view.to_canvas(p.x, p.y, width, height);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, width, height);
        let h = self.radius;
        let query = query.min(self.count().saturating_sub(1));
        let q = self.swarm.positions[query];
        // The 3 × 3 cells the hash visits.
        let cell = (q / h).floor();
        ctx.set_fill_style_str("#fef3c7");
        let (bx0, by0) = px((cell - 1.0) * h);
        let (bx1, by1) = px((cell + 2.0) * h);
        ctx.fill_rect(
            bx0.min(bx1),
            by0.min(by1),
            (bx1 - bx0).abs(),
            (by1 - by0).abs(),
        );
        // Cell lines.
        ctx.set_stroke_style_str("#e5e7eb");
        ctx.set_line_width(dpr);
        ctx.begin_path();
        let lines = (1.05 / h).ceil() as i64;
        for k in -lines..=lines {
            let s = k as f64 * h;
            let (ax, ay) = px(DVec2::new(s, -1.05));
            let (bx, by) = px(DVec2::new(s, 1.05));
            ctx.move_to(ax, ay);
            ctx.line_to(bx, by);
            let (ax, ay) = px(DVec2::new(-1.05, s));
            let (bx, by) = px(DVec2::new(1.05, s));
            ctx.move_to(ax, ay);
            ctx.line_to(bx, by);
        }
        ctx.stroke();
        let dot = |p: DVec2, color: &str, r: f64| {
            let (x, y) = px(p);
            ctx.set_fill_style_str(color);
            ctx.begin_path();
            let _ = ctx.arc(x, y, r * dpr, 0.0, std::f64::consts::TAU);
            ctx.fill();
        };
        for p in &self.swarm.positions {
            dot(*p, "#94a3b8", 2.0);
        }
        for j in neighbours_of(&self.hashed, query) {
            dot(self.swarm.positions[j as usize], "#16a34a", 3.5);
        }
        dot(q, "#d62828", 4.5);
        let (cx, cy) = px(q);
        let (rx, _) = px(q + DVec2::new(h, 0.0));
        ctx.set_stroke_style_str("#d62828");
        ctx.begin_path();
        let _ = ctx.arc(cx, cy, (rx - cx).abs(), 0.0, std::f64::consts::TAU);
        ctx.stroke();
        Ok(())
    }
}
