//! The 3D SPH fluid's WCSPH step on WebGPU compute (issue 19, item 3): [`GpuFluid`], uploaded from a
//! `phyxel::fluids3d::FluidSimulation` whose solver is WCSPH, steps with the CPU's passes in the
//! CPU's order (`Wcsph::step`), each a WGSL entry point of the same name in `shaders/sph_fluid.wgsl`:
//! `pressure` (Tait, seed 002 eqs. 47 and 54), `non_pressure_accelerations`,
//! `pressure_accelerations` (eq. 51 with Akinci et al. 2012's wall term), `accelerate`,
//! `xsph_viscosity` (eq. 53), `drift`, the neighbour search (`fluid/cells.rs`), `keep_off_walls`
//! (seed 002 §6.4) and `compute_densities` (eq. 55). Single precision on the device (the CPU's is
//! double): the two agree within a tolerance, not bit for bit (tests/fluid_parity.rs). What the CPU
//! has and the device has not is refused at the upload with the reason: the other solvers and moving
//! walls (a coupled body). The pointer's stirring is mirrored ([`GpuFluid::set_stir`]).
//!
//! An inlet (the 3D lesson's glass, `fluids3d::pour`) pours into a fluid made with room to spare
//! ([`GpuFluid::with_capacity`]): [`GpuFluid::pour`] and [`GpuFluid::emit`] mirror `Nozzle::pour`
//! and `Fluid::emit`, writing the new particles after the others and searching and summing the
//! densities again, as the CPU does.
//!
//! A fluid far beyond the CPU's caps (`phyxel::fluids3d::Limits::CPU`: 100 000 particles) is built
//! for the device by [`GpuFluid::from_fluid`] from a `Fluid` made within [`GpuFluid::limits`]: no
//! `FluidSimulation`, so the CPU searches no neighbours and sums no densities (the device does both
//! at the upload); the benchmark's million-particle dam break (`phyxel-bench sph3d --backend gpu`)
//! is built that way.

mod buffers;
mod cells;
mod state;

use crate::context::{bytes_in_words, GpuContext, GpuError};
use crate::layout::{vec3, FluidParams};
use crate::passes::{profile_passes, storage_buffer, uniform, zeroed, Pass, PassTimes};
use crate::solver::MAX_SUBMISSIONS_IN_FLIGHT;
use crate::wgsl::{fluid_status, source, workgroups, WORKGROUP_SIZE};
use buffers::{binding, Buffers};
use cells::{search_passes, Grid};
use phyxel::fluids3d::wcsph::Wcsph;
use phyxel::fluids3d::{Fluid, FluidSimulation, Limits, Nozzle, Solver, Stir};
use phyxel::kernels::{Dimension, Kernel};
pub use state::GpuFluidState;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The most particles: sorted slots carry the index as an f32, exact below 2²⁴.
pub const MAX_GPU_FLUID_PARTICLES: usize = 1 << 24;

/// A 3D SPH fluid stepped by WCSPH on the device.
pub struct GpuFluid {
    particles: usize,
    /// The particles its buffers hold: more than `particles` for a fluid poured into
    /// ([`GpuFluid::with_capacity`], [`GpuFluid::emit`]).
    capacity: usize,
    grid: Grid,
    params: FluidParams,
    buffers: Buffers,
    /// The step's passes in order (the search's among them).
    step: Vec<Pass>,
    /// The search and the densities at the positions as they are: after an upload or an emit.
    refresh: Vec<Pass>,
    time: f64,
    spacing: f64,
    speed_of_sound: f64,
    /// Submissions of steps the device has not finished yet.
    in_flight: Arc<AtomicUsize>,
}

impl GpuFluid {
    /// Upload `sim`'s fluid: particles, velocities, the walls sorted into the grid with their volumes
    /// V_b, and the constants; the neighbour search and the densities are computed on the device for
    /// the positions as they are. Refused, with the reason, for a solver other than WCSPH, moving
    /// walls, and a fluid whose buffers exceed the device's storage bindings. Every pass binds
    /// at most eight storage buffers (WebGPU's default `maxStorageBuffersPerShaderStage`).
    pub fn new(gpu: &GpuContext, sim: &FluidSimulation) -> Result<Self, GpuError> {
        Self::with_binding_limit(gpu, sim, gpu.limits.max_storage_buffer_binding_size)
    }

    /// [`GpuFluid::new`] with room for `capacity` particles in all, for an inlet to pour into
    /// ([`GpuFluid::pour`], [`GpuFluid::emit`]); the fluid may start empty. Refused as
    /// [`GpuFluid::new`] refuses, the buffers' sizes checked at the capacity.
    pub fn with_capacity(
        gpu: &GpuContext,
        sim: &FluidSimulation,
        capacity: usize,
    ) -> Result<Self, GpuError> {
        Self::check_solver(sim)?;
        Self::build(
            gpu,
            &sim.fluid,
            &sim.wcsph,
            gpu.limits.max_storage_buffer_binding_size,
            capacity,
        )
    }

    fn check_solver(sim: &FluidSimulation) -> Result<(), GpuError> {
        if sim.solver != Solver::Wcsph {
            return Err(GpuError(format!(
                "the GPU fluid steps WCSPH only; {} runs on the CPU",
                sim.solver.name()
            )));
        }
        Ok(())
    }

    /// [`GpuFluid::new`] as on a device that binds at most `binding_bytes` per storage binding (the
    /// device's own limit applies too): the tests' way to a fluid beyond one binding, which the CPU's
    /// particle limits keep far below lavapipe's 128 MiB.
    pub fn with_binding_limit(
        gpu: &GpuContext,
        sim: &FluidSimulation,
        binding_bytes: u64,
    ) -> Result<Self, GpuError> {
        Self::check_solver(sim)?;
        Self::from_fluid_with_binding_limit(gpu, &sim.fluid, &sim.wcsph, binding_bytes)
    }

    /// What a fluid for this device may hold (`Fluid::with_limits`, `Column::build_within`): as many
    /// fluid and wall particles as one storage binding holds (16 B each), the fluid's also at most
    /// [`MAX_GPU_FLUID_PARTICLES`], and as many grid cells as one binding holds (4 B each); particles
    /// and cells also at most one dispatch's workgroups (`max_compute_workgroups_per_dimension`) of
    /// 64. On a WebGPU default device (128 MiB bindings) that is 4 194 240 particles and cells.
    pub fn limits(gpu: &GpuContext) -> Limits {
        let binding = gpu
            .limits
            .max_storage_buffer_binding_size
            .min(gpu.limits.max_buffer_size);
        let dispatch =
            u64::from(gpu.limits.max_compute_workgroups_per_dimension) * u64::from(WORKGROUP_SIZE);
        let fit = |each: u64| usize::try_from(binding / each).unwrap_or(usize::MAX);
        let dispatched = usize::try_from(dispatch).unwrap_or(usize::MAX);
        Limits {
            fluid: fit(16).min(dispatched).min(MAX_GPU_FLUID_PARTICLES),
            boundary: fit(16),
            cells: fit(4).min(dispatched),
        }
    }

    /// Upload `fluid` (and WCSPH's constants `wcsph`) without a `FluidSimulation`: the CPU need not
    /// have searched its neighbours nor summed its densities (`Fluid::with_limits` does neither) — the
    /// device does both at the upload. Refused as [`GpuFluid::new`] refuses.
    pub fn from_fluid(gpu: &GpuContext, fluid: &Fluid, wcsph: &Wcsph) -> Result<Self, GpuError> {
        Self::from_fluid_with_binding_limit(
            gpu,
            fluid,
            wcsph,
            gpu.limits.max_storage_buffer_binding_size,
        )
    }

    /// [`GpuFluid::from_fluid`] as on a device that binds at most `binding_bytes` per storage binding
    /// ([`GpuFluid::with_binding_limit`]).
    pub fn from_fluid_with_binding_limit(
        gpu: &GpuContext,
        fluid: &Fluid,
        wcsph: &Wcsph,
        binding_bytes: u64,
    ) -> Result<Self, GpuError> {
        Self::build(gpu, fluid, wcsph, binding_bytes, fluid.len())
    }

    /// The upload: buffers for `capacity` particles, `fluid`'s in the first of them; every
    /// per-particle pass is dispatched over the capacity (its threads beyond the particles return at
    /// once), so that an emit changes the count in the parameters and nothing else.
    fn build(
        gpu: &GpuContext,
        fluid: &Fluid,
        wcsph: &Wcsph,
        binding_bytes: u64,
        capacity: usize,
    ) -> Result<Self, GpuError> {
        if !fluid.boundary_impulse.is_empty() || !fluid.boundary_velocity.is_empty() {
            return Err(GpuError(
                "the GPU fluid's walls are static: a coupled, moving body runs on the CPU".into(),
            ));
        }
        let n = fluid.len();
        if capacity == 0 || capacity > MAX_GPU_FLUID_PARTICLES {
            return Err(GpuError(format!(
                "the GPU fluid holds 1 to {MAX_GPU_FLUID_PARTICLES} particles, not {capacity}"
            )));
        }
        if n > capacity {
            return Err(GpuError(format!(
                "a fluid of {n} particles does not fit a capacity of {capacity}"
            )));
        }
        let grid = Grid::covering(fluid)?;
        let walls = fluid.boundary.x.len();
        // The largest buffer of each kind against what one storage binding holds.
        let limit = binding_bytes
            .min(gpu.limits.max_storage_buffer_binding_size)
            .min(gpu.limits.max_buffer_size);
        for (what, count, each) in [
            ("fluid particles", capacity as u64, 16),
            ("wall particles", walls as u64, 16),
            ("grid cells", u64::from(grid.total()), 4),
        ] {
            if count * each > limit {
                return Err(GpuError(format!(
                    "{count} {what} need {} ({each} B each) in one storage binding; this device binds \
                     at most {} (max_storage_buffer_binding_size): {} {what} fit",
                    bytes_in_words(count * each),
                    bytes_in_words(limit),
                    limit / each
                )));
            }
        }
        let groups = workgroups(capacity.max(grid.total() as usize) as u32, WORKGROUP_SIZE);
        if groups > gpu.limits.max_compute_workgroups_per_dimension {
            return Err(GpuError(format!(
                "{groups} workgroups per dispatch are more than this device runs \
                 (max_compute_workgroups_per_dimension = {})",
                gpu.limits.max_compute_workgroups_per_dimension
            )));
        }
        let settings = fluid.settings;
        let h = fluid.kernel.h;
        let sigma = Kernel::CubicSpline.normalization(Dimension::Three);
        let params = FluidParams {
            grid_lo: grid.lo,
            spacing: settings.spacing as f32,
            grid_cells: [grid.cells[0], grid.cells[1], grid.cells[2], grid.total()],
            gravity: vec3(settings.gravity),
            dt: 0.0,
            particles: n as u32,
            walls: walls as u32,
            mass: fluid.mass as f32,
            rest_density: settings.rest_density as f32,
            xsph: settings.xsph as f32,
            stiffness: wcsph.stiffness(settings.rest_density) as f32,
            gamma: wcsph.gamma as f32,
            negative_pressure_scale: wcsph.negative_pressure_scale as f32,
            w_scale: (sigma / h.powi(3)) as f32,
            grad_scale: (sigma / h.powi(4)) as f32,
            ..FluidParams::default()
        }
        .with_stir(fluid.stir);
        let device = &gpu.device;
        let (sorted_walls, wall_end) =
            grid.sort_walls(&fluid.boundary.x, &fluid.boundary.volume)?;
        let vectors = |v: &[glam::DVec3]| -> Vec<[f32; 4]> {
            let mut all: Vec<[f32; 4]> = v
                .iter()
                .map(|p| [p.x as f32, p.y as f32, p.z as f32, 0.0])
                .collect();
            all.resize(capacity, [0.0; 4]);
            all
        };
        let mut density: Vec<f32> = fluid.density.iter().map(|&rho| rho as f32).collect();
        density.resize(capacity, settings.rest_density as f32);
        let buffers = Buffers {
            params: uniform(device, "fluid parameters", &params),
            x: storage_buffer(device, "x", bytemuck::cast_slice(&vectors(&fluid.x))),
            v: storage_buffer(device, "v", bytemuck::cast_slice(&vectors(&fluid.v))),
            density: storage_buffer(device, "density", bytemuck::cast_slice(&density)),
            pressures: zeroed(device, "pressures", 8 * capacity),
            scratch: zeroed(device, "scratch", 16 * capacity),
            searched: zeroed(device, "searched", 16 * capacity),
            cell_end: zeroed(device, "cell end", 4 * grid.total() as usize),
            sorted: zeroed(device, "sorted", 16 * capacity),
            walls: storage_buffer(device, "walls", bytemuck::cast_slice(&sorted_walls)),
            wall_end: storage_buffer(device, "wall end", bytemuck::cast_slice(&wall_end)),
            status: zeroed(device, "fluid status", 4 * fluid_status::WORDS as usize),
            cell_of: zeroed(device, "cell of", 4 * capacity),
        };
        let search = search_passes(device, &buffers, capacity as u32, grid.total());
        let pass = |entry, bindings: &[u32]| {
            Pass::whole(
                device,
                &[source::SPH_FLUID],
                entry,
                &buffers.bind(bindings),
                workgroups(capacity as u32, WORKGROUP_SIZE),
            )
        };
        use binding::*;
        let densities = pass(
            "compute_densities",
            &[
                PARAMS, X, DENSITY, SEARCHED, CELL_END, SORTED, WALLS, WALL_END,
            ],
        );
        let mut step = vec![
            pass("pressure", &[PARAMS, DENSITY, PRESSURES]),
            pass("non_pressure_accelerations", &[PARAMS, X, V, SCRATCH]),
            pass(
                "pressure_accelerations",
                &[
                    PARAMS, X, PRESSURES, SCRATCH, SEARCHED, CELL_END, SORTED, WALLS, WALL_END,
                ],
            ),
            pass("accelerate", &[PARAMS, V, SCRATCH]),
        ];
        // `Fluid::xsph_viscosity` returns at once for ξ = 0.
        if settings.xsph != 0.0 {
            step.push(pass(
                "xsph_viscosity",
                &[
                    PARAMS, X, V, DENSITY, SCRATCH, SEARCHED, CELL_END, SORTED, WALL_END,
                ],
            ));
            step.push(pass("keep_xsph_velocities", &[PARAMS, V, SCRATCH]));
        }
        step.push(pass("drift", &[PARAMS, X, V, STATUS]));
        step.extend(search.iter().cloned());
        step.push(pass(
            "keep_off_walls",
            &[PARAMS, X, V, SEARCHED, CELL_END, WALLS, WALL_END],
        ));
        step.push(densities.clone());
        // The search and the densities at the uploaded positions (what `FluidSimulation::new` did).
        let mut refresh = search;
        refresh.push(densities);
        let fluid = Self {
            particles: n,
            capacity,
            grid,
            params,
            buffers,
            step,
            refresh,
            time: fluid.time,
            spacing: settings.spacing,
            speed_of_sound: wcsph.speed_of_sound,
            in_flight: Arc::new(AtomicUsize::new(0)),
        };
        fluid.refresh(gpu, "fluid upload")?;
        Ok(fluid)
    }

    /// The search and the densities at the positions as they are, in a submission of their own.
    fn refresh(&self, gpu: &GpuContext, label: &str) -> Result<(), GpuError> {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        crate::passes::encode(&mut encoder, &self.refresh);
        gpu.queue.submit([encoder.finish()]);
        gpu.check()
    }

    /// The pointer's stir from the next step on (`Fluid::stir`; None: none), as the CPU's
    /// `Fluid::non_pressure_accelerations` takes it. Refused for a value that is not finite.
    pub fn set_stir(&mut self, gpu: &GpuContext, stir: Option<Stir>) -> Result<(), GpuError> {
        if let Some(s) = stir {
            if !(s.centre.is_finite()
                && s.velocity.is_finite()
                && s.radius.is_finite()
                && s.rate.is_finite())
            {
                return Err(GpuError(
                    "the stir's point, velocity, radius or rate is not a finite number".into(),
                ));
            }
        }
        self.params = self.params.with_stir(stir);
        gpu.queue
            .write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&self.params));
        gpu.check()
    }

    /// The particles the buffers hold ([`GpuFluid::with_capacity`]).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// `Fluid::emit` on the device: particles at `points` moving at `velocity`, each of mass m,
    /// written after the others; then the search and the densities at the positions as they are, as
    /// the CPU's emit recomputes its neighbours and densities. Queued after the steps already
    /// submitted. Refused, with nothing added, beyond the capacity, or for a point that is not finite
    /// or lies outside the neighbour grid.
    pub fn emit(
        &mut self,
        gpu: &GpuContext,
        points: &[glam::DVec3],
        velocity: glam::DVec3,
    ) -> Result<(), GpuError> {
        let count = self.particles + points.len();
        if count > self.capacity {
            return Err(GpuError(format!(
                "{count} fluid particles do not fit this GPU fluid: it holds at most {}",
                self.capacity
            )));
        }
        if !velocity.is_finite() || points.iter().any(|p| !p.is_finite()) {
            return Err(GpuError(
                "an emitted particle's position or velocity is not a finite number".into(),
            ));
        }
        if let Some(p) = points.iter().find(|p| self.grid.cell_of(**p).is_none()) {
            return Err(GpuError(format!(
                "an emitted particle at ({:.4}, {:.4}, {:.4}) m is outside the neighbour grid",
                p.x, p.y, p.z
            )));
        }
        if points.is_empty() {
            return Ok(());
        }
        let offset = 16 * self.particles as u64;
        let x: Vec<[f32; 4]> = points
            .iter()
            .map(|p| [p.x as f32, p.y as f32, p.z as f32, 0.0])
            .collect();
        let v = vec![[velocity.x as f32, velocity.y as f32, velocity.z as f32, 0.0]; points.len()];
        gpu.queue
            .write_buffer(&self.buffers.x, offset, bytemuck::cast_slice(&x));
        gpu.queue
            .write_buffer(&self.buffers.v, offset, bytemuck::cast_slice(&v));
        self.particles = count;
        self.params.particles = count as u32;
        gpu.queue
            .write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&self.params));
        self.refresh(gpu, "fluid emit")
    }

    /// `Nozzle::pour` on the device: the layers due at the fluid's clock go in
    /// ([`GpuFluid::emit`]) at the nozzle's speed, downwards. Returns how many particles went in;
    /// refused, the nozzle is as it was.
    pub fn pour(&mut self, gpu: &GpuContext, nozzle: &mut Nozzle) -> Result<usize, GpuError> {
        let mut after = nozzle.clone();
        let points = after.due(self.time);
        self.emit(gpu, &points, glam::DVec3::new(0.0, -nozzle.speed, 0.0))?;
        *nozzle = after;
        Ok(points.len())
    }

    /// Fluid particles.
    pub fn len(&self) -> usize {
        self.particles
    }

    pub fn is_empty(&self) -> bool {
        self.particles == 0
    }

    /// Simulated time (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The step's entry points, in order.
    pub fn pass_names(&self) -> Vec<&str> {
        self.step.iter().map(|p| p.name.as_str()).collect()
    }

    /// Refuse a Δt that is not a positive number or whose CFL number Δt c/Δx exceeds 1 even at rest
    /// (`Wcsph::step` refuses Δt (c + v_max)/Δx > 1; the device's v_max is not read back), then write
    /// it into the parameters.
    fn set_time_step(&mut self, gpu: &GpuContext, dt: f64) -> Result<(), GpuError> {
        let courant = dt * self.speed_of_sound / self.spacing;
        if !(dt.is_finite() && dt > 0.0) || courant > 1.0 {
            return Err(GpuError(format!(
                "WCSPH with Δt = {dt:.3e} s has a CFL number Δt c / Δx = {courant:.2} (c = {:.1} m/s): \
                 Δt must be positive and at most {:.3e} s",
                self.speed_of_sound,
                self.spacing / self.speed_of_sound
            )));
        }
        self.params.dt = dt as f32;
        gpu.queue
            .write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&self.params));
        Ok(())
    }

    /// `steps` WCSPH steps of `dt` (`Wcsph::step`), queued in one submission — unless
    /// `MAX_SUBMISSIONS_IN_FLIGHT` are still unfinished: then nothing is queued and the answer is
    /// false (the device is behind; ask again later), as [`crate::GpuSolver::step`] does. Nothing is
    /// read back; [`GpuFluid::read_state`] says whether a particle left the grid or moved too far on
    /// the way.
    pub fn step(&mut self, gpu: &GpuContext, dt: f64, steps: u32) -> Result<bool, GpuError> {
        if self.in_flight.load(Ordering::Acquire) >= MAX_SUBMISSIONS_IN_FLIGHT {
            return Ok(false);
        }
        self.set_time_step(gpu, dt)?;
        self.submit_steps(gpu, dt, steps);
        self.count_in_flight(gpu);
        gpu.check().map(|()| true)
    }

    /// [`GpuFluid::step`] with `nozzle` pouring, as `Fluid3dScene::step` pours on the CPU (the
    /// layers due go in before each step): the steps are queued in batches, each ending at the first
    /// step whose clock is within 10⁻¹² s of the next layer's time ([`Nozzle::due`]'s rule), and the
    /// layers due go in ([`GpuFluid::pour`]) before each batch. Counted in flight as one
    /// [`GpuFluid::step`]; nothing is queued while the device is behind (false).
    pub fn step_pouring(
        &mut self,
        gpu: &GpuContext,
        dt: f64,
        steps: u32,
        nozzle: &mut Nozzle,
    ) -> Result<bool, GpuError> {
        if self.in_flight.load(Ordering::Acquire) >= MAX_SUBMISSIONS_IN_FLIGHT {
            return Ok(false);
        }
        self.set_time_step(gpu, dt)?;
        let mut left = steps;
        while left > 0 {
            self.pour(gpu, nozzle)?;
            let batch = nozzle
                .next_due()
                .map_or(left, |next| {
                    ((next - 1e-12 - self.time) / dt)
                        .ceil()
                        .clamp(1.0, f64::from(left)) as u32
                })
                .min(left);
            self.submit_steps(gpu, dt, batch);
            left -= batch;
        }
        self.count_in_flight(gpu);
        gpu.check().map(|()| true)
    }

    /// `steps` steps of `dt` in one submission; the clock moves on by them.
    fn submit_steps(&mut self, gpu: &GpuContext, dt: f64, steps: u32) {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("fluid steps"),
            });
        {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            for _ in 0..steps {
                for pass in &self.step {
                    pass.dispatch(&mut compute);
                }
            }
        }
        gpu.queue.submit([encoder.finish()]);
        self.time += dt * f64::from(steps);
    }

    /// One more submission in flight until the device has done everything submitted so far.
    fn count_in_flight(&self, gpu: &GpuContext) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let in_flight = self.in_flight.clone();
        gpu.queue.on_submitted_work_done(move || {
            in_flight.fetch_sub(1, Ordering::AcqRel);
        });
    }

    /// One step with every pass in a compute pass of its own, timed by timestamp queries: resolves
    /// to (entry point, GPU milliseconds) in the step's order. None where the device writes no
    /// timestamps.
    pub fn profile_step(
        &mut self,
        gpu: &GpuContext,
        dt: f64,
    ) -> Result<Option<impl Future<Output = PassTimes> + 'static>, GpuError> {
        if !gpu.timestamps {
            return Ok(None);
        }
        self.set_time_step(gpu, dt)?;
        let passes: Vec<&Pass> = self.step.iter().collect();
        let times = profile_passes(gpu, &passes, "profiled fluid step");
        self.time += dt;
        gpu.check()?;
        Ok(Some(times))
    }

    /// Read the positions, velocities, densities, pressures and the flags back.
    pub fn read_state(
        &self,
        gpu: &GpuContext,
    ) -> impl Future<Output = Result<GpuFluidState, GpuError>> + 'static {
        state::read_state(
            &gpu.device,
            &gpu.queue,
            &self.buffers,
            self.particles,
            self.time,
        )
    }
}

impl FluidParams {
    /// These parameters with the stir `stir` (None: a radius of 0, which the shader skips).
    fn with_stir(self, stir: Option<Stir>) -> Self {
        let stir = stir.unwrap_or(Stir {
            centre: glam::DVec3::ZERO,
            velocity: glam::DVec3::ZERO,
            radius: 0.0,
            rate: 0.0,
        });
        Self {
            stir_centre: vec3(stir.centre),
            stir_radius: stir.radius as f32,
            stir_velocity: vec3(stir.velocity),
            stir_rate: stir.rate as f32,
            ..self
        }
    }
}
