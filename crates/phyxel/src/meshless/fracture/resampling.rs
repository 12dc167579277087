//! What adaptive resampling is (seed 002 eq. 71; the algorithm is `super::resample`): its settings and
//! defaults — Ω_min, the minimal support radius, where new phyxels go, the cap — what it did over a run,
//! and the exact share of a mass among the phyxels that split it.

use glam::{DMat3, DVec3};

/// Seed 002's Ω_min ("one typically uses Ω_min = 10"): a lattice phyxel sees 32 neighbours inside the
/// body (h = 2.2 spacings), about 20 on a flat face, 7 at a cube's corner; below 10 are those the
/// cracks left with less than a third of their neighbourhood (a sliver between two cracks, the tip
/// region where cracks meet, a crack along an edge).
pub const OMEGA_MIN: f64 = 10.0;

/// The smallest support radius of a new phyxel over the lattice's h: ∛½, at which its stiffness
/// (∝ 1/h²) is 1.59 times a lattice phyxel's, inside the refit's margin of 2.
pub const MIN_SUPPORT_RATIO: f64 = 0.793_700_525_984_099_7;

/// How far from its parent a new phyxel is put, in lattice spacings (scaled by the parent's h over
/// the lattice's h).
pub const SPLIT_DISTANCE: f64 = 0.3;

/// The most phyxels resampling inserts over a run, per phyxel the body started with: the work of a
/// step stays bounded.
pub const CAP_PER_PHYXEL: f64 = 0.25;

/// Resampling's settings (seed 002 eq. 71).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resampling {
    /// Ω_min (positive).
    pub omega_min: f64,
    /// The minimal support radius h_min (m).
    pub min_support: f64,
    /// At most this many phyxels inserted over the run.
    pub cap: usize,
}

impl Resampling {
    /// Resampling at `omega_min` (positive: `FractureSettings::with_resampling` checks it) for a body
    /// of `phyxels` phyxels of support radius `h`: h_min = [`MIN_SUPPORT_RATIO`] h, the cap
    /// [`CAP_PER_PHYXEL`] of the phyxels.
    pub fn new(omega_min: f64, h: f64, phyxels: usize) -> Self {
        Self {
            omega_min,
            min_support: MIN_SUPPORT_RATIO * h,
            cap: (CAP_PER_PHYXEL * phyxels as f64).ceil() as usize,
        }
    }
}

/// What resampling did over the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResamplingState {
    /// Phyxels split or made by resampling (not split again).
    pub resampled: Vec<bool>,
    /// Phyxels inserted, and splits refused for the cap (the phyxels they wanted).
    pub inserted: usize,
    pub refused: usize,
    /// Splits made.
    pub splits: usize,
    /// For each phyxel inserted, in order, its parent.
    pub parents: Vec<usize>,
}

/// Split the mass m into k parts that sum to m exactly: k − 1 parts p = m/k rounded to a multiple of
/// 2^(e−40) (2^e ≤ m), and the last m − (k − 1) p. (k − 1) p then has at most 41 significant bits and
/// m − (k − 1) p is a multiple of m's last bit below 2m, so both are computed exactly (k < 2^12). (The
/// 2D lesson's resampling shares its particles' masses by it too.)
pub fn share_mass(m: f64, k: usize) -> Vec<f64> {
    assert!((1..4096).contains(&k) && m > 0.0 && m.is_finite());
    let quantum = 2f64.powi(m.log2().floor() as i32 - 40);
    let p = (m / k as f64 / quantum).round() * quantum;
    let mut parts = vec![p; k - 1];
    parts.push(m - (k - 1) as f64 * p);
    parts
}

/// The directions new phyxels are tried along: the 26 lattice-neighbour directions, turned by a small
/// fixed rotation so that a new phyxel does not sit on the segment to a lattice neighbour.
pub fn split_directions() -> Vec<DVec3> {
    let turn = DMat3::from_euler(glam::EulerRot::XYZ, 0.11, 0.23, 0.07);
    let mut directions = Vec::with_capacity(26);
    for x in -1i32..=1 {
        for y in -1i32..=1 {
            for z in -1i32..=1 {
                if (x, y, z) != (0, 0, 0) {
                    let d = DVec3::new(x as f64, y as f64, z as f64).normalize();
                    directions.push(turn * d);
                }
            }
        }
    }
    directions
}
