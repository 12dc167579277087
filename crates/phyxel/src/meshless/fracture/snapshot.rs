//! A fracture's cracks as numbers, to carry them with a state to another copy of the solver — a
//! restarted worker, the page's copy, another backend — so that it cuts its body alike
//! ([`Fracture::to_numbers`], [`Fracture::restore_numbers`]). What travels is what the weights and the
//! energy safeguard cannot be recomputed from: each crack (its plane, outline and whether its fronts
//! have started), the phyxels a refit released, the rest corrections G_i ≠ I, the events and the
//! counters. The weights ω'_ij are then evaluated from the cracks ([`modified_weight`], which the
//! incremental update equals exactly) and every cut phyxel refitted without the safeguard's decisions
//! (those travelled): released rows get d_ij = 0, the others A_i⁻¹ X_ij ω'_ij — the copy's d_ij equal
//! the original's to rounding (a full refit against an incremental one, 10⁻¹²).
//!
//! With resampling (`super::resample`) the phyxels it appended travel first: their count and per
//! phyxel its parent, reference position, mass, volume and support radius, then each split parent's
//! mass and volume after its split; a copy whose body holds the lattice and a first part of them
//! appends the rest (its neighbour lists and fits rebuilt) before it cuts.
//!
//! The numbers: a format tag, the phyxel count, the appended phyxels (count; parent, x, y, z, m, V, h
//! each), the split parents (count; index, m, V each), resampling's counters (splits, refused), the
//! crack count, then per crack its origin, normal, tangent and bitangent
//! (12), whether its fronts started, its vertex count and per vertex (x, y, dx, dy, is_front); the
//! released phyxels (count, indices); the rest corrections (count, then index and 9 entries by
//! column each); the events (count, then step, kind, crack, position 3, normal 3, σ₁/σ_t each); and
//! released, recomputed_total, dissipated and steps.

use super::crack::{Crack, OutlineVertex};
use super::weights::uncut_weights;
use super::{modified_weight, CrackEvent, EventKind, Fracture, FractureError, REFIT_THRESHOLD};
use crate::meshless::body::Body;
use crate::meshless::mls::{MlsWeights, DEFAULT_RELATIVE_THRESHOLD};
use crate::meshless::neighbours::{HashGrid, Neighbourhoods};
use glam::{DMat3, DVec2, DVec3};

/// The first number of the fracture's numbers (their layout's version).
const FORMAT: f64 = 2.0;

impl Fracture {
    /// The cracks and what the safeguard decided, as numbers ([`Fracture::restore_numbers`] takes
    /// them, on a body of the same scene).
    pub fn to_numbers(&self, body: &Body) -> Vec<f64> {
        let resampling = &self.resampling;
        let base = body.len() - resampling.parents.len();
        let mut out = vec![FORMAT, body.len() as f64, resampling.parents.len() as f64];
        for (c, &parent) in resampling.parents.iter().enumerate() {
            let i = base + c;
            out.push(parent as f64);
            out.extend(body.reference[i].to_array());
            out.extend([body.mass[i], body.volume[i], body.support_radius[i]]);
        }
        let mut split: Vec<usize> = resampling.parents.clone();
        split.sort_unstable();
        split.dedup();
        out.push(split.len() as f64);
        for &i in &split {
            out.extend([i as f64, body.mass[i], body.volume[i]]);
        }
        out.extend([resampling.splits as f64, resampling.refused as f64]);
        out.push(self.cracks.len() as f64);
        for (crack, &started) in self.cracks.iter().zip(&self.started) {
            for v in [crack.origin, crack.normal, crack.tangent, crack.bitangent] {
                out.extend(v.to_array());
            }
            out.push(f64::from(u8::from(started)));
            out.push(crack.outline.len() as f64);
            for vertex in &crack.outline {
                out.extend(vertex.position.to_array());
                out.extend(vertex.direction.to_array());
                out.push(f64::from(u8::from(vertex.is_front)));
            }
        }
        let released: Vec<usize> = (0..body.len())
            .filter(|&i| self.is_released(body, i))
            .collect();
        out.push(released.len() as f64);
        out.extend(released.iter().map(|&i| i as f64));
        let corrected: Vec<usize> = (0..body.len())
            .filter(|&i| body.rest_correction[i] != DMat3::IDENTITY)
            .collect();
        out.push(corrected.len() as f64);
        for &i in &corrected {
            out.push(i as f64);
            out.extend(body.rest_correction[i].to_cols_array());
        }
        out.push(self.events.len() as f64);
        for e in &self.events {
            out.extend([e.step as f64, event_kind_number(e.kind), e.crack as f64]);
            out.extend(e.position.to_array());
            out.extend(e.normal.to_array());
            out.push(e.stress_ratio);
        }
        out.extend([
            self.released as f64,
            self.recomputed_total as f64,
            self.dissipated,
            self.steps as f64,
        ]);
        out
    }

    /// Take the numbers of [`Fracture::to_numbers`] from a fracture of a body of the same scene: its
    /// cracks replace these, `body`'s weights are evaluated from them and its cut phyxels refitted,
    /// released rows and rest corrections as they were there. Refused, changing nothing, for numbers
    /// that do not fit this body.
    pub fn restore_numbers(
        &mut self,
        body: &mut Body,
        numbers: &[f64],
    ) -> Result<(), FractureError> {
        let decoded = Decoded::read(numbers, body)?;
        if decoded.phyxels > body.len() {
            self.append_resampled(body, &decoded);
        }
        let hoods = &body.neighbours;
        let weight: Vec<f64> = (0..hoods.neighbour.len())
            .map(|k| {
                let i = hoods.owner[k] as usize;
                let (p, q) = Self::segment(body, i, k);
                modified_weight(
                    p,
                    q,
                    body.support_radius[i],
                    &decoded.cracks,
                    self.settings.criterion,
                )
            })
            .collect();
        // A row cut there is refitted as a cut row is; a row cut here only gets its uncut fit back
        // (the solver's own threshold, as `MlsWeights::compute` fits it).
        let uncut = uncut_weights(body);
        let mut cut = vec![false; body.len()];
        for (i, cut) in cut.iter_mut().enumerate() {
            let edges = body.neighbours.edges(i);
            *cut = edges.clone().any(|k| weight[k] != uncut[k]);
            let (data, threshold) = if *cut {
                (&weight, REFIT_THRESHOLD)
            } else if edges.clone().any(|k| self.weight[k] != uncut[k]) {
                (&uncut, DEFAULT_RELATIVE_THRESHOLD)
            } else {
                continue;
            };
            body.mls
                .refit(i, &body.reference, &body.neighbours, data, threshold);
        }
        let mut released = vec![false; body.len()];
        decoded.released.iter().for_each(|&i| released[i] = true);
        // Refits that lost rank were released there too (`Fracture::plan_refit`).
        for i in 0..body.len() {
            if released[i] || (cut[i] && body.mls.rank[i] < 3) {
                body.mls.release(i, &body.neighbours);
            }
        }
        body.rest_correction.fill(DMat3::IDENTITY);
        for (i, g) in decoded.corrections {
            body.rest_correction[i] = g;
        }
        self.weight = weight;
        let resampling = &mut self.resampling;
        resampling.parents = decoded.inserted.iter().map(|p| p.parent).collect();
        resampling.inserted = decoded.inserted.len();
        resampling.splits = decoded.splits;
        resampling.refused = decoded.refused;
        resampling.resampled = vec![false; body.len()];
        let base = body.len() - decoded.inserted.len();
        for (c, p) in decoded.inserted.iter().enumerate() {
            resampling.resampled[p.parent] = true;
            resampling.resampled[base + c] = true;
        }
        self.cracks = decoded.cracks;
        self.started = decoded.started;
        self.events = decoded.events;
        self.released = decoded.counters[0] as usize;
        self.recomputed_total = decoded.counters[1] as usize;
        self.dissipated = decoded.counters[2];
        self.steps = decoded.counters[3] as u64;
        self.recomputed_last = 0;
        Ok(())
    }

    /// Append the phyxels resampling appended there that `body` lacks (it holds the lattice and a
    /// first part of them: [`Decoded::read`] checked), give the split parents their shares, and
    /// rebuild the neighbour lists and the uncut fits; the weights are then evaluated anew.
    fn append_resampled(&mut self, body: &mut Body, decoded: &Decoded) {
        let base = decoded.phyxels - decoded.inserted.len();
        for p in &decoded.inserted[body.len() - base..] {
            super::resample::push_phyxel(
                body,
                p.parent,
                p.reference,
                p.mass,
                p.volume,
                p.h,
                DMat3::ZERO,
            );
        }
        for &(i, mass, volume) in &decoded.split {
            (body.mass[i], body.volume[i]) = (mass, volume);
        }
        body.neighbours = Neighbourhoods::build(&body.reference, &body.support_radius);
        body.mls = MlsWeights::compute(&body.reference, &body.support_radius, &body.neighbours);
        self.weight = uncut_weights(body);
        self.grid = HashGrid::build(&body.reference, self.largest_support.max(1e-12));
    }

    /// Whether a refit released phyxel i: its row holds weight but no d_ij.
    pub(super) fn is_released(&self, body: &Body, i: usize) -> bool {
        let mut edges = body.neighbours.edges(i);
        edges.clone().any(|k| self.weight[k] > 0.0) && edges.all(|k| body.mls.d()[k] == DVec3::ZERO)
    }
}

fn event_kind_number(kind: EventKind) -> f64 {
    match kind {
        EventKind::Initiation => 0.0,
        EventKind::FrontStarted => 1.0,
    }
}

/// A phyxel resampling appended, as the numbers carry it.
struct Appended {
    parent: usize,
    reference: DVec3,
    mass: f64,
    volume: f64,
    h: f64,
}

/// The numbers of [`Fracture::to_numbers`], read and checked.
struct Decoded {
    /// The body's phyxels there, those resampling appended, the split parents' (index, m, V), and
    /// resampling's counters.
    phyxels: usize,
    inserted: Vec<Appended>,
    split: Vec<(usize, f64, f64)>,
    splits: usize,
    refused: usize,
    cracks: Vec<Crack>,
    started: Vec<bool>,
    released: Vec<usize>,
    corrections: Vec<(usize, DMat3)>,
    events: Vec<CrackEvent>,
    counters: [f64; 4],
}

/// A reader over the numbers that refuses what does not fit.
struct Reader<'a> {
    numbers: &'a [f64],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, count: usize) -> Result<&[f64], FractureError> {
        let end = self
            .at
            .checked_add(count)
            .filter(|&e| e <= self.numbers.len());
        let Some(end) = end else {
            return Err(refused("they end early"));
        };
        let taken = &self.numbers[self.at..end];
        self.at = end;
        if taken.iter().all(|x| x.is_finite()) {
            Ok(taken)
        } else {
            Err(refused("a number is not finite"))
        }
    }

    fn vector(&mut self) -> Result<DVec3, FractureError> {
        Ok(DVec3::from_slice(self.take(3)?))
    }

    /// A whole number below `limit`.
    fn count(&mut self, limit: usize) -> Result<usize, FractureError> {
        let x = self.take(1)?[0];
        if x >= 0.0 && x.fract() == 0.0 && x < limit as f64 {
            Ok(x as usize)
        } else {
            Err(refused(&format!("{x} is not a whole number below {limit}")))
        }
    }

    fn flag(&mut self) -> Result<bool, FractureError> {
        match self.take(1)?[0] {
            0.0 => Ok(false),
            1.0 => Ok(true),
            x => Err(refused(&format!("{x} is not a flag (0 or 1)"))),
        }
    }
}

fn refused(why: &str) -> FractureError {
    FractureError(format!(
        "the fracture's numbers do not fit this body: {why}"
    ))
}

/// The most of anything the numbers may count (cracks, vertices, events): far beyond any scene, but a
/// bound, so that a corrupt count cannot ask for unbounded memory.
const MOST: usize = 1 << 24;

impl Decoded {
    /// The numbers for `body`, which must hold the lattice and a first part of the phyxels resampling
    /// appended there (the same, to the last bit of their reference positions).
    fn read(numbers: &[f64], body: &Body) -> Result<Self, FractureError> {
        let mut r = Reader { numbers, at: 0 };
        if r.take(1)?[0] != FORMAT {
            return Err(refused("an unknown format"));
        }
        let phyxels = r.count(MOST)?;
        let mut inserted = Vec::new();
        for _ in 0..r.count(phyxels + 1)? {
            let parent = r.count(phyxels)?;
            let reference = r.vector()?;
            let [mass, volume, h]: [f64; 3] = r.take(3)?.try_into().expect("three numbers");
            if !(mass > 0.0 && volume > 0.0 && h > 0.0) {
                return Err(refused(
                    "an appended phyxel's mass, volume and support must be positive",
                ));
            }
            inserted.push(Appended {
                parent,
                reference,
                mass,
                volume,
                h,
            });
        }
        let base = phyxels - inserted.len();
        let own = body.len();
        let prefix = own >= base
            && own <= phyxels
            && (base..own).all(|i| body.reference[i] == inserted[i - base].reference)
            && inserted.iter().all(|p| p.parent < base + inserted.len());
        if !prefix {
            return Err(refused(&format!(
                "the body of {own} phyxels is not the lattice of {base} with a first part of the {} \
                 phyxels resampling appended there",
                inserted.len()
            )));
        }
        let mut split = Vec::new();
        for _ in 0..r.count(phyxels + 1)? {
            let i = r.count(phyxels)?;
            let [mass, volume]: [f64; 2] = r.take(2)?.try_into().expect("two numbers");
            split.push((i, mass, volume));
        }
        let splits = r.count(MOST)?;
        let refused_count = r.count(MOST)?;
        let crack_count = r.count(MOST)?;
        let (mut cracks, mut started) = (Vec::new(), Vec::new());
        for _ in 0..crack_count {
            let origin = r.vector()?;
            let normal = r.vector()?;
            let (tangent, bitangent) = (r.vector()?, r.vector()?);
            if (normal.length() - 1.0).abs() > 1e-9 {
                return Err(refused("a crack's normal is not a unit vector"));
            }
            let mut crack = Crack::in_plane(origin, normal);
            (crack.tangent, crack.bitangent) = (tangent, bitangent);
            started.push(r.flag()?);
            for _ in 0..r.count(MOST)? {
                let v = r.take(4)?;
                let (position, direction) = (DVec2::new(v[0], v[1]), DVec2::new(v[2], v[3]));
                crack.push_vertex(OutlineVertex {
                    position,
                    direction,
                    is_front: r.flag()?,
                });
            }
            cracks.push(crack);
        }
        let released = (0..r.count(phyxels + 1)?)
            .map(|_| r.count(phyxels))
            .collect::<Result<_, _>>()?;
        let mut corrections = Vec::new();
        for _ in 0..r.count(phyxels + 1)? {
            let i = r.count(phyxels)?;
            corrections.push((i, DMat3::from_cols_slice(r.take(9)?)));
        }
        let mut events = Vec::new();
        for _ in 0..r.count(MOST)? {
            let step = r.count(usize::MAX)? as u64;
            let kind = match r.count(2)? {
                0 => EventKind::Initiation,
                _ => EventKind::FrontStarted,
            };
            let crack = r.count(crack_count)?;
            let (position, normal) = (r.vector()?, r.vector()?);
            let stress_ratio = r.take(1)?[0];
            events.push(CrackEvent {
                step,
                kind,
                crack,
                position,
                normal,
                stress_ratio,
            });
        }
        let counters: [f64; 4] = r.take(4)?.try_into().expect("four numbers");
        if r.at != numbers.len() {
            return Err(refused("numbers are left over"));
        }
        Ok(Self {
            phyxels,
            inserted,
            split,
            splits,
            refused: refused_count,
            cracks,
            started,
            released,
            corrections,
            events,
            counters,
        })
    }
}

#[cfg(test)]
mod tests;
