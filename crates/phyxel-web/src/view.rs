//! World ↔ canvas coordinates for the 2D lesson views.

/// Device pixels per CSS pixel, for line widths and dot sizes: `globalThis.devicePixelRatio`, which a
/// page has and a lesson worker is given by its page (`web/js/workers/lesson-worker.js`); 1 where it is not set.
pub fn device_pixel_ratio() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"devicePixelRatio".into())
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// A world rectangle mapped onto a canvas (y up in the world, down on the canvas).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    x_range: (f64, f64),
    y_range: (f64, f64),
    /// Keep one world unit the same length in x and y (centred, letterboxed).
    equal_aspect: bool,
}

impl View {
    /// Fill the canvas, scaling x and y independently.
    pub fn stretched(x_min: f64, x_max: f64, y_min: f64, y_max: f64) -> Self {
        Self {
            x_range: (x_min, x_max),
            y_range: (y_min, y_max),
            equal_aspect: false,
        }
    }

    /// Show at least the rectangle, with equal scales in x and y.
    pub fn equal_aspect(x_min: f64, x_max: f64, y_min: f64, y_max: f64) -> Self {
        Self {
            x_range: (x_min, x_max),
            y_range: (y_min, y_max),
            equal_aspect: true,
        }
    }

    pub fn x_range(&self) -> (f64, f64) {
        self.x_range
    }

    pub fn y_range(&self) -> (f64, f64) {
        self.y_range
    }

    /// Pixels per world unit in x and y, and the canvas position of the world rectangle's centre.
    fn transform(self, width: f64, height: f64) -> (f64, f64, f64, f64) {
        let (w, h) = (
            self.x_range.1 - self.x_range.0,
            self.y_range.1 - self.y_range.0,
        );
        let (mut sx, mut sy) = (width / w, height / h);
        if self.equal_aspect {
            sx = sx.min(sy);
            sy = sx;
        }
        (
            sx,
            sy,
            0.5 * (self.x_range.0 + self.x_range.1),
            0.5 * (self.y_range.0 + self.y_range.1),
        )
    }

    pub fn to_canvas(self, x: f64, y: f64, width: f64, height: f64) -> (f64, f64) {
        let (sx, sy, cx, cy) = self.transform(width, height);
        (0.5 * width + (x - cx) * sx, 0.5 * height - (y - cy) * sy)
    }

    pub fn to_world(self, px: f64, py: f64, width: f64, height: f64) -> (f64, f64) {
        let (sx, sy, cx, cy) = self.transform(width, height);
        (cx + (px - 0.5 * width) / sx, cy - (py - 0.5 * height) / sy)
    }
}

#[cfg(test)]
mod tests {
    use super::View;

    #[test]
    fn canvas_and_world_coordinates_invert_each_other() {
        for view in [
            View::stretched(-2.0, 3.0, -1.0, 1.0),
            View::equal_aspect(0.0, 10.0, -1.0, 4.0),
        ] {
            for (x, y) in [(0.0, 0.0), (2.5, -0.7), (-1.0, 0.9)] {
                let (px, py) = view.to_canvas(x, y, 640.0, 300.0);
                let (wx, wy) = view.to_world(px, py, 640.0, 300.0);
                assert!((wx - x).abs() < 1e-12 && (wy - y).abs() < 1e-12);
            }
        }
        // The stretched view puts its corners on the canvas corners, y pointing up.
        let view = View::stretched(-2.0, 3.0, -1.0, 1.0);
        assert_eq!(view.to_canvas(-2.0, 1.0, 640.0, 300.0), (0.0, 0.0));
        assert_eq!(view.to_canvas(3.0, -1.0, 640.0, 300.0), (640.0, 300.0));
        // Equal aspect: one world unit has the same length in x and y.
        let view = View::equal_aspect(0.0, 10.0, -1.0, 4.0);
        let (x0, y0) = view.to_canvas(0.0, 0.0, 640.0, 300.0);
        let (x1, y1) = view.to_canvas(1.0, 1.0, 640.0, 300.0);
        assert!(((x1 - x0) - (y0 - y1)).abs() < 1e-12);
    }
}
