//! Bindings for the "Elastic, plastic and melting objects" demo: the phyxel solver driven from the
//! page ([`PhyxelDemo`]) and its wgpu view ([`PhyxelView`]).

use crate::check;
use crate::frame::{Colouring, FrameData};
use glam::DVec3;
use phyxel::integrators::Method;
use phyxel::meshless::collision::Collider;
use phyxel::meshless::implicit::{CorotatedImplicit, SolveStats};
use phyxel::meshless::material::Material;
use phyxel::meshless::melting::{HeatSource, Melting, AMBIENT_TEMPERATURE};
use phyxel::meshless::plasticity::{norm, plastic_stretch, Plasticity};
use phyxel::meshless::primitive_mesh::vertex_normals;
use phyxel::meshless::sampling::Lattice;
use phyxel::meshless::scene::{Objects, SceneDescription};
use phyxel::meshless::simulation::{Drag, Elasticity, Simulation, Snapshot};
use phyxel::parallel::in_pool;
use wasm_bindgen::prelude::*;

/// The most phyxels the single-threaded CPU solver is offered (a step then takes about 0.1 s).
pub const MAX_CPU_PHYXELS: usize = 60_000;

/// The melting point of the demo's material (°C).
const MELTING_POINT: f64 = 100.0;

/// The phyxel solver as the page sees it.
#[wasm_bindgen]
pub struct PhyxelDemo {
    sim: Simulation,
    description: SceneDescription,
    /// The object of each phyxel (for colouring).
    object_of: Vec<u32>,
    /// All surfaces' triangles, indices offset into one vertex array.
    triangles: Vec<u32>,
    /// The last blow-up, explained; the simulation then stays at its last good state.
    error: Option<String>,
    steps: u64,
    /// Stepping on the GPU instead, if chosen; `sim` then holds the last state read back.
    gpu: Option<GpuBackend>,
    /// Why the demo left the GPU on its own, for the page to say once.
    notice: Option<String>,
    /// CG settings of the implicit integration (kept while an explicit method is chosen).
    implicit_settings: CorotatedImplicit,
}

#[wasm_bindgen]
impl PhyxelDemo {
    /// A scene: `objects` ("cube", "sphere", "torus", "bunny", "several"), `resolution` phyxels across
    /// 0.4 m, on a cubic or body-centred cubic lattice, Young's modulus E (Pa), Poisson's ratio ν,
    /// density ρ (kg/m³), volume stiffness k_v (Pa), and whether a ball lies on the ground.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        objects: &str,
        resolution: u32,
        bcc: bool,
        young: f64,
        poisson: f64,
        density: f64,
        volume_stiffness: f64,
        obstacle: bool,
    ) -> Result<PhyxelDemo, JsError> {
        let objects = Objects::from_id(objects).ok_or_else(|| {
            let known: Vec<&str> = Objects::ALL.iter().map(|o| o.id()).collect();
            JsError::new(&format!(
                "unknown scene “{objects}” (known: {})",
                known.join(", ")
            ))
        })?;
        let description = SceneDescription {
            objects,
            resolution,
            lattice: if bcc {
                Lattice::BodyCentredCubic
            } else {
                Lattice::Cubic
            },
            material: material(young, poisson, density, volume_stiffness)?,
            obstacle,
            ..SceneDescription::default()
        };
        let scene = description
            .build(MAX_CPU_PHYXELS)
            .map_err(|e| JsError::new(&e.to_string()))?;
        let object_of = scene.object_of_phyxels();
        let mut triangles = Vec::new();
        let mut offset = 0;
        for surface in &scene.simulation.surfaces {
            triangles.extend(surface.triangles.iter().flatten().map(|k| k + offset));
            offset += surface.vertex_count() as u32;
        }
        Ok(PhyxelDemo {
            sim: scene.simulation,
            description,
            object_of,
            triangles,
            error: None,
            steps: 0,
            gpu: None,
            notice: None,
            implicit_settings: CorotatedImplicit::default(),
        })
    }

    /// Change the material in place: E, ν, k_v take effect at the next step; a new density scales
    /// every mass and density (volumes stay).
    pub fn set_material(
        &mut self,
        young: f64,
        poisson: f64,
        density: f64,
        volume_stiffness: f64,
    ) -> Result<(), JsError> {
        let new = material(young, poisson, density, volume_stiffness)?;
        let body = &mut self.sim.body;
        let ratio = new.density / body.material.density;
        body.mass.iter_mut().for_each(|m| *m *= ratio);
        body.density.iter_mut().for_each(|rho| *rho *= ratio);
        body.material = new;
        self.description.material = new;
        self.mark_gpu_stale();
        Ok(())
    }

    /// Mass-proportional damping c (1/s) and the Coulomb friction coefficient at the obstacles.
    pub fn set_damping_and_friction(&mut self, damping: f64, friction: f64) -> Result<(), JsError> {
        self.sim.environment.damping = check("damping", damping, 0.0, 100.0)?;
        self.sim.environment.friction = check("friction", friction, 0.0, 2.0)?;
        self.mark_gpu_stale();
        Ok(())
    }

    /// Choose the time integrator by id (see the time-integration lesson). "implicit-euler" is the
    /// corotated implicit Euler with CG (its elastic model is the corotated one, its plasticity
    /// multiplicative); the explicit methods use MKN04's model. Each model keeps its own plastic state.
    pub fn set_integrator(&mut self, id: &str) -> Result<(), JsError> {
        let method = Method::from_id(id)
            .ok_or_else(|| JsError::new(&format!("unknown integrator “{id}”")))?;
        self.mark_gpu_stale();
        if method == Method::ImplicitEuler {
            self.sim
                .set_corotated_implicit(Some(self.implicit_settings));
            return Ok(());
        }
        self.sim.set_corotated_implicit(None);
        self.sim.elasticity = Elasticity::Mkn04;
        self.sim
            .set_integrator(method)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The implicit integration's CG settings: relative residual tolerance and iteration limit.
    pub fn set_implicit_solver(
        &mut self,
        tolerance: f64,
        max_iterations: u32,
    ) -> Result<(), JsError> {
        self.implicit_settings = CorotatedImplicit {
            tolerance: check("CG tolerance", tolerance, 1e-10, 0.1)?,
            max_iterations: check("CG iterations", f64::from(max_iterations), 1.0, 10_000.0)?
                as usize,
            ..self.implicit_settings
        };
        if self.sim.corotated_implicit().is_some() {
            self.sim
                .set_corotated_implicit(Some(self.implicit_settings));
            self.mark_gpu_stale();
        }
        Ok(())
    }

    /// Whether the corotated implicit Euler integrates (no stability bound applies).
    pub fn is_implicit(&self) -> bool {
        self.sim.corotated_implicit().is_some()
    }

    /// The last implicit step's solve: the GPU's last read back while it steps, else the CPU's.
    fn last_solve(&self) -> Option<SolveStats> {
        if !self.is_implicit() {
            return None;
        }
        match &self.gpu {
            Some(gpu) => gpu.last_solve(),
            None => self.sim.last_solve(),
        }
    }

    /// CG iterations of the last implicit step (−1 when none was taken).
    pub fn cg_iterations(&self) -> f64 {
        self.last_solve().map_or(-1.0, |s| s.iterations as f64)
    }

    /// Relative residual ‖b − A Δv‖/‖b‖ the last implicit step's CG ended with (−1 when none).
    pub fn cg_residual(&self) -> f64 {
        self.last_solve().map_or(-1.0, |s| s.relative_residual)
    }

    pub fn phyxel_count(&self) -> usize {
        self.sim.body.len()
    }

    pub fn mean_neighbours(&self) -> f64 {
        self.sim.body.neighbours.mean_count()
    }

    /// Moment matrices that needed the safe (pseudo-)inverse.
    pub fn regularized_count(&self) -> usize {
        self.sim.body.mls.regularized
    }

    pub fn reference_updates(&self) -> usize {
        self.sim.reference_updates
    }

    /// Lattice spacing (m).
    pub fn spacing(&self) -> f64 {
        self.description.spacing()
    }

    /// The explicit stability bound h√(ρ/E) (s).
    pub fn cfl_time_step(&self) -> f64 {
        self.sim.cfl_time_step()
    }

    /// The default step: a safe fraction of the bound.
    pub fn recommended_time_step(&self) -> f64 {
        self.sim.recommended_time_step()
    }

    pub fn time(&self) -> f64 {
        self.sim.time
    }

    /// Steps taken since the scene was built.
    pub fn steps(&self) -> f64 {
        self.steps as f64
    }

    /// Kinetic + gravitational + elastic energy (J).
    pub fn energy(&self) -> f64 {
        self.sim.energy()
    }

    pub fn max_temperature(&self) -> f64 {
        self.sim
            .body
            .temperature
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The tallest point of the body (m): how far a melting block has slumped.
    pub fn height(&self) -> f64 {
        self.sim
            .body
            .positions()
            .iter()
            .map(|p| p.y)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Centre and radius of the body's bounding sphere: [x, y, z, r].
    pub fn bounds(&self) -> Vec<f64> {
        let positions = self.sim.body.positions();
        let (lo, hi) = positions
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        let centre = 0.5 * (lo + hi);
        vec![centre.x, centre.y, centre.z, 0.5 * (hi - lo).length()]
    }

    /// Enable MKN04 plasticity (c_yield, c_creep in 1/s, c_max), or disable it with `enabled = false`.
    pub fn set_plasticity(
        &mut self,
        enabled: bool,
        yield_strain: f64,
        creep: f64,
        max_strain: f64,
    ) -> Result<(), JsError> {
        self.sim.plasticity = if enabled {
            Some(Plasticity {
                yield_strain: check("yield", yield_strain, 0.0, 10.0)?,
                creep: check("creep", creep, 0.0, 1e4)?,
                max_strain: check("max", max_strain, 0.0, 10.0)?,
            })
        } else {
            None
        };
        Ok(())
    }

    /// Heat with a source at (x, y, z) of the given radius (m) and rate (K/s); rate 0 switches the
    /// source off (the heat already there keeps diffusing).
    pub fn set_heat_source(
        &mut self,
        x: f64,
        y: f64,
        z: f64,
        radius: f64,
        rate: f64,
    ) -> Result<(), JsError> {
        let position = DVec3::new(x, y, z);
        if !position.is_finite() {
            return Err(JsError::new("the heat source position must be finite"));
        }
        let rate = check("heat rate", rate, 0.0, 1e4)?;
        let heat_source = (rate > 0.0)
            .then(|| {
                Ok::<_, JsError>(HeatSource {
                    position,
                    radius: check("heat radius", radius, 1e-3, 10.0)?,
                    rate,
                })
            })
            .transpose()?;
        self.sim.melting = Some(Melting {
            melting_point: MELTING_POINT,
            molten_stiffness: 0.005,
            diffusivity: 5.0,
            heat_source,
        });
        Ok(())
    }

    /// Advance `steps` steps of `dt`. Returns false (and keeps the last good state) on a blow-up;
    /// [`PhyxelDemo::error`] then explains it.
    pub fn step(&mut self, dt: f64, steps: u32) -> Result<bool, JsError> {
        let dt = check("Δt", dt, 1e-7, 0.1)?;
        if self.gpu.is_some() {
            match self.step_on_gpu(dt, steps) {
                Ok(()) => return Ok(true),
                // Refused (an integrator the GPU does not mirror, say): carry on on the CPU.
                Err(reason) => self.notice = Some(reason),
            }
        }
        let sim = &mut self.sim;
        // The whole batch on one pool thread (the threaded build): see `parallel::in_pool`.
        let (taken, blow_up) = in_pool(|| {
            for taken in 0..steps {
                if let Err(blow_up) = sim.step(dt) {
                    return (taken, Some(blow_up));
                }
            }
            (steps, None)
        });
        self.steps += u64::from(taken);
        self.error = blow_up.map(|b| b.to_string());
        Ok(self.error.is_none())
    }

    /// The simulation's state as one array of numbers — the demo's step count, then
    /// [`Simulation::snapshot`] — for the page to mirror the solver worker's simulation, or to carry
    /// the motion over to another backend. With `with_reference` the rest shape travels too (needed
    /// once a reference update has moved it).
    pub fn snapshot(&self, with_reference: bool) -> Vec<f64> {
        let mut state = vec![self.steps as f64];
        state.extend(self.sim.snapshot(with_reference).0);
        state
    }

    /// Take the state of [`PhyxelDemo::snapshot`] from a demo of the same scene and settings. Refused,
    /// changing nothing, if it does not fit.
    pub fn restore(&mut self, state: Vec<f64>) -> Result<(), JsError> {
        let (steps, snapshot) = match state.split_first() {
            Some((&steps, rest)) if steps >= 0.0 && steps.fract() == 0.0 => (steps, rest),
            _ => return Err(JsError::new("the state must start with a step count")),
        };
        self.sim
            .restore(&Snapshot(snapshot.to_vec()))
            .map_err(|e| JsError::new(&e.to_string()))?;
        self.steps = steps as u64;
        self.error = None;
        self.mark_gpu_stale();
        Ok(())
    }

    pub fn error(&self) -> Option<String> {
        self.error.clone()
    }

    /// "gpu" while the GPU backend steps, else "cpu".
    pub fn backend(&self) -> String {
        if self.gpu.is_some() { "gpu" } else { "cpu" }.into()
    }

    /// Step on the CPU again, from the last state read back from the GPU.
    pub fn use_cpu(&mut self) {
        self.gpu = None;
    }

    /// Why the demo went back to the CPU by itself, once (then None).
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// Current positions as x, y, z triples.
    pub fn positions(&self) -> Vec<f32> {
        self.sim
            .body
            .positions()
            .iter()
            .flat_map(|p| [p.x as f32, p.y as f32, p.z as f32])
            .collect()
    }

    /// Per-phyxel temperatures (°C).
    pub fn temperatures(&self) -> Vec<f32> {
        self.sim
            .body
            .temperature
            .iter()
            .map(|&t| t as f32)
            .collect()
    }

    /// Pick the phyxel nearest along the ray `origin` + s·`direction` (each [x, y, z]) within `radius`
    /// of it; −1 if none.
    pub fn pick(&self, origin: Vec<f64>, direction: Vec<f64>, radius: f64) -> Result<i32, JsError> {
        let (origin, direction) = (
            vector(&origin, "ray origin")?,
            vector(&direction, "ray direction")?,
        );
        Ok(self
            .sim
            .pick(origin, direction, radius)
            .map_or(-1, |i| i as i32))
    }

    /// Position of phyxel `phyxel`: [x, y, z] (empty for an invalid index).
    pub fn position(&self, phyxel: i32) -> Vec<f64> {
        let body = &self.sim.body;
        usize::try_from(phyxel)
            .ok()
            .filter(|&i| i < body.len())
            .map(|i| {
                (body.reference[i] + body.displacement[i])
                    .to_array()
                    .to_vec()
            })
            .unwrap_or_default()
    }

    /// Drag phyxel `phyxel` towards (x, y, z) with a spring that a step of `dt` integrates stably
    /// (k = 0.2 m/Δt², so √(k/m)·Δt ≈ 0.45 < 2), stretched at most one lattice spacing so that a far
    /// target pulls firmly without flinging the phyxel; a negative index releases it.
    pub fn drag(&mut self, phyxel: i32, x: f64, y: f64, z: f64, dt: f64) {
        let target = DVec3::new(x, y, z);
        let valid = usize::try_from(phyxel)
            .ok()
            .filter(|&i| i < self.sim.body.len() && target.is_finite() && dt > 0.0);
        self.sim.drag = valid.map(|i| Drag {
            phyxel: i,
            target,
            stiffness: 0.2 * self.sim.body.mass[i] / (dt * dt),
            max_stretch: self.description.spacing(),
        });
    }
}

impl PhyxelDemo {
    /// What the renderer draws, coloured by `colour_by` ("object", "temperature", "plastic",
    /// "speed").
    pub fn frame_data(&self, colour_by: &str) -> Result<FrameData, String> {
        self.frame(colour_by, true, true)
    }

    /// [`PhyxelDemo::frame_data`] with only the parts to be drawn: the phyxels and/or the surfaces
    /// (the surface vertices need every phyxel's displacement gradient).
    pub fn frame(
        &self,
        colour_by: &str,
        with_phyxels: bool,
        with_surfaces: bool,
    ) -> Result<FrameData, String> {
        let body = &self.sim.body;
        let values: Vec<f64> = match colour_by {
            "object" => self.object_of.iter().map(|&k| k as f64).collect(),
            "temperature" => body
                .temperature
                .iter()
                .map(|t| (t - AMBIENT_TEMPERATURE) / (MELTING_POINT - AMBIENT_TEMPERATURE))
                .collect(),
            "plastic" => {
                let full = self.sim.plasticity.map_or(0.3, |p| p.max_strain.max(1e-3));
                match self.sim.elasticity {
                    Elasticity::Mkn04 => body
                        .plastic_strain
                        .iter()
                        .map(|e| norm(*e) / full)
                        .collect(),
                    Elasticity::CorotatedLinear => body
                        .plastic_deformation
                        .iter()
                        .map(|f| plastic_stretch(*f) / full)
                        .collect(),
                }
            }
            "speed" => body.velocity.iter().map(|v| v.length() / 2.0).collect(),
            other => {
                return Err(format!(
                    "unknown colouring “{other}” (known: object, temperature, plastic, speed)"
                ))
            }
        };
        let colouring = if colour_by == "object" {
            Colouring::ByObject
        } else {
            Colouring::ByValue
        };
        let phyxels = if with_phyxels {
            body.positions()
                .iter()
                .zip(&values)
                .map(|(p, v)| [p.x as f32, p.y as f32, p.z as f32, *v as f32])
                .collect()
        } else {
            Vec::new()
        };
        let mut surface_vertices = Vec::new();
        let deformed = if with_surfaces {
            self.sim.surface_vertices()
        } else {
            Vec::new()
        };
        for (k, (surface, vertices)) in self.sim.surfaces.iter().zip(deformed).enumerate() {
            let normals = vertex_normals(&vertices, &surface.triangles);
            let vertex_values = match colouring {
                Colouring::ByObject => vec![k as f64; vertices.len()],
                Colouring::ByValue => surface.interpolate(&values),
            };
            for ((p, n), v) in vertices.iter().zip(&normals).zip(&vertex_values) {
                surface_vertices.extend([p.x, p.y, p.z, n.x, n.y, n.z, *v].map(|c| c as f32));
            }
        }
        let obstacles = self
            .sim
            .environment
            .colliders
            .iter()
            .filter_map(|c| match *c {
                Collider::Sphere { center, radius } => Some((center.as_vec3(), radius as f32)),
                _ => None,
            })
            .collect();
        Ok(FrameData {
            phyxels,
            phyxel_radius: 0.5 * self.spacing() as f32,
            surface_vertices,
            surface_indices: if with_surfaces {
                self.triangles.clone()
            } else {
                Vec::new()
            },
            colouring,
            obstacles,
        })
    }
}

fn material(
    young: f64,
    poisson: f64,
    density: f64,
    volume_stiffness: f64,
) -> Result<Material, JsError> {
    Ok(Material {
        young: check("E", young, 1e2, 1e12)?,
        poisson: check("ν", poisson, 0.0, 0.49)?,
        density: check("ρ", density, 1.0, 1e5)?,
        volume_stiffness: check("k_v", volume_stiffness, 0.0, 1e12)?,
    })
}

fn vector(v: &[f64], name: &str) -> Result<DVec3, JsError> {
    match v {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(DVec3::new(*x, *y, *z)),
        _ => Err(JsError::new(&format!(
            "{name} must be three finite numbers"
        ))),
    }
}

#[cfg(feature = "view")]
mod gpu_backend;
#[cfg(feature = "view")]
use gpu_backend::GpuBackend;
#[cfg(feature = "view")]
pub use gpu_backend::SolverDrawing;

/// Without the `view` feature (the solver worker's build) there is no GPU backend: `gpu` is None.
#[cfg(not(feature = "view"))]
enum GpuBackend {}

#[cfg(not(feature = "view"))]
impl GpuBackend {
    fn last_solve(&self) -> Option<SolveStats> {
        match *self {}
    }
}

#[cfg(not(feature = "view"))]
impl PhyxelDemo {
    fn mark_gpu_stale(&mut self) {}

    fn step_on_gpu(&mut self, _dt: f64, _steps: u32) -> Result<(), String> {
        Err("this build has no GPU backend".into())
    }
}

#[cfg(all(test, not(target_arch = "wasm32"), feature = "view"))]
mod gpu_tests;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
