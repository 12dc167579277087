//! `phyxel-bench sph3d --backend gpu [--particles N,… | --across N,…] [--steps S]`: the 3D dam break of
//! `sph3d` ([`crate::sph::run_3d`]: Martin & Moyce's column a × 2a × a, a = 0.5 m, in a channel
//! 4a × 3a × a closed by a lid, 2 across³ particles) stepped by WCSPH on the GPU (`phyxel_gpu::GpuFluid`)
//! — up to about a million particles (`--particles 1000000`: 79 across, 986 078 particles, 734 442
//! wall particles), ten times the CPU's cap. On a device of WebGPU's dispatch limit (65 535
//! workgroups of 64) the grid's cells bound the scene at 82 across (1 102 736 particles, 4 153 248
//! cells: the grid keeps three times the box's height above it for splashes); beyond, the build is
//! refused with the limit named.
//!
//! The fluid is built by `Column::build_within` with the device's limits ([`GpuFluid::limits`])
//! instead of the CPU's (100 000 fluid particles, 200 000 wall particles), and uploaded by
//! [`GpuFluid::from_fluid`] without a `FluidSimulation`: the CPU computes the wall volumes and nothing
//! per pair (no neighbour lists, no densities — the device computes its own at the upload), so the
//! build stays linear in the particles. Beyond what one storage binding holds, the upload is refused
//! with the device's limit named.
//!
//! Each run: 5 steps and a read-back untimed, then `steps` steps in one submission timed to the end of
//! a read-back of the state (as `cube --backend gpu` times its steps), the read-back alone timed after
//! it, and the GPU time of each pass of a step (the mean of 5 profiled steps) where the adapter writes
//! timestamps. Δt is fixed: the CFL step λ Δx / (c + v) at the collapse's fastest expected speed
//! v = √(2 g 2a), below the CPU's CFL step throughout a run that stays under that speed.

use phyxel::fluids3d::wcsph::Wcsph;
use phyxel::fluids3d::{Column, Fluid};
use phyxel_gpu::{GpuContext, GpuFluid};
use serde::Serialize;
use std::time::Instant;

/// The column's width a (m), as `sph3d`'s.
const A: f64 = 0.5;
/// Steps profiled for the per-pass times.
const PROFILED_STEPS: usize = 5;
/// Steps before the timed ones (pipelines, first touches of the buffers).
const WARM_UP_STEPS: u32 = 5;

#[derive(Serialize)]
pub struct GpuPassTime {
    pass: String,
    ms: f64,
}

#[derive(Serialize)]
pub struct SphGpuRun {
    across: usize,
    particles: usize,
    wall_particles: usize,
    grid_cells: usize,
    steps: usize,
    /// The fixed time step (s).
    dt: f64,
    /// Building the fluid on the CPU (lattice, walls and their volumes; s).
    build_s: f64,
    /// The upload, the device's first neighbour search and densities, and the warm-up steps (s).
    upload_s: f64,
    /// Steps per second, the final read-back of the state included (`readback_ms`).
    steps_per_s: f64,
    /// Wall time of one particle-step (µs), from `steps_per_s`.
    us_per_particle_step: f64,
    /// One read-back of the positions, velocities, densities and pressures alone (ms).
    readback_ms: f64,
    /// Simulated time at the end of the timed steps (s).
    simulated_s: f64,
    /// The largest speed and the mean density error (compression, of ρ₀) at the end.
    max_speed: f64,
    mean_density_error: f64,
    /// The sum of the profiled passes' GPU times (ms per step), where the adapter writes timestamps.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_ms_per_step: Option<f64>,
    /// GPU time of each pass of a step (ms; mean of 5 profiled steps, each pass in a compute pass of
    /// its own), or null where the adapter writes no timestamps.
    gpu_ms_per_pass: Option<Vec<GpuPassTime>>,
}

#[derive(Serialize)]
pub struct SphGpuReport {
    scene: &'static str,
    backend: &'static str,
    machine: String,
    adapter: String,
    /// The adapter's graphics API and driver.
    adapter_backend: String,
    driver: String,
    date: String,
    /// Whether the adapter writes timestamps (per-pass times), and what was done where it does not.
    timestamps: &'static str,
    /// What the device lets a fluid hold ([`GpuFluid::limits`]) and its storage binding size (B).
    limits: Limits,
    runs: Vec<SphGpuRun>,
}

#[derive(Serialize)]
pub struct Limits {
    fluid: usize,
    boundary: usize,
    cells: usize,
    max_storage_buffer_binding_size: u64,
}

/// Particles across a for about `particles` particles in all (2 across³).
pub fn across_for(particles: usize) -> usize {
    ((particles as f64 / 2.0).cbrt().round() as usize).max(1)
}

/// The dam break at `across` particles across a, built within the device's limits, its WCSPH
/// constants and its fixed Δt.
pub fn scene(gpu: &GpuContext, across: usize) -> Result<(Fluid, Wcsph, f64), String> {
    let mut column = Column::martin_moyce(A, 2.0, 4.0, 1.0, across);
    column.box_height = 3.0 * A;
    column.lid = true;
    let limits = GpuFluid::limits(gpu);
    let fluid = column.build_within(limits).map_err(|e| {
        format!(
            "the dam break at {across} across: {e} (this device's limits, GpuFluid::limits: {} fluid \
             and {} wall particles, {} grid cells — one storage binding of {} B, one dispatch of {} \
             workgroups of 64)",
            limits.fluid,
            limits.boundary,
            limits.cells,
            gpu.limits.max_storage_buffer_binding_size,
            gpu.limits.max_compute_workgroups_per_dimension
        )
    })?;
    let wcsph = Wcsph::for_height(column.gravity, column.column_height);
    let fastest = (2.0 * column.gravity * column.column_height).sqrt();
    let dt = wcsph.cfl * column.spacing / (wcsph.speed_of_sound + fastest);
    Ok((fluid, wcsph, dt))
}

/// The grid cells of the CPU's rule for `fluid` (what the device's grid has).
fn grid_cells(fluid: &Fluid) -> usize {
    let h = fluid.kernel.h;
    let (mut lo, mut hi) = phyxel::fluids3d::boundary::bounds(&fluid.x);
    let (blo, bhi) = phyxel::fluids3d::boundary::bounds(&fluid.boundary.x);
    lo = lo.min(blo);
    hi = hi.max(bhi);
    let extent = hi - lo + glam::DVec3::splat(4.0 * h) + glam::DVec3::Y * (3.0 * (hi.y - lo.y));
    (extent / h)
        .ceil()
        .max(glam::DVec3::ONE)
        .to_array()
        .iter()
        .product::<f64>() as usize
}

/// One run at `across` particles across a.
pub fn run_one(gpu: &GpuContext, across: usize, steps: usize) -> Result<SphGpuRun, String> {
    let start = Instant::now();
    let (fluid, wcsph, dt) = scene(gpu, across)?;
    let build_s = start.elapsed().as_secs_f64();
    let gpu_error = |e: phyxel_gpu::GpuError| format!("{across} across: {e}");
    let start = Instant::now();
    let mut device = GpuFluid::from_fluid(gpu, &fluid, &wcsph).map_err(gpu_error)?;
    take_steps(gpu, &mut device, dt, WARM_UP_STEPS)?;
    pollster::block_on(device.read_state(gpu)).map_err(gpu_error)?;
    let upload_s = start.elapsed().as_secs_f64();

    let start = Instant::now();
    take_steps(gpu, &mut device, dt, steps as u32)?;
    let state = pollster::block_on(device.read_state(gpu)).map_err(gpu_error)?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(i) = state.left_domain {
        return Err(format!("{across} across: particle {i} left the grid"));
    }
    if let Some(i) = state.too_fast {
        return Err(format!(
            "{across} across: particle {i} moved too far in a step"
        ));
    }
    let start = Instant::now();
    pollster::block_on(device.read_state(gpu)).map_err(gpu_error)?;
    let readback_ms = start.elapsed().as_secs_f64() * 1e3;

    let particles = fluid.len();
    let rest = fluid.rest_density();
    let mean_density_error = state
        .density
        .iter()
        .map(|&rho| (rho / rest - 1.0).max(0.0))
        .sum::<f64>()
        / particles as f64;
    let max_speed = state.v.iter().map(|v| v.length()).fold(0.0, f64::max);
    let steps_per_s = steps as f64 / seconds;
    let gpu_ms_per_pass = profile_passes(gpu, &mut device, dt)?;
    Ok(SphGpuRun {
        across,
        particles,
        wall_particles: fluid.boundary.x.len(),
        grid_cells: grid_cells(&fluid),
        steps,
        dt,
        build_s,
        upload_s,
        steps_per_s,
        us_per_particle_step: 1e6 / (steps_per_s * particles as f64),
        readback_ms,
        simulated_s: state.time,
        max_speed,
        mean_density_error,
        gpu_ms_per_step: gpu_ms_per_pass
            .as_ref()
            .map(|passes| passes.iter().map(|p| p.ms).sum()),
        gpu_ms_per_pass,
    })
}

/// `steps` steps in one submission (refused only if the device is still behind on two earlier ones,
/// which the read-backs between submissions rule out).
fn take_steps(gpu: &GpuContext, fluid: &mut GpuFluid, dt: f64, steps: u32) -> Result<(), String> {
    match fluid.step(gpu, dt, steps) {
        Ok(true) => Ok(()),
        Ok(false) => Err("the device is behind: the steps were not queued".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Mean GPU time per pass over [`PROFILED_STEPS`] profiled steps, or None without timestamps.
fn profile_passes(
    gpu: &GpuContext,
    fluid: &mut GpuFluid,
    dt: f64,
) -> Result<Option<Vec<GpuPassTime>>, String> {
    let mut totals: Vec<GpuPassTime> = Vec::new();
    for _ in 0..PROFILED_STEPS {
        let Some(profile) = fluid.profile_step(gpu, dt).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        let passes = pollster::block_on(profile).map_err(|e| e.to_string())?;
        for (k, (pass, ms)) in passes.into_iter().enumerate() {
            match totals.get_mut(k) {
                Some(total) => total.ms += ms,
                None => totals.push(GpuPassTime { pass, ms }),
            }
        }
    }
    for total in &mut totals {
        total.ms /= PROFILED_STEPS as f64;
    }
    Ok(Some(totals))
}

/// The dam break on the GPU at each count across.
pub fn run(across: &[usize], steps: usize) -> Result<SphGpuReport, String> {
    let gpu = pollster::block_on(GpuContext::new()).map_err(|e| e.to_string())?;
    let runs = across
        .iter()
        .map(|&n| run_one(&gpu, n, steps))
        .collect::<Result<_, _>>()?;
    let limits = GpuFluid::limits(&gpu);
    Ok(SphGpuReport {
        scene: "3D sph dam break (channel 4a × 3a × a, closed), WCSPH",
        backend: "gpu",
        machine: crate::sph::machine(),
        adapter: gpu.adapter.name.clone(),
        adapter_backend: format!("{:?}", gpu.adapter.backend),
        driver: format!("{} {}", gpu.adapter.driver, gpu.adapter.driver_info)
            .trim()
            .to_string(),
        date: crate::sph::date(),
        timestamps: if gpu.timestamps {
            "written: gpu_ms_per_pass is the mean of 5 profiled steps"
        } else {
            "not written by this adapter (no TIMESTAMP_QUERY): no per-pass times"
        },
        limits: Limits {
            fluid: limits.fluid,
            boundary: limits.boundary,
            cells: limits.cells,
            max_storage_buffer_binding_size: gpu.limits.max_storage_buffer_binding_size,
        },
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> GpuContext {
        pollster::block_on(GpuContext::new())
            .expect("a Vulkan adapter (./dev setup installs Mesa lavapipe)")
    }

    #[test]
    fn particle_counts_map_to_counts_across() {
        assert_eq!(across_for(50_000), 29);
        assert_eq!(across_for(200_000), 46);
        assert_eq!(across_for(1_000_000), 79);
        assert_eq!(across_for(0), 1);
    }

    #[test]
    fn the_gpu_bench_builds_and_steps_a_small_dam_break() {
        let gpu = gpu();
        let run = run_one(&gpu, 10, 5).unwrap();
        assert_eq!((run.particles, run.wall_particles), (2000, 14_496));
        assert!(run.steps_per_s > 0.0 && run.us_per_particle_step > 0.0);
        assert!((run.simulated_s - 10.0 * run.dt).abs() < 1e-12);
        // The lattice settles against the walls at first (the CPU's run too: 1.5 m/s), below the
        // collapse's free fall √(2 g 2a) = 4.4 m/s.
        assert!(
            run.max_speed > 0.0 && run.max_speed < 4.4,
            "{}",
            run.max_speed
        );
        assert_eq!(run.gpu_ms_per_pass.is_some(), gpu.timestamps);
        let json = serde_json::to_string(&run).unwrap();
        assert!(json.contains("\"gpu_ms_per_pass\""), "{json}");
    }

    #[test]
    fn the_gpu_scene_goes_beyond_the_cpus_caps() {
        let gpu = gpu();
        let mut column = Column::martin_moyce(A, 2.0, 4.0, 1.0, 40);
        column.box_height = 3.0 * A;
        column.lid = true;
        let refused = column.build().unwrap_err().to_string();
        assert!(refused.contains("100000"), "{refused}");
        let (fluid, _, _) = scene(&gpu, 40).unwrap();
        assert_eq!(fluid.len(), 128_000);
        assert!(
            fluid.fluid_neighbours.pairs() == 0,
            "the CPU searched no neighbours"
        );
    }

    #[test]
    fn a_fluid_beyond_the_binding_limit_is_refused_with_the_limit_named() {
        let gpu = gpu();
        let (fluid, wcsph, _) = scene(&gpu, 10).unwrap();
        let error = GpuFluid::from_fluid_with_binding_limit(&gpu, &fluid, &wcsph, 16_000)
            .err()
            .expect("2 000 particles of 16 B do not fit in 16 000 B")
            .to_string();
        assert!(
            error.contains("2000 fluid particles")
                && error.contains("max_storage_buffer_binding_size")
                && error.contains("1000 fluid particles fit"),
            "{error}"
        );
    }
}
