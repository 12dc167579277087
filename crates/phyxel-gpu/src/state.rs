//! The state read back from the device: [`GpuState`] (displacements, velocities, temperatures, plastic
//! strains, the rest shape, the status flags, the implicit step's CG statistics and F_p at the phyxels
//! or the integration points) and the
//! neighbourhoods as the device holds them, each as a future that owns what it needs — handles to the
//! device, queue and buffers — so that the solver can go on stepping while it is pending.

use crate::body::BodyBuffers;
use crate::context::{GpuContext, GpuError};
use crate::implicit::{next_budget, solve_stats, ImplicitStep};
use crate::layout::{from_mat3, ImplicitFrame, PointFrame};
use crate::loading::BallReadBack;
use crate::neighbours::from_reverse_owners;
use crate::passes::zeroed;
use crate::readback::{read_buffers, read_u32s};
use crate::wgsl::status;
use glam::{DMat3, DVec3};
use phyxel::meshless::fracture::slab::Ball;
use phyxel::meshless::implicit::SolveStats;
use phyxel::meshless::neighbours::Neighbourhoods;
use std::future::Future;
use std::sync::atomic::Ordering;

/// What the GPU holds of the simulation, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuState {
    pub displacement: Vec<DVec3>,
    pub velocity: Vec<DVec3>,
    /// Temperatures T_i (°C).
    pub temperature: Vec<f64>,
    /// Plastic strains ε_plastic,i.
    pub plastic_strain: Vec<DMat3>,
    /// The largest total strain ‖ε‖ seen by the plastic flow since the last read: above the
    /// simulation's `reference_update_strain` the rest shape is due for an update.
    pub largest_total_strain: f64,
    /// Some step moved a phyxel faster than the travel bound (explicit), turned a neighbourhood by
    /// more than `MAX_ROTATION_PER_STEP` (implicit), or produced a non-finite value.
    pub blown_up: bool,
    /// CG iterations and residual of the last implicit step (None for explicit steps).
    pub last_solve: Option<SolveStats>,
    /// The corotated model's plastic deformations F_p (implicit steps only).
    pub plastic_deformation: Option<Vec<DMat3>>,
    /// F_p,I of the integration points of a body with background quadrature (implicit steps only).
    pub point_plastic_deformation: Option<Vec<DMat3>>,
    /// The rest shape x̄ (moved by the reference updates).
    pub reference: Vec<DVec3>,
    /// Reference updates the device has made since the upload.
    pub reference_updates: u32,
    /// A reference update was due but the deformed shape's neighbour lists would not fit the edge
    /// buffers: the edges it needed (the device kept the old rest shape).
    pub neighbour_overflow: Option<u32>,
    /// The struck slab's ball (`GpuSolver::set_ball`), as the device moved it.
    pub ball: Option<Ball>,
}

/// `vec4<f32>` values as vectors.
fn vectors(raw: &[u8]) -> Vec<DVec3> {
    bytemuck::cast_slice::<u8, [f32; 4]>(raw)
        .iter()
        .map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64))
        .collect()
}

/// Read the state of the body `b` back (with the CG statistics and F_p of `implicit`, which also
/// adjusts its iteration budget from them, and the struck ball's state).
pub fn read_state(
    gpu: &GpuContext,
    b: &BodyBuffers,
    implicit: Option<&ImplicitStep>,
    ball: Option<BallReadBack>,
) -> impl Future<Output = Result<GpuState, GpuError>> + 'static {
    let bytes = u64::from(b.phyxels) * 16;
    let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
    let failure = gpu.failure_slot();
    let mut buffers = vec![
        (b.displacement.clone(), bytes),
        (b.velocity.clone(), bytes),
        (b.temperature.clone(), bytes / 4),
        (b.plastic_strain.clone(), bytes * 3),
        (b.status.clone(), u64::from(status::WORDS) * 4),
        (b.reference.clone(), bytes),
    ];
    // The CG scalars of an implicit step: copied out of the work buffer first, then read with the
    // frames (F_p at the phyxels) and, with a quadrature, the point frames.
    let implicit = implicit.map(|implicit| {
        let (offset, size) = implicit.scalars_range();
        let copy = zeroed(&gpu.device, "CG scalars", size as usize);
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(&implicit.work, offset, &copy, 0, size);
        gpu.queue.submit([encoder.finish()]);
        buffers.push((copy, size));
        let frames_bytes = u64::from(b.phyxels) * size_of::<ImplicitFrame>() as u64;
        buffers.push((implicit.frames.clone(), frames_bytes));
        let points = implicit.point_frames().map(|(buffer, count)| {
            let bytes = u64::from(count) * size_of::<PointFrame>() as u64;
            buffers.push((buffer, bytes));
        });
        (
            implicit.budget.clone(),
            implicit.settings.max_iterations,
            points.is_some(),
        )
    });
    let ball = ball.inspect(|read| buffers.push((read.buffer.clone(), BallReadBack::BYTES)));
    async move {
        let sources: Vec<(&wgpu::Buffer, u64)> = buffers.iter().map(|(b, s)| (b, *s)).collect();
        let mut raw = read_buffers(&device, &queue, &sources)
            .await
            .map_err(GpuError)?
            .into_iter();
        if let Some(failure) = failure.lock().unwrap().clone() {
            return Err(GpuError(failure));
        }
        let mut next = || raw.next().expect("one part per buffer read");
        let (displacement, velocity, temperature, plastic, status, reference) =
            (next(), next(), next(), next(), next(), next());
        let (mut last_solve, mut plastic_deformation, mut point_plastic_deformation) =
            (None, None, None);
        if let Some((budget, limit, points)) = &implicit {
            let solve = solve_stats(bytemuck::cast_slice::<u8, f32>(&next()));
            let queued = budget.load(Ordering::Relaxed);
            budget.store(next_budget(&solve, queued, *limit), Ordering::Relaxed);
            last_solve = Some(solve);
            let frames = next();
            plastic_deformation = Some(
                bytemuck::cast_slice::<u8, ImplicitFrame>(&frames)
                    .iter()
                    .map(|frame| from_mat3(bytemuck::cast_slice(&frame.plastic_inverse)).inverse())
                    .collect(),
            );
            if *points {
                let frames = next();
                point_plastic_deformation = Some(
                    bytemuck::cast_slice::<u8, PointFrame>(&frames)
                        .iter()
                        .map(|frame| {
                            from_mat3(bytemuck::cast_slice(&frame.plastic_inverse)).inverse()
                        })
                        .collect(),
                );
            }
        }
        let ball = ball.as_ref().map(|read| read.ball(&next()));
        let status: Vec<u32> = bytemuck::pod_collect_to_vec(&status);
        let slot = |k: u32| status[k as usize];
        let overflow = slot(status::NEIGHBOUR_OVERFLOW);
        Ok(GpuState {
            displacement: vectors(&displacement),
            velocity: vectors(&velocity),
            temperature: bytemuck::cast_slice::<u8, f32>(&temperature)
                .iter()
                .map(|t| *t as f64)
                .collect(),
            plastic_strain: bytemuck::cast_slice::<u8, [f32; 12]>(&plastic)
                .iter()
                .map(|m| from_mat3(m))
                .collect(),
            largest_total_strain: f32::from_bits(slot(status::LARGEST_STRAIN)) as f64,
            blown_up: slot(status::BLOWN_UP) != 0,
            last_solve,
            plastic_deformation,
            point_plastic_deformation,
            reference: vectors(&reference),
            reference_updates: slot(status::REFERENCE_UPDATES),
            neighbour_overflow: (overflow != 0).then_some(overflow),
            ball,
        })
    }
}

/// Read the neighbourhoods of the body `b` back as the device holds them now (rows, reverse lists), in
/// the CPU's form (reverse lists of edges, owners).
pub fn read_neighbourhoods(
    gpu: &GpuContext,
    b: &BodyBuffers,
) -> impl Future<Output = Result<Neighbourhoods, GpuError>> + 'static {
    let (device, queue) = (gpu.device.clone(), gpu.queue.clone());
    let n = b.phyxels as usize;
    let (start, reverse_start) = (b.start.clone(), b.reverse_start.clone());
    let (neighbour, reverse) = (b.edges.neighbour.clone(), b.edges.reverse.clone());
    async move {
        let read = |buffer, len| {
            let (device, queue) = (device.clone(), queue.clone());
            async move {
                read_u32s(&device, &queue, &buffer, len)
                    .await
                    .map_err(GpuError)
            }
        };
        let start = read(start, n + 1).await?;
        let edges = start[n] as usize;
        let neighbour = read(neighbour, edges).await?;
        let reverse_start = read(reverse_start, n + 1).await?;
        let reverse_owners = read(reverse, edges).await?;
        Ok(from_reverse_owners(
            start,
            neighbour,
            reverse_start,
            &reverse_owners,
        ))
    }
}
