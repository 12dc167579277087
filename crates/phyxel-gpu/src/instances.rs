//! What the 3D view draws of each phyxel — position and colour value — computed on the device from the
//! solver's own buffers (`shaders/render/phyxel_instances.wgsl`), so that a renderer on the same device
//! draws every frame without reading the state back.

use crate::context::GpuContext;
use crate::layout::{ImplicitFrame, InstanceSettings};
use crate::passes::{encode, storage_buffer, uniform, zeroed, Pass};
use crate::solver::GpuSolver;
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};

/// The colour value of each phyxel, as `PhyxelDemo::frame_data` computes it on the CPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InstanceColouring {
    /// The object's index.
    Object,
    /// (T − ambient) / (melting point − ambient).
    Temperature { ambient: f64, melting_point: f64 },
    /// ‖ε_p‖ / full (MKN04's additive plastic strain).
    PlasticStrain { full: f64 },
    /// ‖ln σ(F_p)‖ / full (the corotated model's plastic deformation gradient).
    PlasticDeformation { full: f64 },
    /// |v| / 2 m/s.
    Speed,
}

/// The instance buffer (x, y, z, value per phyxel: a vertex buffer for the renderer) and the pass
/// that fills it from one [`GpuSolver`]'s buffers.
pub struct PhyxelInstances {
    /// x̄ + u and the colour value of each phyxel (STORAGE | VERTEX).
    pub buffer: wgpu::Buffer,
    pub count: u32,
    settings: wgpu::Buffer,
    pass: Pass,
}

impl PhyxelInstances {
    /// The pass for `solver`'s buffers; `object_of` gives each phyxel's object.
    pub fn new(gpu: &GpuContext, solver: &GpuSolver, object_of: &[u32]) -> Self {
        let device = &gpu.device;
        let state = solver.body();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("phyxel instances"),
            size: u64::from(state.phyxels.max(1)) * 16,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let settings = uniform(device, "instance settings", &InstanceSettings::default());
        let objects = storage_buffer(device, "object of phyxel", bytemuck::cast_slice(object_of));
        // Without the implicit step there is no F_p: bind a placeholder (mode 3 is then never asked).
        let no_frames;
        let frames = match solver.implicit_frames() {
            Some(frames) => frames,
            None => {
                no_frames = zeroed(device, "no frames", size_of::<ImplicitFrame>());
                &no_frames
            }
        };
        let pass = Pass::whole(
            device,
            &[source::SYMMETRIC_EIGEN, source::PHYXEL_INSTANCES],
            "phyxel_instances",
            &[
                (0, &settings),
                (1, &state.reference),
                (2, &state.displacement),
                (3, &state.velocity),
                (4, &state.temperature),
                (5, &state.plastic_strain),
                (6, frames),
                (7, &objects),
                (8, &buffer),
            ],
            workgroups(state.phyxels, WORKGROUP_SIZE),
        );
        Self {
            buffer,
            count: state.phyxels,
            settings,
            pass,
        }
    }

    /// Queue the pass that fills [`PhyxelInstances::buffer`] with `colouring`, into `encoder` (before
    /// the render pass that draws from it).
    pub fn encode(
        &self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        colouring: InstanceColouring,
    ) {
        let (mode, [low, high, full]) = match colouring {
            InstanceColouring::Object => (0, [0.0; 3]),
            InstanceColouring::Temperature {
                ambient,
                melting_point,
            } => (1, [ambient, melting_point, 1.0]),
            InstanceColouring::PlasticStrain { full } => (2, [0.0, 1.0, full]),
            InstanceColouring::PlasticDeformation { full } => (3, [0.0, 1.0, full]),
            InstanceColouring::Speed => (4, [0.0; 3]),
        };
        let settings = InstanceSettings {
            mode,
            phyxels: self.count,
            low: low as f32,
            high: high as f32,
            full: full as f32,
            ..InstanceSettings::default()
        };
        gpu.queue
            .write_buffer(&self.settings, 0, bytemuck::bytes_of(&settings));
        encode(encoder, std::slice::from_ref(&self.pass));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::readback::read_buffer;
    use crate::GpuState;
    use glam::DVec3;
    use phyxel::meshless::implicit::CorotatedImplicit;
    use phyxel::meshless::melting::{HeatSource, Melting};
    use phyxel::meshless::plasticity::{norm, plastic_stretch, Plasticity};
    use phyxel::meshless::scene::{Objects, Scene, SceneDescription};
    use pollster::block_on;

    /// Three objects dropped on the ground, heated at one corner, plastic.
    fn scene() -> Scene {
        let mut scene = SceneDescription {
            objects: Objects::Several,
            resolution: 4,
            ..SceneDescription::default()
        }
        .build(10_000)
        .unwrap();
        let sim = &mut scene.simulation;
        sim.melting = Some(Melting {
            melting_point: 100.0,
            molten_stiffness: 0.005,
            diffusivity: 5.0,
            heat_source: Some(HeatSource {
                position: sim.body.reference[0],
                radius: 0.2,
                rate: 3000.0,
            }),
        });
        sim.plasticity = Some(Plasticity {
            yield_strain: 0.001,
            creep: 100.0,
            max_strain: 0.5,
        });
        scene
    }

    /// The instances of every colouring, read back, against the values the page computes from the
    /// solver's read-back state.
    fn check_instances(
        gpu: &GpuContext,
        solver: &GpuSolver,
        scene: &Scene,
        state: &GpuState,
        colourings: &[(InstanceColouring, Vec<f64>)],
    ) {
        let object_of = scene.object_of_phyxels();
        let instances = PhyxelInstances::new(gpu, solver, &object_of);
        // The rest shape as the device holds it (its reference updates move it).
        let positions: Vec<DVec3> = state
            .reference
            .iter()
            .zip(&state.displacement)
            .map(|(x, u)| *x + *u)
            .collect();
        for (colouring, expected) in colourings {
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            instances.encode(gpu, &mut encoder, *colouring);
            gpu.queue.submit([encoder.finish()]);
            let bytes = block_on(read_buffer(
                &gpu.device,
                &gpu.queue,
                &instances.buffer,
                u64::from(instances.count) * 16,
            ))
            .unwrap();
            let drawn: &[[f32; 4]] = bytemuck::cast_slice(&bytes);
            assert_eq!(drawn.len(), positions.len());
            for (i, (instance, x)) in drawn.iter().zip(&positions).enumerate() {
                let at = DVec3::new(instance[0].into(), instance[1].into(), instance[2].into());
                assert!(
                    at.distance(*x) < 1e-5,
                    "{colouring:?}: phyxel {i} at {at}, not {x}"
                );
                let value = f64::from(instance[3]);
                assert!(
                    (value - expected[i]).abs() <= 1e-4 * expected[i].abs().max(1.0),
                    "{colouring:?}: phyxel {i} has {value}, the page computes {}",
                    expected[i]
                );
            }
        }
    }

    #[test]
    fn the_instances_carry_the_solvers_positions_and_the_pages_colour_values() {
        let gpu = block_on(GpuContext::new()).expect("lavapipe");
        let scene = scene();
        let sim = &scene.simulation;
        let mut solver = GpuSolver::new(&gpu, sim).unwrap();
        assert!(solver.step(&gpu, sim.recommended_time_step(), 150));
        let state = block_on(solver.read_state(&gpu)).unwrap();
        let objects: Vec<f64> = scene
            .object_of_phyxels()
            .iter()
            .map(|&k| k.into())
            .collect();
        assert_eq!(
            objects.iter().cloned().fold(0.0, f64::max),
            2.0,
            "three objects"
        );
        let heat: Vec<f64> = state
            .temperature
            .iter()
            .map(|t| (t - 20.0) / 80.0)
            .collect();
        assert!(
            heat.iter().cloned().fold(0.0, f64::max) > 0.5,
            "the corner is hot"
        );
        let plastic: Vec<f64> = state
            .plastic_strain
            .iter()
            .map(|e| norm(*e) / 0.5)
            .collect();
        assert!(plastic.iter().any(|&p| p > 1e-3), "the landing yielded");
        let speed: Vec<f64> = state.velocity.iter().map(|v| v.length() / 2.0).collect();
        assert!(speed.iter().any(|&s| s > 0.1), "the objects are falling");
        check_instances(
            &gpu,
            &solver,
            &scene,
            &state,
            &[
                (InstanceColouring::Object, objects),
                (
                    InstanceColouring::Temperature {
                        ambient: 20.0,
                        melting_point: 100.0,
                    },
                    heat,
                ),
                (InstanceColouring::PlasticStrain { full: 0.5 }, plastic),
                (InstanceColouring::Speed, speed),
            ],
        );
    }

    #[test]
    fn the_corotated_plastic_stretch_is_drawn_from_the_implicit_steps_plastic_deformation() {
        let gpu = block_on(GpuContext::new()).expect("lavapipe");
        let mut scene = scene();
        scene.simulation.melting = None;
        scene
            .simulation
            .set_corotated_implicit(Some(CorotatedImplicit::default()));
        let mut solver = GpuSolver::new(&gpu, &scene.simulation).unwrap();
        assert!(solver.step(&gpu, 1.0 / 60.0, 30));
        let state = block_on(solver.read_state(&gpu)).unwrap();
        let stretch: Vec<f64> = state
            .plastic_deformation
            .as_ref()
            .expect("the implicit step's F_p")
            .iter()
            .map(|f| plastic_stretch(*f) / 0.5)
            .collect();
        assert!(
            stretch.iter().any(|&s| s > 1e-3),
            "the landing flowed plastically"
        );
        check_instances(
            &gpu,
            &solver,
            &scene,
            &state,
            &[(InstanceColouring::PlasticDeformation { full: 0.5 }, stretch)],
        );
    }
}
