//! Bindings for the "Elastic, plastic and melting objects" demo: the phyxel solver driven from the
//! page. (Its wgpu renderer comes with the demo page; this is the simulation half.)

use crate::check;
use glam::DVec3;
use phyxel::meshless::body::{Body, SupportRadius};
use phyxel::meshless::material::Material;
use phyxel::meshless::melting::{HeatSource, Melting};
use phyxel::meshless::mesh::{bunny, sample_mesh};
use phyxel::meshless::plasticity::Plasticity;
use phyxel::meshless::sampling::{sample, Lattice, Shape};
use phyxel::meshless::simulation::{Drag, Environment, Simulation};
use wasm_bindgen::prelude::*;

/// The phyxel solver as the page sees it.
#[wasm_bindgen]
pub struct PhyxelDemo {
    sim: Simulation,
    /// The last blow-up, explained; the simulation then stays at its last good state.
    error: Option<String>,
}

#[wasm_bindgen]
impl PhyxelDemo {
    /// A scene ("cube", "sphere" or "bunny") with `spacing` between phyxels, Young's modulus E (Pa),
    /// Poisson's ratio ν and density ρ (kg/m³), dropped from 0.2 m above the ground.
    #[wasm_bindgen(constructor)]
    pub fn new(
        scene: &str,
        spacing: f64,
        young: f64,
        poisson: f64,
        density: f64,
    ) -> Result<PhyxelDemo, JsError> {
        let spacing = check("spacing", spacing, 0.01, 0.5)?;
        let material = Material {
            young: check("E", young, 1e2, 1e12)?,
            poisson: check("ν", poisson, 0.0, 0.49)?,
            density: check("ρ", density, 1.0, 1e5)?,
            volume_stiffness: 0.5 * young,
        };
        let lift = DVec3::new(0.0, 0.2, 0.0);
        let points = match scene {
            "cube" => sample(
                &Shape::Box {
                    min: lift,
                    max: lift + DVec3::splat(0.4),
                },
                spacing,
                Lattice::Cubic,
            ),
            "sphere" => sample(
                &Shape::Sphere {
                    center: lift + DVec3::splat(0.25),
                    radius: 0.25,
                },
                spacing,
                Lattice::Cubic,
            ),
            "bunny" => sample_mesh(&bunny(), spacing, Lattice::Cubic)
                .into_iter()
                .map(|p| p + lift)
                .collect(),
            other => {
                return Err(JsError::new(&format!(
                    "unknown scene “{other}” (known: cube, sphere, bunny)"
                )))
            }
        };
        if points.len() > 200_000 {
            return Err(JsError::new(&format!(
                "{} phyxels are too many for the CPU: use a larger spacing",
                points.len()
            )));
        }
        let body = Body::new(
            points,
            spacing.powi(3),
            spacing,
            material,
            SupportRadius::SpacingMultiple { factor: 2.2 },
        );
        Ok(PhyxelDemo {
            sim: Simulation::new(body, Environment::default()),
            error: None,
        })
    }

    pub fn phyxel_count(&self) -> usize {
        self.sim.body.len()
    }

    pub fn mean_neighbours(&self) -> f64 {
        self.sim.body.neighbours.mean_count()
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

    /// Heat with a source at (x, y, z) of the given radius and rate (K/s); rate 0 switches it off.
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
        let heat_source = Some(HeatSource {
            position,
            radius: check("heat radius", radius, 1e-3, 10.0)?,
            rate: check("heat rate", rate, 0.0, 1e4)?,
        });
        self.sim.melting = Some(Melting {
            melting_point: 100.0,
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
        for _ in 0..steps {
            if let Err(blow_up) = self.sim.step(dt) {
                self.error = Some(blow_up.to_string());
                return Ok(false);
            }
        }
        self.error = None;
        Ok(true)
    }

    pub fn error(&self) -> Option<String> {
        self.error.clone()
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
        let vector = |v: &[f64], name: &str| match v {
            [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(DVec3::new(*x, *y, *z)),
            _ => Err(JsError::new(&format!(
                "{name} must be three finite numbers"
            ))),
        };
        let (origin, direction) = (
            vector(&origin, "ray origin")?,
            vector(&direction, "ray direction")?,
        );
        Ok(self
            .sim
            .pick(origin, direction, radius)
            .map_or(-1, |i| i as i32))
    }

    /// Drag phyxel `phyxel` towards (x, y, z) with a spring of stiffness k; a negative index releases it.
    pub fn drag(&mut self, phyxel: i32, x: f64, y: f64, z: f64, stiffness: f64) {
        let target = DVec3::new(x, y, z);
        self.sim.drag = (phyxel >= 0
            && (phyxel as usize) < self.sim.body.len()
            && target.is_finite()
            && stiffness.is_finite())
        .then_some(Drag {
            phyxel: phyxel as usize,
            target,
            stiffness: stiffness.max(0.0),
        });
    }
}
