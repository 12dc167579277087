//! The 3D fluid read back from the device: positions, velocities, densities and pressures in the
//! CPU's types, with what the status buffer flagged (a particle that left the grid, a drift beyond
//! the step's travel limit). The future owns handles to what it reads, so the fluid can go on stepping
//! while it is pending.

use super::buffers::Buffers;
use crate::context::GpuError;
use crate::readback::read_buffer;
use crate::wgsl::fluid_status;
use glam::DVec3;
use std::future::Future;

/// The fluid as the device holds it.
#[derive(Clone, Debug, Default)]
pub struct GpuFluidState {
    /// Positions x_i (m).
    pub x: Vec<DVec3>,
    /// Velocities v_i (m/s).
    pub v: Vec<DVec3>,
    /// Densities ρ_i (kg/m³) at x (`Fluid::compute_densities`).
    pub density: Vec<f64>,
    /// Pressures p_i (Pa) of the last step's equation of state.
    pub pressure: Vec<f64>,
    /// Simulated time (s).
    pub time: f64,
    /// A particle that left the neighbour grid (the CPU refuses such a step: `FluidError::LeftDomain`).
    pub left_domain: Option<usize>,
    /// A particle a drift moved more than `MAX_STEP_TRAVEL` h, or whose velocity is not finite (the
    /// CPU's `Fluid::check_step` refuses such a step).
    pub too_fast: Option<usize>,
}

/// Read `particles` particles' state out of `buffers`.
pub fn read_state(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffers: &Buffers,
    particles: usize,
    time: f64,
) -> impl Future<Output = Result<GpuFluidState, GpuError>> + 'static {
    let (device, queue) = (device.clone(), queue.clone());
    let x = buffers.x.clone();
    let v = buffers.v.clone();
    let density = buffers.density.clone();
    let pressures = buffers.pressures.clone();
    let status = buffers.status.clone();
    async move {
        let n = particles as u64;
        let read = |buffer: wgpu::Buffer, bytes: u64| {
            let (device, queue) = (device.clone(), queue.clone());
            async move {
                read_buffer(&device, &queue, &buffer, bytes)
                    .await
                    .map_err(GpuError)
            }
        };
        let vectors = |bytes: Vec<u8>| -> Vec<DVec3> {
            bytemuck::pod_collect_to_vec::<u8, [f32; 4]>(&bytes)
                .into_iter()
                .map(|p| DVec3::new(p[0].into(), p[1].into(), p[2].into()))
                .collect()
        };
        let x = vectors(read(x, 16 * n).await?);
        let v = vectors(read(v, 16 * n).await?);
        let density = bytemuck::pod_collect_to_vec::<u8, f32>(&read(density, 4 * n).await?)
            .into_iter()
            .map(f64::from)
            .collect();
        let pressure = bytemuck::pod_collect_to_vec::<u8, [f32; 2]>(&read(pressures, 8 * n).await?)
            .into_iter()
            .map(|p| f64::from(p[0]))
            .collect();
        let words = u64::from(fluid_status::WORDS);
        let status = bytemuck::pod_collect_to_vec::<u8, u32>(&read(status, 4 * words).await?);
        let flagged = |slot: u32| status[slot as usize].checked_sub(1).map(|i| i as usize);
        Ok(GpuFluidState {
            x,
            v,
            density,
            pressure,
            time,
            left_domain: flagged(fluid_status::LEFT_DOMAIN),
            too_fast: flagged(fluid_status::TOO_FAST),
        })
    }
}
