//! Pass 2 on the GPU: densities, volumes, moment matrices with their safe inverses in each phyxel's
//! MLS frame, and from those frames the MLS weights d_ij along each row as the solver's passes form
//! them (`shaders/moment_matrices.wgsl`, `shaders/mls_weight.wgsl`) — the twin of
//! `Body::rebuild_reference` after the neighbour search and of `phyxel::meshless::mls::MlsWeights::compute`.
//! One pass, [`moment_matrices`], runs both in [`compute_mls_weights`] (the parity tests' entry point)
//! and at the solver's reference updates (`crate::reference_update`).

use crate::context::{GpuContext, GpuError};
use crate::edge_windows::{EdgeWindowPlan, EdgeWindows};
use crate::layout::{Count, MlsFrame};
use crate::passes::{encode, storage_buffer, uniform, zeroed, Pass};
use crate::readback::read_buffer;
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};
use glam::{DMat3, DVec3};
use phyxel::meshless::neighbours::Neighbourhoods;

/// The sources of pass 2's entry points.
const SOURCES: [&str; 3] = [
    source::SYMMETRIC_EIGEN,
    source::MLS_WEIGHT,
    source::MOMENT_MATRICES,
];

/// The buffers pass 2 reads and writes.
pub struct MomentBuffers<'a> {
    /// [`Count`] of phyxels (uniform).
    pub count: &'a wgpu::Buffer,
    /// x̄_i with h_i in w.
    pub reference: &'a wgpu::Buffer,
    /// m_i as f32.
    pub mass: &'a wgpu::Buffer,
    pub start: &'a wgpu::Buffer,
    /// Written: the MLS frames, and (density, volume, rank) per phyxel.
    pub mls_frame: &'a wgpu::Buffer,
    pub density_volume_rank: &'a wgpu::Buffer,
}

/// `moment_matrices` over the rows of `edges`, for `phyxels` phyxels: ρ_i, V_i, A_i and its safe
/// inverse in each MLS frame.
pub fn moment_matrices(
    device: &wgpu::Device,
    edges: &EdgeWindows,
    b: &MomentBuffers,
    phyxels: u32,
) -> Pass {
    edges.pass(
        device,
        &SOURCES,
        "moment_matrices",
        &[
            (0, b.count),
            (1, b.reference),
            (2, b.mass),
            (3, b.start),
            (4, &edges.neighbour),
            (6, b.mls_frame),
            (7, b.density_volume_rank),
        ],
        workgroups(phyxels, WORKGROUP_SIZE),
    )
}

/// What pass 2 computes, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuMlsWeights {
    pub density: Vec<f64>,
    pub volume: Vec<f64>,
    /// The rank the safe inverse kept for each moment matrix.
    pub rank: Vec<u8>,
    pub moment_inverse: Vec<DMat3>,
    /// d_ij per edge, in the order of `Neighbourhoods::neighbour`.
    pub d: Vec<DVec3>,
}

/// Pass 2 for reference positions `reference` with support radii `support_radius` and masses
/// `mass` over the neighbourhoods `hoods`.
pub async fn compute_mls_weights(
    gpu: &GpuContext,
    reference: &[DVec3],
    support_radius: &[f64],
    mass: &[f64],
    hoods: &Neighbourhoods,
) -> Result<GpuMlsWeights, GpuError> {
    let device = &gpu.device;
    let n = reference.len();
    let edges = hoods.neighbour.len();
    if n == 0 {
        return Ok(GpuMlsWeights {
            density: vec![],
            volume: vec![],
            rank: vec![],
            moment_inverse: vec![],
            d: vec![],
        });
    }
    let storage = |label: &str, bytes: &[u8]| storage_buffer(device, label, bytes);
    let points: Vec<[f32; 4]> = reference
        .iter()
        .zip(support_radius)
        .map(|(x, h)| [x.x as f32, x.y as f32, x.z as f32, *h as f32])
        .collect();
    let masses: Vec<f32> = mass.iter().map(|m| *m as f32).collect();
    let count = uniform(device, "counts", &Count::of(n as u32));
    let reference_buffer = storage("reference", bytemuck::cast_slice(&points));
    let mass_buffer = storage("mass", bytemuck::cast_slice(&masses));
    let start = storage("start", bytemuck::cast_slice(&hoods.start));
    let plan = EdgeWindowPlan::new(
        edges as u32,
        gpu.limits.max_storage_buffer_binding_size,
        gpu.limits.min_storage_buffer_offset_alignment,
        n as u32,
    )
    .map_err(GpuError)?;
    let windows = EdgeWindows::new(device, plan, &hoods.neighbour, &[]);
    let frames = zeroed(device, "MLS frames", n * size_of::<MlsFrame>());
    let per_phyxel = zeroed(device, "density, volume, rank", n * 16);
    // d_ij per edge, a vec4 each: for comparing with the CPU's (test bodies fit one binding). A binding
    // is at least one element long.
    let d = zeroed(device, "d", edges.max(1) * 16);
    let moments = moment_matrices(
        device,
        &windows,
        &MomentBuffers {
            count: &count,
            reference: &reference_buffer,
            mass: &mass_buffer,
            start: &start,
            mls_frame: &frames,
            density_volume_rank: &per_phyxel,
        },
        n as u32,
    );
    let weights = windows.pass(
        device,
        &SOURCES,
        "mls_weights",
        &[
            (0, &count),
            (3, &start),
            (4, &windows.neighbour),
            (6, &frames),
            (8, &d),
        ],
        moments.workgroups,
    );
    let mut encoder = device.create_command_encoder(&Default::default());
    encode(&mut encoder, &[moments, weights]);
    gpu.queue.submit([encoder.finish()]);
    let read = |buffer, bytes| read_buffer(device, &gpu.queue, buffer, bytes);
    let per_phyxel = read(&per_phyxel, n as u64 * 16).await.map_err(GpuError)?;
    let frames = read(&frames, (n * size_of::<MlsFrame>()) as u64)
        .await
        .map_err(GpuError)?;
    let weights = if edges > 0 {
        read(&d, edges as u64 * 16).await.map_err(GpuError)?
    } else {
        Vec::new()
    };
    gpu.check()?;
    let per_phyxel: &[[f32; 4]] = bytemuck::cast_slice(&per_phyxel);
    let vector = |v: &[f32]| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64);
    Ok(GpuMlsWeights {
        density: per_phyxel.iter().map(|p| p[0] as f64).collect(),
        volume: per_phyxel.iter().map(|p| p[1] as f64).collect(),
        rank: per_phyxel.iter().map(|p| p[2] as u8).collect(),
        moment_inverse: bytemuck::cast_slice::<u8, MlsFrame>(&frames)
            .iter()
            .map(MlsFrame::moment_inverse)
            .collect(),
        d: bytemuck::cast_slice::<u8, [f32; 4]>(&weights)
            .iter()
            .map(|v| vector(v))
            .collect(),
    })
}
