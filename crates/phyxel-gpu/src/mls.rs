//! Pass 2 on the GPU: densities, volumes, moment matrices with their safe inverses in each phyxel's
//! MLS frame, and from those frames the MLS weights d_ij along each row as the solver's passes form
//! them (`shaders/moment_matrices.wgsl`, `shaders/mls_weight.wgsl`) — the twin of
//! `Body::rebuild_reference` after the neighbour search and of `phyxel::meshless::mls::MlsWeights::compute`.

use crate::context::{GpuContext, GpuError};
use crate::edge_windows::{EdgeWindowPlan, EdgeWindows};
use crate::layout::MlsFrame;
use crate::passes::{dispatch, pipeline, storage_buffer};
use crate::readback::read_buffer;
use glam::{DMat3, DVec3};
use phyxel::meshless::neighbours::Neighbourhoods;
use wgpu::util::DeviceExt;

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
    let counts = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("counts"),
        contents: bytemuck::cast_slice(&[n as u32, 0, 0, 0]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
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
    let neighbour = &windows.neighbour;
    let frames = storage("MLS frames", &vec![0u8; n * size_of::<MlsFrame>()]);
    let per_phyxel = storage("density, volume, rank", &vec![0u8; n * 16]);
    // A binding is at least one element long.
    let d = storage("d", &vec![0u8; edges.max(1) * 16]);
    let sources = [
        include_str!("../../../shaders/edge_window.wgsl"),
        "\n",
        include_str!("../../../shaders/symmetric_eigen.wgsl"),
        "\n",
        include_str!("../../../shaders/mls_weight.wgsl"),
        "\n",
        include_str!("../../../shaders/moment_matrices.wgsl"),
    ];
    let mut encoder = device.create_command_encoder(&Default::default());
    let groups = (n as u32).div_ceil(64);
    let moment_matrices = pipeline(device, &sources, "moment_matrices");
    let moments = [
        (0, &counts),
        (1, &reference_buffer),
        (2, &mass_buffer),
        (3, &start),
        (4, neighbour),
        (6, &frames),
        (7, &per_phyxel),
    ];
    for group in windows.bind(device, &moment_matrices, &moments) {
        dispatch(&mut encoder, &moment_matrices, &group, groups);
    }
    // d_ij per edge, a vec4 each: for comparing with the CPU's (test bodies fit one binding).
    let mls_weights = pipeline(device, &sources, "mls_weights");
    let weights = [
        (0, &counts),
        (3, &start),
        (4, neighbour),
        (6, &frames),
        (8, &d),
    ];
    for group in windows.bind(device, &mls_weights, &weights) {
        dispatch(&mut encoder, &mls_weights, &group, groups);
    }
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
