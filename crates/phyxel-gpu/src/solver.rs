//! The GPU twin of `phyxel::meshless::simulation::Simulation`: the body's state in storage buffers and
//! one compute pipeline per solver pass.

use crate::context::{GpuContext, GpuError};
use crate::layout::{mat3, vec4, GpuCollider, Params, PhyxelConstants};
use crate::readback::read_buffer;
use glam::DVec3;
use phyxel::integrators::Method;
use phyxel::meshless::simulation::{Simulation, MAX_TRAVEL_PER_STEP};
use wgpu::util::DeviceExt;

/// Phyxels per workgroup (`WORKGROUP_SIZE` in shaders/common.wgsl).
const WORKGROUP_SIZE: u32 = 64;

/// What the GPU holds of the simulation, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuState {
    pub displacement: Vec<DVec3>,
    pub velocity: Vec<DVec3>,
    /// Some step moved a phyxel faster than the travel bound or produced a non-finite value.
    pub blown_up: bool,
}

/// One compute pass: its pipeline and its bindings.
struct Pass {
    pipeline: wgpu::ComputePipeline,
    bindings: wgpu::BindGroup,
}

/// The body on the GPU.
pub struct GpuSolver {
    phyxels: u32,
    params: Params,
    params_buffer: wgpu::Buffer,
    displacement: wgpu::Buffer,
    velocity: wgpu::Buffer,
    status: wgpu::Buffer,
    /// phyxel_stresses, gather_forces, integrate: in the order a step runs them.
    passes: [Pass; 3],
    /// Smallest support radius (m): the travel bound is MAX_TRAVEL_PER_STEP · h / Δt.
    min_support_radius: f64,
}

impl GpuSolver {
    /// Upload `sim` (its body, neighbourhoods, MLS weights, material and environment). Refuses what
    /// the GPU backend does not mirror yet, and bodies whose buffers exceed the device's limits.
    pub fn new(gpu: &GpuContext, sim: &Simulation) -> Result<Self, GpuError> {
        if sim.integrator() != Method::SymplecticEuler {
            return Err(GpuError(format!(
                "the GPU backend integrates with symplectic Euler only (not {})",
                sim.integrator().name()
            )));
        }
        if sim.plasticity.is_some() || sim.melting.is_some() || sim.drag.is_some() {
            return Err(GpuError(
                "plasticity, melting and dragging run on the CPU backend only so far".into(),
            ));
        }
        let body = &sim.body;
        let hoods = &body.neighbours;
        let largest = (hoods.neighbour.len().max(body.len()) * 48) as u64;
        let limit = gpu
            .limits
            .max_storage_buffer_binding_size
            .min(gpu.limits.max_buffer_size);
        if largest > limit {
            return Err(GpuError(format!(
                "{} phyxels need a {} MiB buffer; this GPU binds at most {} MiB: lower the resolution",
                body.len(),
                largest >> 20,
                limit >> 20
            )));
        }
        let device = &gpu.device;
        let storage = |label: &str, bytes: &[u8], writable: bool| {
            // Zero-sized bindings are invalid: pad empty lists to one element.
            let padded;
            let contents = if bytes.is_empty() {
                padded = [0u8; 16];
                &padded[..]
            } else {
                bytes
            };
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | if writable {
                        wgpu::BufferUsages::COPY_SRC
                    } else {
                        wgpu::BufferUsages::empty()
                    },
            })
        };
        let vectors = |v: &[DVec3]| -> Vec<[f32; 4]> { v.iter().map(|x| vec4(*x)).collect() };
        let reference = storage(
            "reference",
            bytemuck::cast_slice(&vectors(&body.reference)),
            false,
        );
        let displacement = storage(
            "displacement",
            bytemuck::cast_slice(&vectors(&body.displacement)),
            true,
        );
        let velocity = storage(
            "velocity",
            bytemuck::cast_slice(&vectors(&body.velocity)),
            true,
        );
        let forces = storage("forces", &vec![0u8; body.len() * 16], true);
        let start = storage("start", bytemuck::cast_slice(&hoods.start), false);
        let neighbour = storage("neighbour", bytemuck::cast_slice(&hoods.neighbour), false);
        let reverse_start = storage(
            "reverse start",
            bytemuck::cast_slice(&hoods.reverse_start),
            false,
        );
        let reverse = storage("reverse", bytemuck::cast_slice(&hoods.reverse), false);
        let owner = storage("owner", bytemuck::cast_slice(&hoods.owner), false);
        let d = storage(
            "MLS weights d",
            bytemuck::cast_slice(&vectors(&body.mls.d)),
            false,
        );
        let constants: Vec<PhyxelConstants> = (0..body.len())
            .map(|i| PhyxelConstants {
                mass: body.mass[i] as f32,
                volume: body.volume[i] as f32,
                stiffness_scale: body.stiffness_scale[i] as f32,
                unused: 0.0,
            })
            .collect();
        let phyxel = storage("phyxel constants", bytemuck::cast_slice(&constants), false);
        let plastic: Vec<[f32; 12]> = body.plastic_strain.iter().map(|m| mat3(*m)).collect();
        let plastic_strain = storage("plastic strain", bytemuck::cast_slice(&plastic), false);
        let force_matrix = storage("force matrix", &vec![0u8; body.len() * 48], true);
        let colliders: Vec<GpuCollider> = sim
            .environment
            .colliders
            .iter()
            .map(GpuCollider::from)
            .collect();
        let collider_buffer = storage("colliders", bytemuck::cast_slice(&colliders), false);
        let status = storage("status", &[0u8; 16], true);

        let (lambda, mu) = body.material.lame();
        let environment = &sim.environment;
        let params = Params {
            counts: [body.len() as u32, colliders.len() as u32, 0, 0],
            gravity_dt: [
                environment.gravity.x as f32,
                environment.gravity.y as f32,
                environment.gravity.z as f32,
                0.0,
            ],
            material: [
                lambda as f32,
                mu as f32,
                body.material.volume_stiffness as f32,
                environment.damping as f32,
            ],
            contact: [environment.friction as f32, 0.0, 0.0, 0.0],
        };
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let pass = |name: &str, source: &str, buffers: &[&wgpu::Buffer]| {
            let code = format!(
                "{}\n{}",
                include_str!("../../../shaders/common.wgsl"),
                source
            );
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::Wgsl(code.into()),
            });
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(name),
                layout: None,
                module: &module,
                entry_point: Some(name),
                compilation_options: Default::default(),
                cache: None,
            });
            let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&params_buffer)
                .chain(buffers.iter().copied())
                .enumerate()
                .map(|(binding, buffer)| wgpu::BindGroupEntry {
                    binding: binding as u32,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            let bindings = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(name),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            Pass { pipeline, bindings }
        };
        let passes = [
            pass(
                "phyxel_stresses",
                include_str!("../../../shaders/phyxel_stresses.wgsl"),
                &[
                    &displacement,
                    &start,
                    &neighbour,
                    &d,
                    &phyxel,
                    &plastic_strain,
                    &force_matrix,
                ],
            ),
            pass(
                "gather_forces",
                include_str!("../../../shaders/gather_forces.wgsl"),
                &[
                    &force_matrix,
                    &start,
                    &d,
                    &reverse_start,
                    &reverse,
                    &owner,
                    &forces,
                ],
            ),
            pass(
                "integrate",
                include_str!("../../../shaders/integrate.wgsl"),
                &[
                    &reference,
                    &displacement,
                    &velocity,
                    &forces,
                    &phyxel,
                    &collider_buffer,
                    &status,
                ],
            ),
        ];
        let min_support_radius = body
            .support_radius
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        Ok(Self {
            phyxels: body.len() as u32,
            params,
            params_buffer,
            displacement,
            velocity,
            status,
            passes,
            min_support_radius,
        })
    }

    /// Queue `steps` steps of `dt`: three dispatches each, one submission in all.
    pub fn step(&mut self, gpu: &GpuContext, dt: f64, steps: u32) {
        self.params.gravity_dt[3] = dt as f32;
        self.params.contact[1] = (MAX_TRAVEL_PER_STEP * self.min_support_radius / dt) as f32;
        gpu.queue
            .write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&self.params));
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("phyxel steps"),
            });
        {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("phyxel steps"),
                timestamp_writes: None,
            });
            let groups = self.phyxels.div_ceil(WORKGROUP_SIZE);
            for _ in 0..steps {
                for pass in &self.passes {
                    compute.set_pipeline(&pass.pipeline);
                    compute.set_bind_group(0, &pass.bindings, &[]);
                    compute.dispatch_workgroups(groups, 1, 1);
                }
            }
        }
        gpu.queue.submit([encoder.finish()]);
    }

    /// Read the displacements, velocities and the blow-up flag back.
    pub async fn read_state(&self, gpu: &GpuContext) -> Result<GpuState, GpuError> {
        let bytes = u64::from(self.phyxels) * 16;
        let read = |buffer| read_buffer(&gpu.device, &gpu.queue, buffer, bytes);
        let vectors = |raw: Vec<u8>| -> Vec<DVec3> {
            bytemuck::cast_slice::<u8, [f32; 4]>(&raw)
                .iter()
                .map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64))
                .collect()
        };
        let displacement = vectors(read(&self.displacement).await.map_err(GpuError)?);
        let velocity = vectors(read(&self.velocity).await.map_err(GpuError)?);
        let status = read_buffer(&gpu.device, &gpu.queue, &self.status, 16)
            .await
            .map_err(GpuError)?;
        gpu.check()?;
        Ok(GpuState {
            displacement,
            velocity,
            blown_up: status[0] != 0,
        })
    }
}
