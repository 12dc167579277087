//! The state of a running simulation as one flat array of numbers, so that it can move between two
//! copies of the same scene: from the solver's Web Worker to the page that draws it (every frame),
//! and from one backend to another (CPU ↔ GPU, a new thread pool) without losing the motion.
//!
//! A snapshot holds what stepping changes — displacements, velocities, temperatures, plastic state,
//! time — and, optionally, what a reference update changes: the rest shape x̄ and the surfaces' rest
//! vertices (the neighbourhoods and moment matrices are rebuilt from them, as
//! [`Simulation::update_reference`] does). The scene itself (lattice, material, integrator, …) is
//! not in it: both copies are built from the same scene description and settings.

use super::Simulation;
use crate::meshless::body::Integration;
use crate::meshless::implicit::SolveStats;
use glam::{DMat3, DVec3};
use std::fmt;

/// Bumped whenever the layout below changes.
const FORMAT: f64 = 2.0;
/// FORMAT, n, surfaces, has reference, time, reference updates, solve present, iterations,
/// residual, converged.
const HEADER: usize = 10;
/// Numbers per phyxel: u (3), v (3), T, s, ε_p (9), F_p (9), m, ρ, V.
const PER_PHYXEL: usize = 3 + 3 + 1 + 1 + 9 + 9 + 3;
// Then the count of integration points (0 for a nodal body) and F_p,I (9) of each: the plastic state
// of a body integrated by background quadrature lives at its points.

/// A simulation's state, flattened: [`Simulation::snapshot`] writes it, [`Simulation::restore`] reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot(pub Vec<f64>);

/// Why a snapshot does not fit a simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotError(pub String);

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the simulation state does not fit this scene: {}",
            self.0
        )
    }
}

impl std::error::Error for SnapshotError {}

fn push_vectors(out: &mut Vec<f64>, vectors: &[DVec3]) {
    out.extend(vectors.iter().flat_map(|v| v.to_array()));
}

fn push_matrices(out: &mut Vec<f64>, matrices: &[DMat3]) {
    out.extend(matrices.iter().flat_map(|m| m.to_cols_array()));
}

/// Reads a snapshot front to back.
struct Reader<'a> {
    data: &'a [f64],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, count: usize) -> Result<&[f64], SnapshotError> {
        let end = self.at + count;
        let slice = self.data.get(self.at..end).ok_or_else(|| {
            SnapshotError(format!(
                "it ends after {} numbers, {} expected",
                self.data.len(),
                end
            ))
        })?;
        self.at = end;
        Ok(slice)
    }

    fn scalars(&mut self, n: usize) -> Result<Vec<f64>, SnapshotError> {
        Ok(self.take(n)?.to_vec())
    }

    fn vectors(&mut self, n: usize) -> Result<Vec<DVec3>, SnapshotError> {
        Ok(self
            .take(3 * n)?
            .chunks_exact(3)
            .map(DVec3::from_slice)
            .collect())
    }

    fn matrices(&mut self, n: usize) -> Result<Vec<DMat3>, SnapshotError> {
        Ok(self
            .take(9 * n)?
            .chunks_exact(9)
            .map(DMat3::from_cols_slice)
            .collect())
    }

    /// A non-negative whole number that fits in usize.
    fn count(&mut self, what: &str) -> Result<usize, SnapshotError> {
        let x = self.take(1)?[0];
        if x >= 0.0 && x.fract() == 0.0 && x < 1e15 {
            Ok(x as usize)
        } else {
            Err(SnapshotError(format!("{what} is {x}, not a count")))
        }
    }
}

impl Simulation {
    /// The current state; with `with_reference`, also the rest shape (needed after a reference
    /// update, [`Simulation::reference_updates`] tells when).
    pub fn snapshot(&self, with_reference: bool) -> Snapshot {
        let body = &self.body;
        let n = body.len();
        let mut out =
            Vec::with_capacity(HEADER + PER_PHYXEL * n + if with_reference { 3 * n } else { 0 });
        let solve = self.last_solve;
        out.extend([
            FORMAT,
            n as f64,
            self.surfaces.len() as f64,
            f64::from(u8::from(with_reference)),
            self.time,
            self.reference_updates as f64,
            f64::from(u8::from(solve.is_some())),
            solve.map_or(0.0, |s| s.iterations as f64),
            solve.map_or(0.0, |s| s.relative_residual),
            f64::from(u8::from(solve.is_some_and(|s| s.converged))),
        ]);
        push_vectors(&mut out, &body.displacement);
        push_vectors(&mut out, &body.velocity);
        out.extend(&body.temperature);
        out.extend(&body.stiffness_scale);
        push_matrices(&mut out, &body.plastic_strain);
        push_matrices(&mut out, &body.plastic_deformation);
        out.extend(&body.mass);
        out.extend(&body.density);
        out.extend(&body.volume);
        let points = body
            .quadrature()
            .map_or(&[][..], |q| &q.plastic_deformation[..]);
        out.push(points.len() as f64);
        push_matrices(&mut out, points);
        if with_reference {
            push_vectors(&mut out, &body.reference);
            for surface in &self.surfaces {
                out.push(surface.vertex_count() as f64);
                push_vectors(&mut out, surface.rest_vertices());
            }
        }
        Snapshot(out)
    }

    /// Take the state of `snapshot` (from a simulation of the same scene). A rest shape in it
    /// replaces this one's — neighbourhoods, moment matrices and surface bindings are rebuilt — when
    /// it differs. The integrator's history restarts (as at a reference update), and so does the
    /// implicit solver's initial guess. Refused, changing nothing, if the snapshot does not fit.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), SnapshotError> {
        let data = &snapshot.0;
        if let Some(bad) = data.iter().position(|x| !x.is_finite()) {
            return Err(SnapshotError(format!("number {bad} is not finite")));
        }
        let mut r = Reader { data, at: 0 };
        let format = r.take(1)?[0];
        if format != FORMAT {
            return Err(SnapshotError(format!(
                "format {format}, this build reads {FORMAT}"
            )));
        }
        let n = r.count("the phyxel count")?;
        let surfaces = r.count("the surface count")?;
        if n != self.body.len() || surfaces != self.surfaces.len() {
            return Err(SnapshotError(format!(
                "{n} phyxels and {surfaces} surfaces, the scene has {} and {}",
                self.body.len(),
                self.surfaces.len()
            )));
        }
        let with_reference = r.take(1)?[0] != 0.0;
        let [time, updates, solved, iterations, residual, converged] = r.take(6)? else {
            unreachable!("six numbers taken")
        };
        let (time, updates) = (*time, *updates as usize);
        let last_solve = (*solved != 0.0).then_some(SolveStats {
            iterations: *iterations as usize,
            relative_residual: *residual,
            converged: *converged != 0.0,
        });
        let displacement = r.vectors(n)?;
        let velocity = r.vectors(n)?;
        let temperature = r.scalars(n)?;
        let stiffness_scale = r.scalars(n)?;
        let plastic_strain = r.matrices(n)?;
        let plastic_deformation = r.matrices(n)?;
        let mass = r.scalars(n)?;
        let density = r.scalars(n)?;
        let volume = r.scalars(n)?;
        let points = r.count("the integration point count")?;
        let own_points = self.body.quadrature().map_or(0, |q| q.len());
        if points != own_points {
            return Err(SnapshotError(format!(
                "{points} integration points, the body has {own_points} (one side is integrated by background quadrature, the other not)"
            )));
        }
        let point_plastic_deformation = r.matrices(points)?;
        let rest_shape = if with_reference {
            let reference = r.vectors(n)?;
            let mut surface_rests = Vec::with_capacity(surfaces);
            for _ in 0..surfaces {
                let count = r.count("a surface's vertex count")?;
                surface_rests.push(r.vectors(count)?);
            }
            Some((reference, surface_rests))
        } else {
            None
        };
        if r.at != data.len() {
            return Err(SnapshotError(format!(
                "{} numbers left over",
                data.len() - r.at
            )));
        }
        if let Some((reference, surface_rests)) = rest_shape {
            if reference != self.body.reference {
                self.body.reference = reference;
                self.body.rebuild_reference();
                for (surface, rest) in self.surfaces.iter_mut().zip(surface_rests) {
                    surface.rebind(rest, &self.body);
                }
            }
        }
        let body = &mut self.body;
        body.displacement = displacement;
        body.velocity = velocity;
        body.temperature = temperature;
        body.stiffness_scale = stiffness_scale;
        body.plastic_strain = plastic_strain;
        body.plastic_deformation = plastic_deformation;
        body.mass = mass;
        body.density = density;
        body.volume = volume;
        if let Integration::Quadrature(q) = &mut body.integration {
            q.plastic_deformation = point_plastic_deformation;
            q.soften(&body.stiffness_scale);
        }
        self.time = time;
        self.reference_updates = updates;
        self.last_solve = last_solve;
        self.last_velocity_change.clear();
        self.last_obstacle_impulse.clear();
        self.integrator.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::meshless::plasticity::Plasticity;
    use crate::meshless::scene::{Objects, SceneDescription};
    use crate::meshless::simulation::Simulation;

    /// A plastic torus (with its surface mesh) dropped from 0.3 m: it yields on landing.
    fn plastic_torus() -> Simulation {
        let description = SceneDescription {
            objects: Objects::Torus,
            resolution: 8,
            ..SceneDescription::default()
        };
        let mut sim = description.build(10_000).unwrap().simulation;
        sim.plasticity = Some(Plasticity {
            yield_strain: 0.01,
            creep: 50.0,
            max_strain: 0.5,
        });
        sim.reference_update_strain = 0.05;
        sim
    }

    fn positions(sim: &Simulation) -> Vec<[f64; 3]> {
        sim.body.positions().iter().map(|p| p.to_array()).collect()
    }

    #[test]
    fn a_restored_copy_continues_exactly_as_the_original_across_reference_updates() {
        let mut original = plastic_torus();
        let dt = original.recommended_time_step();
        let mut copy = plastic_torus();
        assert!(
            !copy.surfaces.is_empty(),
            "the torus carries its surface mesh"
        );
        // Mirror the original every 50 steps, as the page mirrors its solver worker: the rest shape
        // only travels when a reference update moved it.
        let mut updates_sent = 0;
        for _ in 0..12 {
            for _ in 0..50 {
                original.step(dt).unwrap();
            }
            let with_reference = original.reference_updates != updates_sent;
            updates_sent = original.reference_updates;
            copy.restore(&original.snapshot(with_reference)).unwrap();
            assert_eq!(positions(&copy), positions(&original));
            assert_eq!(copy.surface_vertices(), original.surface_vertices());
        }
        assert!(
            original.reference_updates > 0,
            "the landing moved the rest shape (the test covers reference updates)"
        );
        assert_eq!(copy.reference_updates, original.reference_updates);
        // Stepping on from the copy gives the original's motion, bit for bit: the neighbourhoods and
        // moment matrices rebuilt from the restored rest shape are the original's.
        for _ in 0..100 {
            original.step(dt).unwrap();
            copy.step(dt).unwrap();
        }
        assert_eq!(positions(&copy), positions(&original));
        assert_eq!(copy.time, original.time);
        assert_eq!(copy.energy(), original.energy());
    }

    #[test]
    fn a_snapshot_of_another_scene_or_a_damaged_one_is_refused_and_changes_nothing() {
        let mut sim = plastic_torus();
        let before = positions(&sim);
        let mut other = SceneDescription::default()
            .build(10_000)
            .unwrap()
            .simulation;
        other.step(1e-4).unwrap();
        let error = sim.restore(&other.snapshot(false)).unwrap_err();
        assert!(error.to_string().contains("phyxels"), "{error}");
        let mut damaged = sim.snapshot(true);
        damaged.0.pop();
        assert!(sim.restore(&damaged).is_err());
        let mut infinite = sim.snapshot(false);
        infinite.0[20] = f64::NAN;
        assert!(sim.restore(&infinite).unwrap_err().0.contains("not finite"));
        assert_eq!(positions(&sim), before);
    }
}
