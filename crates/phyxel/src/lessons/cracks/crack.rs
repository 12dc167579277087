//! Crack surfaces in the reference configuration (2D: polylines) and the weights they modify: the
//! visibility criterion and the transparency method (seed 002 §7.3, eq. 70).
//!
//! A crack is a polyline in the reference (material) plane with two ends. An end is a *front* (the crack
//! may grow there, and the transparency method measures d_s to it) until it leaves the body; then it lies
//! on the surface and is no longer a front.

use crate::meshless::kernel::poly6;
use glam::DVec2;

/// One end of a crack: where it is heading and whether it is still a front inside the body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrackEnd {
    /// Unit direction in which this end grows (outward along the crack).
    pub direction: DVec2,
    /// False once the end has left the body (or was cut in from the surface, like a notch's mouth):
    /// it is then part of the surface, not a crack front.
    pub is_front: bool,
}

/// A crack: a polyline in the reference configuration, from `vertices[0]` (end `start`) to its last
/// vertex (end `end`).
#[derive(Clone, Debug, PartialEq)]
pub struct Crack {
    pub vertices: Vec<DVec2>,
    pub start: CrackEnd,
    pub end: CrackEnd,
}

impl Crack {
    /// A straight crack from `a` to `b`; `front_a`, `front_b` say which ends are fronts.
    pub fn segment(a: DVec2, b: DVec2, front_a: bool, front_b: bool) -> Self {
        let t = (b - a).normalize_or(DVec2::X);
        Self {
            vertices: vec![a, b],
            start: CrackEnd {
                direction: -t,
                is_front: front_a,
            },
            end: CrackEnd {
                direction: t,
                is_front: front_b,
            },
        }
    }

    /// The crack fronts' positions (ends still inside the body).
    pub fn fronts(&self) -> impl Iterator<Item = DVec2> + '_ {
        let first = self.vertices[0];
        let last = *self.vertices.last().unwrap_or(&first);
        [(first, self.start.is_front), (last, self.end.is_front)]
            .into_iter()
            .filter(|&(_, front)| front)
            .map(|(p, _)| p)
    }

    /// d_s for the crossing point `x_s`: the distance to the nearest crack front, ∞ when the crack has
    /// no front left (it cuts through; no interaction passes it).
    pub fn distance_to_front(&self, x_s: DVec2) -> f64 {
        self.fronts()
            .map(|f| f.distance(x_s))
            .fold(f64::INFINITY, f64::min)
    }

    /// The polyline's bounding box (lower, upper corner).
    pub fn bounds(&self) -> (DVec2, DVec2) {
        self.vertices.iter().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), v| (lo.min(*v), hi.max(*v)),
        )
    }

    /// The segments of the polyline.
    pub fn segments(&self) -> impl Iterator<Item = (DVec2, DVec2)> + '_ {
        self.vertices.windows(2).map(|w| (w[0], w[1]))
    }

    /// Where the segment from `p` to `q` crosses this crack, if it does: the crossing point farthest
    /// from the fronts (a segment crossing a bent crack twice is cut by its worse crossing).
    pub fn crossing(&self, p: DVec2, q: DVec2) -> Option<DVec2> {
        let (lo, hi) = self.bounds();
        if p.max(q).cmplt(lo).any() || p.min(q).cmpgt(hi).any() {
            return None;
        }
        let mut found: Option<(DVec2, f64)> = None;
        for (a, b) in self.segments() {
            if let Some(x) = segment_crossing(p, q, a, b) {
                let d = self.distance_to_front(x);
                if found.is_none_or(|(_, best)| d > best) {
                    found = Some((x, d));
                }
            }
        }
        found.map(|(x, _)| x)
    }

    /// The shortest distance from `x` to the polyline.
    pub fn distance(&self, x: DVec2) -> f64 {
        self.segments()
            .map(|(a, b)| point_segment_distance(x, a, b))
            .fold(f64::INFINITY, f64::min)
    }
}

/// Where segment p→q meets segment a→b (both closed), if it does; parallel segments never do.
pub fn segment_crossing(p: DVec2, q: DVec2, a: DVec2, b: DVec2) -> Option<DVec2> {
    let r = q - p;
    let s = b - a;
    let denominator = r.perp_dot(s);
    if denominator == 0.0 {
        return None;
    }
    let ap = a - p;
    let t = ap.perp_dot(s) / denominator;
    let u = ap.perp_dot(r) / denominator;
    ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then(|| a + s * u)
}

/// Distance from `x` to the closed segment a→b (the 3D solver's crack planes measure theirs so).
pub use crate::meshless::fracture::crack::point_segment_distance;

/// How cracks modify the weight between two points (seed 002 §7.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Criterion {
    /// Belytschko's visibility criterion: a pair whose connecting segment crosses a crack does not
    /// interact at all (ω' = 0).
    Visibility,
    /// Organ's transparency method, seed 002 eq. 70: ω'_ij = ω(‖x_j − x_i‖/h + (d_s/κh)²), with d_s
    /// the distance from the crossing point to the crack front; κ > 0 sets how far from the front a
    /// crack becomes opaque.
    Transparency { kappa: f64 },
}

/// The weight profile ω(q) of the normalised distance q = r/h: MKN04's poly6 (its eq. 7),
/// ω(q) = 315/(64π h⁹) (h² − q²h²)³ for q < 1, else 0 — the phyxel solver's own weight.
pub fn omega(q: f64, h: f64) -> f64 {
    if q >= 1.0 {
        0.0
    } else {
        poly6(q * h, h)
    }
}

/// The modified weight ω'_ij between `x_i` and `x_j` (support radius h) under `criterion`:
/// the uncut ω(‖x_j − x_i‖/h) when the segment between them crosses no crack; across cracks 0
/// (visibility) or, seed 002 eq. 70, ω(‖x_j − x_i‖/h + Σ_c (d_s,c/κh)²) (transparency, one term per
/// crack crossed).
pub fn modified_weight(
    x_i: DVec2,
    x_j: DVec2,
    h: f64,
    cracks: &[Crack],
    criterion: Criterion,
) -> f64 {
    let q = x_i.distance(x_j) / h;
    if q >= 1.0 {
        return 0.0;
    }
    let mut penalty = 0.0;
    for crack in cracks {
        if let Some(x_s) = crack.crossing(x_i, x_j) {
            match criterion {
                Criterion::Visibility => return 0.0,
                Criterion::Transparency { kappa } => {
                    let d_s = crack.distance_to_front(x_s);
                    penalty += (d_s / (kappa * h)).powi(2);
                }
            }
        }
    }
    omega(q + penalty, h)
}
