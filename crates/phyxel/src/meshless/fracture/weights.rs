//! The weights cracks leave (seed 002 §7.3): the visibility criterion and the transparency method
//! (eq. 70) for one pair, the uncut weights of a body, and the pieces a cut body falls into.

use super::crack::Crack;
use crate::meshless::body::Body;
use crate::meshless::kernel::poly6;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// How cracks modify the weight of a pair (seed 002 §7.3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "criterion", rename_all = "kebab-case")]
pub enum Criterion {
    /// Belytschko's visibility criterion: a pair whose segment crosses a crack does not interact.
    Visibility,
    /// Organ's transparency method, seed 002 eq. 70: ω'_ij = ω(|X_ij|/h_i + Σ_c (d_s,c/κh_i)²), d_s
    /// the distance from the crossing point to the crack's front; κ > 0 sets how far behind the front
    /// a crack becomes opaque.
    Transparency { kappa: f64 },
}

/// The modified weight ω'_ij of the pair X_i = `p`, X_j = `q` (support radius h) under `criterion`:
/// the uncut w(|X_ij|, h) (MKN04 eq. 7) where the segment crosses no crack, exactly; across a crack 0
/// (visibility) or w((|X_ij|/h + Σ_c (d_s,c/κh)²) h, h) (transparency, seed 002 eq. 70, one term per
/// crack crossed; 0 once the normalised distance reaches 1).
pub fn modified_weight(p: DVec3, q: DVec3, h: f64, cracks: &[Crack], criterion: Criterion) -> f64 {
    let r = p.distance(q);
    let mut penalty = 0.0;
    for crack in cracks.iter().filter(|c| c.may_cross(p, q)) {
        if let Some(x_s) = crack.crossing(p, q) {
            match criterion {
                Criterion::Visibility => return 0.0,
                Criterion::Transparency { kappa } => {
                    penalty += (crack.distance_to_front(x_s) / (kappa * h)).powi(2);
                }
            }
        }
    }
    if penalty == 0.0 {
        return poly6(r, h);
    }
    let normalised = r / h + penalty;
    if normalised >= 1.0 {
        0.0
    } else {
        poly6(normalised * h, h)
    }
}

/// w(|X_ij|, h_i) for every edge (MKN04 eq. 7): the weights of the uncut body.
pub fn uncut_weights(body: &Body) -> Vec<f64> {
    (0..body.neighbours.neighbour.len())
        .map(|k| uncut_weight(body, k))
        .collect()
}

/// w(|X_ij|, h_i) of edge k, from i to j (MKN04 eq. 7): its weight in the uncut body.
pub fn uncut_weight(body: &Body, k: usize) -> f64 {
    let hoods = &body.neighbours;
    let (i, j) = (hoods.owner[k] as usize, hoods.neighbour[k] as usize);
    poly6(
        body.reference[i].distance(body.reference[j]),
        body.support_radius[i],
    )
}

/// The pieces of `body`: phyxels joined by a chain of pairs that exchange force (an edge with
/// d_ij ≠ 0, either way) share a label; labels run 0, 1, … in the order of each piece's lowest phyxel,
/// and their count is the number of fragments (a free particle is one). Union–find with path halving.
pub fn fragments(body: &Body) -> (usize, Vec<u32>) {
    let n = body.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let hoods = &body.neighbours;
    for k in 0..hoods.neighbour.len() {
        if body.mls.d()[k] == DVec3::ZERO {
            continue;
        }
        let (a, b) = (
            root(&mut parent, hoods.owner[k] as usize),
            root(&mut parent, hoods.neighbour[k] as usize),
        );
        if a != b {
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut label = vec![u32::MAX; n];
    let mut count = 0;
    for i in 0..n {
        let r = root(&mut parent, i);
        if label[r] == u32::MAX {
            label[r] = count;
            count += 1;
        }
        label[i] = label[r];
    }
    (count as usize, label)
}
