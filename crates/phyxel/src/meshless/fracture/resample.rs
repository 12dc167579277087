//! Adaptive resampling of a cracked body (seed 002 §7.3, eq. 71, after Pauly et al. 2005): a cut
//! phyxel whose neighbourhood the cracks have thinned — Ω_i = Σ_j ω'_ij/ω_ij, the count of neighbours
//! it still sees (visibility; transparency counts the faded ones in part), below Ω_min — gets
//! ⌈Ω_min − Ω_i⌉ new phyxels beside it, on its side of the cracks, so that its MLS fit and its
//! neighbours' rest on enough samples again. Seed 002: "the mass associated with the old particles is
//! distributed evenly among the new ones and their support radius is adapted to keep the overall
//! material density constant ... particle splitting is restricted by prescribing a minimal support
//! radius".
//!
//! **What a split keeps.** The parent's mass is shared exactly ([`share_mass`]) and so is its
//! volume (in proportion), so Σ m_i and Σ V_i stay; the new phyxels take the parent's velocity
//! (momentum stays, to rounding), its displacement field (u = u_i + ∇u_i (X − X_i)), plastic
//! strain, temperature and stiffness factor. Every phyxel whose neighbour list changed — the new
//! ones, the parent, and those whose support now holds a new one — is re-weighed against every
//! crack and refitted, keeping its elastic gradient where the refit would raise its energy (the
//! fracture's safeguard, `Fracture::plan_refit`): the new phyxels the parent's, so that no split
//! raises the elastic energy. The others keep their weights, fits and volumes untouched.
//!
//! **Support radii.** k phyxels share the parent's volume: the new ones get h_i/∛k, which keeps h
//! over the local spacing, but never less than
//! [`MIN_SUPPORT_RATIO`](super::resampling::MIN_SUPPORT_RATIO) of the lattice's h — a smaller
//! support ties a phyxel more stiffly (d_ij ∝ 1/h), and at ∛½ its stiffness is 1.6 times a lattice
//! phyxel's, inside what the explicit step allows (`STIFFNESS_MARGIN`). A phyxel resampling split
//! or made is not split again (as in the 2D lesson: cascades of splits otherwise), and at most
//! [`Resampling::cap`] phyxels are inserted over a run: a split beyond it is refused and counted.
//!
//! **Where the new phyxels go.** [`SPLIT_DISTANCE`] of a spacing from the parent, along the
//! directions of the lattice's 26 neighbours, turned a little off the lattice's axes
//! ([`split_directions`]), keeping those whose segment from the parent crosses no crack and whose
//! end lies clear of every crack — the parent's side — and of them the ones pointing into the
//! material the parent still sees (the largest Σ_j max(0, d̂·X̂_ij) over its visible neighbours),
//! so that a phyxel on a crack face is filled in from within, not pushed out of the body.

use super::resampling::{share_mass, split_directions, Resampling, SPLIT_DISTANCE};
use super::{Fracture, REFIT_THRESHOLD};
use crate::meshless::body::Body;
use crate::meshless::kernel::poly6;
use crate::meshless::mls::{MlsWeights, DEFAULT_RELATIVE_THRESHOLD};
use crate::meshless::neighbours::HashGrid;
use crate::parallel::map_indices;
use glam::{DMat3, DVec3};

impl Fracture {
    /// Seed 002 eq. 71 at the phyxels `changed` (those whose weights the last crack update changed):
    /// each free one not resampled before, with h_i above h_min and Ω_i < Ω_min, is split (the module's
    /// doc). Returns the new phyxels' parents, in the order they were appended to `body` (empty: none).
    pub fn resample(
        &mut self,
        body: &mut Body,
        fixed: &[bool],
        changed: &[usize],
        settings: Resampling,
    ) -> Vec<usize> {
        let n = body.len();
        self.resampling.resampled.resize(n, false);
        let held = |i: usize| fixed.get(i).copied().unwrap_or(false);
        // The lattice's h: the largest (a new phyxel's is smaller).
        let lattice_h = self.largest_support;
        let directions = split_directions();
        let mut splits: Vec<(usize, Vec<DVec3>)> = Vec::new();
        for &i in changed {
            if held(i)
                || self.resampling.resampled[i]
                || body.support_radius[i] <= settings.min_support
            {
                continue;
            }
            let omega = self.omega(body, i);
            if omega >= settings.omega_min {
                continue;
            }
            let wanted = (settings.omega_min - omega).ceil() as usize;
            if self.resampling.inserted + wanted > settings.cap {
                self.resampling.refused += wanted;
                continue;
            }
            let picked = self.split_positions(body, i, wanted, &directions, lattice_h);
            if picked.is_empty() {
                continue;
            }
            self.resampling.inserted += picked.len();
            splits.push((i, picked));
        }
        if splits.is_empty() {
            return Vec::new();
        }
        // The elastic gradient and energy density before of each old phyxel whose neighbour list the
        // new ones will change — those within h_i ≤ h_max of one (`Neighbourhoods::with_appended`)
        // — what its refit keeps; the others keep their fits, and need none.
        let h_max = self.largest_support;
        let mut reached = vec![false; n];
        for x in splits.iter().flat_map(|(_, picked)| picked) {
            for j in self.grid.candidates_within(*x, h_max) {
                let j = j as usize;
                reached[j] |= body.reference[j].distance(*x) <= h_max;
            }
        }
        let reached: Vec<usize> = (0..n).filter(|&i| reached[i]).collect();
        let before = map_indices(reached.len(), |m| {
            let i = reached[m];
            let (elastic, energy) = Self::elastic_before(body, i);
            let density = if body.volume[i] > 0.0 {
                energy / body.volume[i]
            } else {
                0.0
            };
            (elastic, density)
        });
        let mut elastic: Vec<Option<(DMat3, f64)>> = vec![None; n];
        for (i, state) in reached.into_iter().zip(before) {
            elastic[i] = Some(state);
        }
        let mut parents = Vec::new();
        for (i, picked) in splits {
            let k = picked.len() + 1;
            let grad = body
                .mls
                .displacement_gradient(i, &body.displacement, &body.neighbours);
            let masses = share_mass(body.mass[i], k);
            let (mass, volume) = (body.mass[i], body.volume[i]);
            let h = (body.support_radius[i] / (k as f64).cbrt()).max(settings.min_support);
            body.mass[i] = masses[0];
            body.volume[i] = volume * masses[0] / mass;
            self.resampling.resampled[i] = true;
            for (x, m) in picked.into_iter().zip(&masses[1..]) {
                push_phyxel(body, i, x, *m, volume * m / mass, h, grad);
                self.resampling.resampled.push(true);
                parents.push(i);
            }
            self.resampling.splits += 1;
        }
        self.resampling.parents.extend(&parents);
        self.rebuild_after_insertion(body, n, &elastic, &parents);
        parents
    }

    /// Ω_i = Σ_j ω'_ij / ω_ij over phyxel i's edges within its support (seed 002 eq. 71).
    pub fn omega(&self, body: &Body, i: usize) -> f64 {
        body.neighbours
            .edges(i)
            .zip(uncut_weights_of(body, i))
            .filter(|(_, uncut)| *uncut > 0.0)
            .map(|(k, uncut)| self.weight[k] / uncut)
            .sum()
    }

    /// Up to `wanted` reference positions for new phyxels beside phyxel i: along the directions whose
    /// segment from X_i crosses no crack and whose end lies clear of every crack, those pointing most
    /// into the material i still sees.
    fn split_positions(
        &self,
        body: &Body,
        i: usize,
        wanted: usize,
        directions: &[DVec3],
        lattice_h: f64,
    ) -> Vec<DVec3> {
        let x_i = body.reference[i];
        let distance = SPLIT_DISTANCE * self.spacing * body.support_radius[i] / lattice_h;
        let hoods = &body.neighbours;
        let seen: Vec<DVec3> = hoods
            .edges(i)
            .filter(|&k| self.weight[k] > 0.0)
            .map(|k| (body.reference[hoods.neighbour[k] as usize] - x_i).normalize_or_zero())
            .collect();
        let mut clear: Vec<(f64, usize, DVec3)> = directions
            .iter()
            .enumerate()
            .map(|(m, d)| (m, x_i + *d * distance, *d))
            .filter(|&(_, x, _)| {
                self.cracks.iter().all(|c| {
                    !(c.may_cross(x_i, x) && c.crossing(x_i, x).is_some())
                        && c.distance(x) > 0.25 * distance
                })
            })
            .map(|(m, x, d)| {
                let into: f64 = seen.iter().map(|s| s.dot(d).max(0.0)).sum();
                (into, m, x)
            })
            .collect();
        // The most material that way first; ties in the directions' order.
        clear.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        clear.into_iter().take(wanted).map(|(_, _, x)| x).collect()
    }

    /// After phyxels `n..` were appended (with `parents`): the neighbour lists rebuilt; the phyxels
    /// whose list is as it was keep their weights and fits; the others are re-weighed against every
    /// crack and refitted keeping their elastic gradient (`elastic`: the gradient and energy density
    /// before of each old phyxel within h_max of a new one, a superset of those whose list changed;
    /// a new phyxel takes its parent's, and a parent lies so near its new phyxels).
    fn rebuild_after_insertion(
        &mut self,
        body: &mut Body,
        n: usize,
        elastic: &[Option<(DMat3, f64)>],
        parents: &[usize],
    ) {
        let old_hoods = std::mem::take(&mut body.neighbours);
        let old_mls = std::mem::take(&mut body.mls);
        let old_weight = std::mem::take(&mut self.weight);
        // One grid for the new lists' search and the fracture's own (its cell, h_max, holds every
        // support: a new phyxel's is smaller).
        self.grid = HashGrid::build(&body.reference, self.largest_support.max(1e-12));
        body.neighbours =
            old_hoods.with_appended_in(&self.grid, &body.reference, &body.support_radius);
        let hoods = &body.neighbours;
        let total = body.len();
        let edges = hoods.neighbour.len();
        // Row after row: an unchanged row's d_ij and weights copied, a changed one's left zero (to
        // be refitted below).
        let mut d = Vec::with_capacity(edges);
        let mut moment_inverse = Vec::with_capacity(total);
        let mut rank = Vec::with_capacity(total);
        let mut weight = Vec::with_capacity(edges);
        let mut affected = Vec::new();
        for i in 0..total {
            let new_row = hoods.edges(i);
            let old_row = (i < n).then(|| old_hoods.edges(i));
            match old_row
                .filter(|old| hoods.neighbour[new_row.clone()] == old_hoods.neighbour[old.clone()])
            {
                Some(old_row) => {
                    d.extend_from_slice(&old_mls.d()[old_row.clone()]);
                    weight.extend_from_slice(&old_weight[old_row]);
                    moment_inverse.push(old_mls.moment_inverse[i]);
                    rank.push(old_mls.rank[i]);
                }
                None => {
                    d.resize(d.len() + new_row.len(), DVec3::ZERO);
                    weight.resize(weight.len() + new_row.len(), 0.0);
                    moment_inverse.push(DMat3::IDENTITY);
                    rank.push(3);
                    affected.push(i);
                }
            }
        }
        self.weight = weight;
        body.mls = MlsWeights::from_rows_uncopied(hoods, d, moment_inverse, rank);
        let weights = map_indices(affected.len(), |m| self.reweigh(body, affected[m]));
        for (&i, weights) in affected.iter().zip(weights) {
            for (k, w) in body.neighbours.edges(i).zip(weights) {
                self.weight[k] = w;
            }
        }
        // Each refit reads its own phyxel's data only: planned in parallel, taken in order.
        let plans = map_indices(affected.len(), |m| {
            let i = affected[m];
            let before = if i < n {
                elastic[i]
            } else {
                elastic[parents[i - n]]
            };
            // (A list changes only by gaining a new phyxel within h_i ≤ h_max: `before` holds it.)
            let Some((gradient, density)) = before else {
                debug_assert!(
                    false,
                    "phyxel {i}'s list changed with no new phyxel within h_max"
                );
                return None;
            };
            // A phyxel no crack cut keeps the solver's own threshold (as `MlsWeights::compute`).
            let uncut = uncut_weights_of(body, i);
            let cut = body
                .neighbours
                .edges(i)
                .zip(&uncut)
                .any(|(k, w)| self.weight[k] != *w);
            let threshold = if cut {
                REFIT_THRESHOLD
            } else {
                DEFAULT_RELATIVE_THRESHOLD
            };
            Some(self.plan_refit(body, i, threshold, gradient, density * body.volume[i]))
        });
        for (&i, plan) in affected.iter().zip(plans) {
            if let Some(plan) = plan {
                self.take_refit(body, i, plan);
            }
        }
    }
}

/// The uncut weights ω_ij = w(|X_ij|, h_i) of phyxel i's edges, in their order.
fn uncut_weights_of(body: &Body, i: usize) -> Vec<f64> {
    let hoods = &body.neighbours;
    hoods
        .edges(i)
        .map(|k| {
            let j = hoods.neighbour[k] as usize;
            poly6(
                body.reference[i].distance(body.reference[j]),
                body.support_radius[i],
            )
        })
        .collect()
}

/// Append a phyxel at reference position `x` made from phyxel `parent` (mass `mass`, volume `volume`,
/// support radius `h`), moving with the parent's displacement field (∇u the parent's gradient) and
/// velocity, and with its plastic state, temperature and stiffness factor.
pub(super) fn push_phyxel(
    body: &mut Body,
    parent: usize,
    x: DVec3,
    mass: f64,
    volume: f64,
    h: f64,
    grad: DMat3,
) {
    let u = body.displacement[parent] + grad * (x - body.reference[parent]);
    body.reference.push(x);
    body.displacement.push(u);
    body.velocity.push(body.velocity[parent]);
    body.mass.push(mass);
    body.density.push(body.density[parent]);
    body.volume.push(volume);
    body.support_radius.push(h);
    body.plastic_strain.push(body.plastic_strain[parent]);
    body.plastic_deformation
        .push(body.plastic_deformation[parent]);
    body.rest_correction.push(DMat3::IDENTITY);
    body.temperature.push(body.temperature[parent]);
    body.stiffness_scale.push(body.stiffness_scale[parent]);
}

#[cfg(test)]
mod tests;
