//! The fluid's state and the passes every solver shares: neighbourhoods, the SPH density with the
//! wall's contribution, gravity and the pointer's stirring, XSPH viscosity, the CFL time step, and
//! the blow-up check that refuses a step before anything turns to NaN.
//!
//! Particles are flat arrays (positions x, velocities v, densities ρ, pressures p) of equal masses m;
//! the scratch buffers the passes write are kept here too, so a step allocates nothing once the
//! neighbour lists have reached their size.

use super::boundary::{bounds, Boundary, MAX_BOUNDARY_PARTICLES};
use super::error::FluidError;
use super::grid::{CellGrid, NeighbourLists, PIECE};
use super::kernel::{PairKernel, SmoothingKernel, Vector};
use super::space::lattice_points;
pub use super::space::{MAX_FLUID_PARTICLES, WALL_DISTANCE};

/// Support radius h over the particle spacing Δx.
pub const SUPPORT_RATIO: f64 = 2.0;
/// A step is refused when a particle would move more than this fraction of h.
pub const MAX_STEP_TRAVEL: f64 = 0.5;
/// A step is refused when the mean density error (compression, see [`Fluid::density_error`]) exceeds this.
pub const MAX_DENSITY_ERROR: f64 = 0.2;

/// The neighbour lists are taken from candidate lists of the pairs closer than (1 + SKIN) h, which are
/// searched again only once a particle has moved by more than SKIN h / 2 since they were (Verlet's
/// lists, Verlet 1967): until then no pair can have come from beyond (1 + SKIN) h to within h. The
/// search on the cell grid was 40 % of the 3D WCSPH step; its steps now test only the candidates, most
/// of the time (docs/benchmarks.md, "Verlet's lists": 3D WCSPH 27–48 % faster). Solvers whose steps
/// move the particles farther still search directly ([`Fluid::find_neighbours`]).
pub const SKIN: f64 = 0.1;

/// The most cells the CPU's neighbour grid may have (its memory is proportional to them).
pub const MAX_GRID_CELLS: usize = 4_000_000;

/// The most fluid particles, wall particles and neighbour-grid cells a [`Fluid`] may have: what
/// [`Fluid::with_limits`] refuses beyond, and [`Fluid::emit`] and [`Fluid::set_moving_boundary`]
/// after it. The CPU's solvers run with [`Limits::CPU`] ([`Fluid::new`]'s, the caps the browser's
/// budgets are measured against); a fluid stepped elsewhere — `phyxel-gpu`'s `GpuFluid`, which
/// computes its own neighbours and densities — is built with the limits of the device that steps
/// it, which may be far larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub fluid: usize,
    pub boundary: usize,
    pub cells: usize,
}

impl Limits {
    /// The CPU solvers' caps: [`MAX_FLUID_PARTICLES`], [`MAX_BOUNDARY_PARTICLES`], [`MAX_GRID_CELLS`].
    pub const CPU: Limits = Limits {
        fluid: MAX_FLUID_PARTICLES,
        boundary: MAX_BOUNDARY_PARTICLES,
        cells: MAX_GRID_CELLS,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::CPU
    }
}

/// What a fluid is made of and what acts on it.
#[derive(Clone, Copy, Debug)]
pub struct FluidSettings {
    /// The rest density ρ₀ (kg/m², per unit depth in 2D).
    pub rest_density: f64,
    /// The particle spacing Δx (m) of the initial lattice; h = [`SUPPORT_RATIO`] Δx.
    pub spacing: f64,
    /// Gravity g (m/s²).
    pub gravity: Vector,
    /// XSPH's ξ (seed 002 eq. 53), 0 … 1.
    pub xsph: f64,
}

/// The pointer stirring the fluid: particles within `radius` of `centre` are pulled toward the
/// pointer's velocity at the rate `rate` (1/s), fading with the kernel.
#[derive(Clone, Copy, Debug)]
pub struct Stir {
    pub centre: Vector,
    pub velocity: Vector,
    pub radius: f64,
    pub rate: f64,
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Its time step Δt (s).
    pub dt: f64,
    /// The pressure solver's iterations (density + divergence for DFSPH; 1 for WCSPH).
    pub iterations: u32,
    /// The mean density error after the step ([`Fluid::density_error`]).
    pub density_error: f64,
}

/// One particle's density and its pairs' kernels, handed to [`Fluid::compute_densities_then`]'s callback.
pub struct ParticlePairs<'a> {
    pub i: usize,
    pub density: f64,
    /// W_ij, ∇W_ij of its fluid neighbours, in their list's order.
    pub fluid: &'a [PairKernel],
    /// Its wall neighbours b, their W_ib, ∇W_ib, and every wall particle's V_b.
    pub boundary: &'a [u32],
    pub boundary_kernels: &'a [PairKernel],
    pub volume: &'a [f64],
}

/// A fluid of equal-mass particles in a static boundary.
#[derive(Clone, Debug)]
pub struct Fluid {
    pub settings: FluidSettings,
    pub kernel: SmoothingKernel,
    /// The mass m of every particle: ρ₀ over the lattice's SPH number density Σ_j W_ij, so that a
    /// particle deep in the initial lattice has ρ = ρ₀ exactly.
    pub mass: f64,
    pub x: Vec<Vector>,
    pub v: Vec<Vector>,
    pub density: Vec<f64>,
    /// Pressure p_i (Pa·m in 2D): the equation of state's for WCSPH, the solve's for DFSPH and PBF.
    pub pressure: Vec<f64>,
    pub boundary: Boundary,
    /// The impulse Σ Δt F_b each boundary particle took from the fluid's pressure in the last step
    /// (Akinci et al. 2012 eq. 10, the reaction to the wall's term on the fluid), kept only while it is
    /// not empty: a moving body ([`crate::fluids::coupling`]) sizes it to the boundary and reads its own part.
    pub boundary_impulse: Vec<Vector>,
    /// The boundary particles' velocities v_b where they move (a body's), for DFSPH's Dρ/Dt; empty or
    /// shorter than the boundary: the rest are at rest.
    pub boundary_velocity: Vec<Vector>,
    pub stir: Option<Stir>,
    /// How many times the last step's [`Fluid::keep_off_walls`] moved a particle.
    pub wall_contacts: usize,
    /// Simulated time (s).
    pub time: f64,
    /// Fluid neighbours j of each particle i (i itself included).
    pub fluid_neighbours: NeighbourLists,
    /// Boundary neighbours b of each particle i.
    pub boundary_neighbours: NeighbourLists,
    /// The pairs closer than (1 + [`SKIN`]) h when the particles were at `searched_at`: what
    /// [`Fluid::find_neighbours`] takes the neighbours from.
    fluid_candidates: NeighbourLists,
    boundary_candidates: NeighbourLists,
    searched_at: Vec<Vector>,
    /// The candidate lists hold the pairs of `searched_at` (they were searched, not skipped).
    candidates_valid: bool,
    /// Calls of [`Fluid::find_neighbours`] since the last search on the grid.
    calls_since_search: u32,
    /// The moving boundary changed since the candidates were searched.
    boundary_moved: bool,
    /// `wide_boundary_grid` holds the walls as they are now (a moving boundary rebuilds only
    /// `boundary_grid` at once: its next search is a direct one).
    wide_boundary_current: bool,
    /// W_ij and ∇W_ij of every fluid pair, in `fluid_neighbours`' order, and W_ib, ∇W_ib of every wall
    /// pair (not multiplied by V_b), at the positions of the last [`Fluid::compute_densities`]: what
    /// the passes after it read (pressure forces, XSPH, DFSPH's α, PBF's λ and Δx) as long as the
    /// particles have not moved.
    pub fluid_kernels: Vec<PairKernel>,
    pub boundary_kernels: Vec<PairKernel>,
    /// What this fluid was built within ([`Fluid::with_limits`]).
    limits: Limits,
    /// The fluid and the walls on cells of h (a direct search) and of (1 + [`SKIN`]) h (a search for
    /// candidates): the 3 × 3 cells around a particle hold every point within a cell's edge.
    grid: CellGrid,
    boundary_grid: CellGrid,
    wide_grid: CellGrid,
    wide_boundary_grid: CellGrid,
    /// Scratch: a per-particle vector (accelerations, XSPH velocities).
    pub scratch: Vec<Vector>,
    /// Scratch: a per-particle number (WCSPH's p_i/ρ_i²).
    pub scratch_scalar: Vec<f64>,
    saved_x: Vec<Vector>,
    saved_v: Vec<Vector>,
    saved_time: f64,
}

impl Fluid {
    /// A fluid of particles at `x` (at rest) inside walls sampled by `boundary_points`. The neighbour
    /// grid covers the walls' and the fluid's bounding box padded by 2h, and three times as high again above it.
    /// Refused beyond the CPU's caps ([`Limits::CPU`]).
    pub fn new(
        x: Vec<Vector>,
        boundary_points: Vec<Vector>,
        settings: FluidSettings,
    ) -> Result<Self, FluidError> {
        Self::with_limits(x, boundary_points, settings, Limits::CPU)
    }

    /// [`Fluid::new`] within `limits` instead of the CPU's caps: for a fluid that another stepper
    /// (the GPU's) takes over. Nothing here searches neighbours or sums densities — the densities are
    /// ρ₀ until [`Fluid::find_neighbours`] and [`Fluid::compute_densities`] run (`FluidSimulation::new`
    /// runs them) — so a fluid far beyond the CPU's caps is built in time linear in its particles:
    /// the wall volumes V_b and two cell grids.
    pub fn with_limits(
        x: Vec<Vector>,
        boundary_points: Vec<Vector>,
        settings: FluidSettings,
        limits: Limits,
    ) -> Result<Self, FluidError> {
        if x.len() > limits.fluid {
            return Err(FluidError::TooManyParticles {
                what: "fluid",
                count: x.len(),
                limit: limits.fluid,
            });
        }
        if x.is_empty() {
            return Err(FluidError::BadInput("the fluid has no particles".into()));
        }
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(settings.spacing) || !positive(settings.rest_density) {
            return Err(FluidError::BadInput(
                "the spacing and the rest density must be positive numbers".into(),
            ));
        }
        if !settings.gravity.is_finite() || !(0.0..=1.0).contains(&settings.xsph) {
            return Err(FluidError::BadInput(
                "gravity must be finite and XSPH's ξ between 0 and 1".into(),
            ));
        }
        if x.iter().any(|p| !p.is_finite()) {
            return Err(FluidError::BadInput(
                "a fluid particle's position is not a finite number".into(),
            ));
        }
        let kernel = SmoothingKernel::cubic_spline(SUPPORT_RATIO * settings.spacing);
        let boundary = Boundary::with_limit(boundary_points, &kernel, limits.boundary)?;
        let (mut lo, mut hi) = bounds(&x);
        if !boundary.x.is_empty() {
            let (blo, bhi) = bounds(&boundary.x);
            lo = lo.min(blo);
            hi = hi.max(bhi);
        }
        // Room above the open box for splashes: three times its height (a jet up the far wall of the
        // lesson's dam break reached twice the box's height).
        let pad = Vector::splat(2.0 * kernel.h);
        let above = Vector::Y * (3.0 * (hi.y - lo.y));
        // The cells are counted before the grid is made (its memory is proportional to them).
        let cells = ((hi + 2.0 * pad + above - lo) / kernel.h)
            .ceil()
            .max(Vector::ONE)
            .to_array()
            .iter()
            .product::<f64>();
        if cells.is_nan() || cells > limits.cells as f64 {
            return Err(FluidError::BadInput(format!(
                "the domain is {cells} cells of h across: too large for the neighbour grid (at most {})",
                limits.cells
            )));
        }
        let grid = CellGrid::new(lo - pad, hi + pad + above, kernel.h);
        // Cells of the candidates' radius: the 3 × 3 cells around a particle hold its candidates.
        let wide_grid = CellGrid::new(lo - pad, hi + pad + above, (1.0 + SKIN) * kernel.h);
        let (mut boundary_grid, mut wide_boundary_grid) = (grid.clone(), wide_grid.clone());
        for walls in [&mut boundary_grid, &mut wide_boundary_grid] {
            walls.build(&boundary.x).map_err(|i| {
                FluidError::BadInput(format!("boundary particle {i} is outside the grid"))
            })?;
        }
        // The number density of a full lattice of spacing Δx: Σ over the lattice of W.
        let dx = settings.spacing;
        let reach = (SUPPORT_RATIO.ceil() as i64) + 1;
        let lattice: f64 = lattice_points(reach, dx)
            .into_iter()
            .map(|p| kernel.w(p.length()))
            .sum();
        let n = x.len();
        Ok(Self {
            settings,
            kernel,
            mass: settings.rest_density / lattice,
            v: vec![Vector::ZERO; n],
            density: vec![settings.rest_density; n],
            pressure: vec![0.0; n],
            x,
            boundary,
            boundary_impulse: Vec::new(),
            boundary_velocity: Vec::new(),
            stir: None,
            wall_contacts: 0,
            time: 0.0,
            fluid_neighbours: NeighbourLists::default(),
            boundary_neighbours: NeighbourLists::default(),
            fluid_candidates: NeighbourLists::default(),
            boundary_candidates: NeighbourLists::default(),
            searched_at: Vec::new(),
            candidates_valid: false,
            calls_since_search: 0,
            boundary_moved: true,
            wide_boundary_current: true,
            fluid_kernels: Vec::new(),
            boundary_kernels: Vec::new(),
            limits,
            grid,
            boundary_grid,
            wide_grid,
            wide_boundary_grid,
            scratch: vec![Vector::ZERO; n],
            scratch_scalar: Vec::with_capacity(n),
            saved_x: Vec::with_capacity(n),
            saved_v: Vec::with_capacity(n),
            saved_time: 0.0,
        })
    }

    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// What this fluid was built within ([`Fluid::with_limits`]; [`Limits::CPU`] by [`Fluid::new`]).
    pub fn limits(&self) -> Limits {
        self.limits
    }

    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// The rest density ρ₀.
    pub fn rest_density(&self) -> f64 {
        self.settings.rest_density
    }

    /// The particle spacing Δx.
    pub fn spacing(&self) -> f64 {
        self.settings.spacing
    }

    /// Fluid and boundary neighbours of every particle at the current positions, from the candidate
    /// lists ([`SKIN`]) while no particle has moved by more than SKIN h / 2 since they were searched.
    /// Otherwise (or with particles added, or a moving boundary moved) the grid is searched again:
    /// for new candidates if the particles took at least two calls on average to travel SKIN h / 2
    /// (the candidates will serve), else directly for the neighbours (a solver whose steps move the
    /// particles that far each time — DFSPH and PBF at their larger Δt — would only pay for
    /// candidates it never reuses). A particle that is not finite or outside the grid is refused at
    /// that search.
    pub fn find_neighbours(&mut self) -> Result<(), FluidError> {
        let h = self.kernel.h;
        let half_skin = 0.5 * SKIN * h;
        self.calls_since_search += 1;
        let travel2 = self
            .x
            .iter()
            .zip(&self.searched_at)
            .map(|(x, x0)| (*x - *x0).length_squared())
            // NaN sticks: a particle that is not finite goes to the grid, which refuses it.
            .fold(0.0f64, |worst, d2| {
                if worst.is_nan() || d2 <= worst {
                    worst
                } else {
                    d2
                }
            });
        let travel = travel2.sqrt();
        if self.candidates_valid
            && !self.boundary_moved
            && self.searched_at.len() == self.x.len()
            && travel <= half_skin
        {
            self.keep_candidates_within(h);
            return Ok(());
        }
        let per_call = travel / f64::from(self.calls_since_search);
        let mut reuse = !self.boundary_moved && per_call <= 0.5 * half_skin;
        if reuse && !self.wide_boundary_current {
            // Walls beyond the wider cells' grid leave the search direct, as particles do below.
            reuse = self.wide_boundary_grid.build(&self.boundary.x).is_ok();
            self.wide_boundary_current = reuse;
        }
        // A particle beyond the wider cells' grid (it may end a little short of the other's far
        // corner) leaves the search direct; one beyond the grid of h is refused.
        reuse = reuse && self.wide_grid.build(&self.x).is_ok();
        if reuse {
            let reach = (1.0 + SKIN) * h;
            self.fluid_candidates
                .build(&self.x, &self.wide_grid, &self.x, reach);
            self.boundary_candidates.build(
                &self.x,
                &self.wide_boundary_grid,
                &self.boundary.x,
                reach,
            );
            self.keep_candidates_within(h);
        } else {
            if let Err(i) = self.grid.build(&self.x) {
                return Err(FluidError::LeftDomain {
                    particle: i,
                    x: self.x[i].x,
                    y: self.x[i].y,
                });
            }
            self.fluid_neighbours.build(&self.x, &self.grid, &self.x, h);
            self.boundary_neighbours
                .build(&self.x, &self.boundary_grid, &self.boundary.x, h);
        }
        self.candidates_valid = reuse;
        self.searched_at.clone_from(&self.x);
        self.calls_since_search = 0;
        self.boundary_moved = false;
        Ok(())
    }

    /// The neighbour lists: the candidates closer than h now.
    fn keep_candidates_within(&mut self, h: f64) {
        self.fluid_neighbours
            .keep_within(&self.fluid_candidates, &self.x, &self.x, h);
        self.boundary_neighbours.keep_within(
            &self.boundary_candidates,
            &self.x,
            &self.boundary.x,
            h,
        );
    }

    /// Replace the boundary particles from `first` on by `points` with volumes `volume` (a moving body's,
    /// [`crate::fluids::coupling`]): the walls before `first` keep theirs. The boundary grid is rebuilt; the
    /// neighbours and densities are not (call [`Fluid::find_neighbours`] and
    /// [`Fluid::compute_densities`] after).
    pub fn set_moving_boundary(
        &mut self,
        first: usize,
        points: &[Vector],
        volume: &[f64],
    ) -> Result<(), FluidError> {
        if first > self.boundary.x.len() || points.len() != volume.len() {
            return Err(FluidError::BadInput(
                "a moving boundary needs one volume per particle after the walls".into(),
            ));
        }
        if first + points.len() > self.limits.boundary {
            return Err(FluidError::TooManyParticles {
                what: "boundary",
                count: first + points.len(),
                limit: self.limits.boundary,
            });
        }
        self.boundary.x.truncate(first);
        self.boundary.x.extend_from_slice(points);
        self.boundary.volume.truncate(first);
        self.boundary.volume.extend_from_slice(volume);
        self.boundary_moved = true;
        self.wide_boundary_current = false;
        self.boundary_grid
            .build(&self.boundary.x)
            .map_err(|i| FluidError::BadInput(format!("boundary particle {i} left the grid")))
    }

    /// For every particle i, `write(self, i, impulse, &mut scratch[i])`: over threads in pieces of
    /// [`PIECE`] where no moving body books the walls' reactions (`impulse` is then empty), else on
    /// one thread in the particles' order, so the reactions are summed the same on any thread count.
    pub fn update_scratch(
        &mut self,
        write: impl Fn(&Fluid, usize, &mut [Vector], &mut Vector) + Sync,
    ) {
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut impulse = std::mem::take(&mut self.boundary_impulse);
        if impulse.is_empty() && crate::parallel::thread_count() > 1 {
            let fluid = &*self;
            let pieces: Vec<_> = scratch.chunks_mut(PIECE).enumerate().collect();
            crate::parallel::for_each_piece(pieces, |(p, scratch)| {
                for (k, slot) in scratch.iter_mut().enumerate() {
                    write(fluid, p * PIECE + k, &mut [], slot);
                }
            });
        } else {
            // One thread, or the wall particles' reactions summed in the particles' order.
            for (i, slot) in scratch.iter_mut().enumerate() {
                write(self, i, &mut impulse, slot);
            }
        }
        self.scratch = scratch;
        self.boundary_impulse = impulse;
    }

    /// The hard constraint of seed 002 §6.4 ("prevent the particles from entering the solid"), for
    /// walls of any shape: a fluid particle closer than [`WALL_DISTANCE`] Δx to its nearest wall
    /// particle is moved out by the difference along the wall's normal n̂ = Σ_b V_b ∇W_ib / |…| (the
    /// walls' volume gradient, exact on a flat wall, so particles sliding along a floor are not
    /// kicked sideways) and loses its velocity into the wall. Particles at rest next to a lattice wall
    /// sit 1 Δx from its particles, so it acts only where the pressure did not stop an impact (WCSPH's
    /// clamped pressure lets a thin splash reach the wall). Uses the boundary neighbour lists, so it
    /// runs after [`Fluid::find_neighbours`].
    pub fn keep_off_walls(&mut self) {
        self.keep_off_walls_with(None);
    }

    /// [`Fluid::keep_off_walls`] on PBF's predicted positions x*, which become its velocities
    /// v = (x* − x)/Δt at the end of the step: a particle moved out by d n̂ leaves the step with
    /// d n̂/Δt more velocity, and a moving body's wall particle nearest it takes the opposite momentum
    /// −m d n̂/Δt (the velocity this pass removes is not booked: PBF's end of step recomputes v).
    pub fn keep_off_walls_predicted(&mut self, dt: f64) {
        self.keep_off_walls_with(Some(dt));
    }

    /// The hard constraint; `predicted_over` = Some(Δt) where the positions are PBF's x*.
    fn keep_off_walls_with(&mut self, predicted_over: Option<f64>) {
        let d_min = WALL_DISTANCE * self.spacing();
        let contact = |i: usize, xi: Vector| -> Option<(f64, usize, Vector)> {
            let mut nearest = f64::INFINITY;
            let mut nearest_b = 0;
            let mut normal = Vector::ZERO;
            for &b in self.boundary_neighbours.of(i) {
                let b = b as usize;
                let d = xi - self.boundary.x[b];
                let distance = d.length();
                if distance < nearest {
                    nearest = distance;
                    nearest_b = b;
                }
                // −∇W points away from x_b: the direction out of the wall.
                normal -= self.boundary.volume[b] * self.kernel.grad_w(d);
            }
            (nearest < d_min && normal.length_squared() > 0.0)
                .then(|| (d_min - nearest, nearest_b, normal.normalize()))
        };
        let mut x = std::mem::take(&mut self.x);
        let mut v = std::mem::take(&mut self.v);
        let mut impulse = std::mem::take(&mut self.boundary_impulse);
        let mut contacts = 0;
        if impulse.is_empty() {
            // Each particle moves only itself: in parallel, pieces of PIECE particles.
            let mut counts = vec![0usize; x.len().div_ceil(PIECE)];
            let pieces: Vec<_> = x
                .chunks_mut(PIECE)
                .zip(v.chunks_mut(PIECE))
                .zip(counts.iter_mut())
                .enumerate()
                .collect();
            crate::parallel::for_each_piece(pieces, |(p, ((x, v), count))| {
                for (k, (x, v)) in x.iter_mut().zip(v.iter_mut()).enumerate() {
                    if let Some((depth, _, n)) = contact(p * PIECE + k, *x) {
                        *x += depth * n;
                        let towards = v.dot(n);
                        if towards < 0.0 {
                            *v -= towards * n;
                        }
                        *count += 1;
                    }
                }
            });
            contacts = counts.iter().sum();
        } else {
            // A moving body takes the momentum the particles lose: in the particles' order.
            for i in 0..x.len() {
                if let Some((depth, nearest_b, n)) = contact(i, x[i]) {
                    x[i] += depth * n;
                    let towards = v[i].dot(n);
                    if towards < 0.0 {
                        v[i] -= towards * n;
                    }
                    // What the particle gains, the body loses: in PBF the push itself (its velocity
                    // is recomputed from it), otherwise the inelastic contact's lost velocity.
                    let gained = match predicted_over {
                        Some(dt) => (self.mass * depth / dt) * n,
                        None => (self.mass * -towards.min(0.0)) * n,
                    };
                    if let Some(impulse) = impulse.get_mut(nearest_b) {
                        *impulse -= gained;
                    }
                    contacts += 1;
                }
            }
        }
        self.x = x;
        self.v = v;
        self.boundary_impulse = impulse;
        self.wall_contacts = contacts;
    }

    /// ρ_i = Σ_j m W_ij + Σ_b ρ₀ V_b W_ib (seed 002 eq. 55 with Akinci's Ψ_b = ρ₀ V_b for the walls),
    /// keeping every pair's W and ∇W ([`Fluid::fluid_kernels`], [`Fluid::boundary_kernels`]): one
    /// square root per pair for the whole step (or PBF iteration) that follows.
    pub fn compute_densities(&mut self) {
        self.compute_densities_then(&mut vec![(); self.len()], |_| {});
    }

    /// [`Fluid::compute_densities`], calling `then` for each particle as soon as its density and its
    /// pairs' kernels are known (while they are still in cache) and keeping its result in `out[i]`:
    /// PBF forms its λ_i there. In parallel (pieces of particles; each writes only its own density,
    /// pairs and result).
    pub fn compute_densities_then<R: Send>(
        &mut self,
        out: &mut [R],
        then: impl Fn(ParticlePairs) -> R + Sync + Send,
    ) {
        assert_eq!(out.len(), self.len(), "one result per particle");
        let rho0 = self.rest_density();
        let kernel = self.kernel;
        let mut density = std::mem::take(&mut self.density);
        let mut fluid_kernels = std::mem::take(&mut self.fluid_kernels);
        let mut boundary_kernels = std::mem::take(&mut self.boundary_kernels);
        fluid_kernels.resize(self.fluid_neighbours.pairs(), PairKernel::default());
        boundary_kernels.resize(self.boundary_neighbours.pairs(), PairKernel::default());
        let pieces: Vec<_> = density
            .chunks_mut(PIECE)
            .zip(out.chunks_mut(PIECE))
            .zip(self.fluid_neighbours.split_pairs(&mut fluid_kernels))
            .zip(self.boundary_neighbours.split_pairs(&mut boundary_kernels))
            .enumerate()
            .collect();
        let this = &*self;
        crate::parallel::for_each_piece(pieces, |(p, (((density, out), fluid), boundary))| {
            let first = p * PIECE;
            let fluid_at = this.fluid_neighbours.range(first).start;
            let boundary_at = this.boundary_neighbours.range(first).start;
            for (k, (density, out)) in density.iter_mut().zip(out.iter_mut()).enumerate() {
                let i = first + k;
                let xi = this.x[i];
                let mut rho = 0.0;
                let range = this.fluid_neighbours.range(i);
                let fluid = &mut fluid[range.start - fluid_at..range.end - fluid_at];
                for (&j, pair) in this.fluid_neighbours.of(i).iter().zip(fluid.iter_mut()) {
                    let (w, grad) = kernel.w_and_grad(xi - this.x[j as usize]);
                    *pair = PairKernel::new(w, grad);
                    rho += w;
                }
                rho *= this.mass;
                let range = this.boundary_neighbours.range(i);
                let boundary = &mut boundary[range.start - boundary_at..range.end - boundary_at];
                for (&b, pair) in this
                    .boundary_neighbours
                    .of(i)
                    .iter()
                    .zip(boundary.iter_mut())
                {
                    let b = b as usize;
                    let (w, grad) = kernel.w_and_grad(xi - this.boundary.x[b]);
                    *pair = PairKernel::new(w, grad);
                    rho += rho0 * this.boundary.volume[b] * w;
                }
                *density = rho;
                *out = then(ParticlePairs {
                    i,
                    density: rho,
                    fluid,
                    boundary: this.boundary_neighbours.of(i),
                    boundary_kernels: boundary,
                    volume: &this.boundary.volume,
                });
            }
        });
        self.density = density;
        self.fluid_kernels = fluid_kernels;
        self.boundary_kernels = boundary_kernels;
    }

    /// The mean density error: the mean over the particles of max(ρ_i − ρ₀, 0)/ρ₀. Only compression
    /// counts: a particle at the free surface has fewer neighbours and a lower ρ_i without being
    /// stretched (seed 002 §6.3), which is why the solvers clamp the pressure there too.
    pub fn density_error(&self) -> f64 {
        let rho0 = self.rest_density();
        let sum: f64 = self.density.iter().map(|&rho| (rho - rho0).max(0.0)).sum();
        sum / (rho0 * self.x.len() as f64)
    }

    /// The largest compression max_i (ρ_i − ρ₀)/ρ₀.
    pub fn max_density_error(&self) -> f64 {
        let rho0 = self.rest_density();
        self.density
            .iter()
            .map(|&rho| (rho - rho0) / rho0)
            .fold(0.0, f64::max)
    }

    /// The largest speed max_i |v_i|.
    pub fn max_speed(&self) -> f64 {
        self.v
            .iter()
            .map(|v| v.length_squared())
            .fold(0.0, f64::max)
            .sqrt()
    }

    /// The CFL step of the incompressible solvers: Δt = λ Δx / v_max with CFL number `cfl`, at most
    /// `dt_max` (and `dt_max` at rest).
    pub fn cfl_time_step(&self, cfl: f64, dt_max: f64) -> f64 {
        let v = self.max_speed();
        if v > 0.0 {
            (cfl * self.spacing() / v).min(dt_max)
        } else {
            dt_max
        }
    }

    /// Move every particle by Δt v and the clock by Δt, then take the neighbours, the walls' hard
    /// constraint ([`Fluid::keep_off_walls`]) and the densities at the new positions: how WCSPH and
    /// DFSPH end their steps' position update.
    pub fn drift(&mut self, dt: f64) -> Result<(), FluidError> {
        for (x, v) in self.x.iter_mut().zip(&self.v) {
            *x += dt * *v;
        }
        self.time += dt;
        self.find_neighbours()?;
        self.keep_off_walls();
        self.compute_densities();
        Ok(())
    }

    /// The accelerations that are not pressure: gravity and the pointer's stirring, into `scratch`.
    pub fn non_pressure_accelerations(&mut self) {
        let g = self.settings.gravity;
        for a in self.scratch.iter_mut() {
            *a = g;
        }
        if let Some(stir) = self.stir {
            let r2 = stir.radius * stir.radius;
            for i in 0..self.x.len() {
                let d2 = (self.x[i] - stir.centre).length_squared();
                if d2 < r2 {
                    let fade = 1.0 - d2 / r2;
                    self.scratch[i] += stir.rate * fade * (stir.velocity - self.v[i]);
                }
            }
        }
    }

    /// XSPH (seed 002 eq. 53, in its difference form ṽ_i = v_i + ξ Σ_j (m/ρ_j)(v_j − v_i) W_ij, which
    /// equals eq. 53 wherever the Shepard sum Σ_j (m/ρ_j) W_ij is 1 and leaves a lone particle's
    /// velocity alone), with the W_ij of the last [`Fluid::compute_densities`] (the particles have not
    /// moved since, in every solver); the corrected velocities are stored (the stronger variant of §6.2). The walls
    /// are left out (free slip): with them (eq. 57, v_b = 0) the drag on the floor depends on the number
    /// of steps, not on a viscosity, and slowed WCSPH's dam-break front 34 % behind the experiment.
    pub fn xsph_viscosity(&mut self) {
        let xi_coefficient = self.settings.xsph;
        if xi_coefficient == 0.0 {
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let this = &*self;
        let pieces: Vec<_> = scratch.chunks_mut(PIECE).enumerate().collect();
        crate::parallel::for_each_piece(pieces, |(p, out)| {
            for (k, out) in out.iter_mut().enumerate() {
                let i = p * PIECE + k;
                let vi = this.v[i];
                let mut sum = Vector::ZERO;
                let range = this.fluid_neighbours.range(i);
                for (&j, pair) in this
                    .fluid_neighbours
                    .of(i)
                    .iter()
                    .zip(&this.fluid_kernels[range])
                {
                    let j = j as usize;
                    sum += (this.v[j] - vi) * (this.mass / this.density[j] * pair.w());
                }
                *out = vi + xi_coefficient * sum;
            }
        });
        self.scratch = scratch;
        std::mem::swap(&mut self.v, &mut self.scratch);
    }

    /// Keep the state before a step, to go back to if the step is refused.
    pub fn save(&mut self) {
        self.saved_x.clear();
        self.saved_x.extend_from_slice(&self.x);
        self.saved_v.clear();
        self.saved_v.extend_from_slice(&self.v);
        self.saved_time = self.time;
    }

    /// Go back to the state kept by [`Fluid::save`] (time included; densities and neighbours are
    /// recomputed).
    pub fn restore(&mut self) {
        self.x.copy_from_slice(&self.saved_x);
        self.v.copy_from_slice(&self.saved_v);
        self.time = self.saved_time;
        if self.find_neighbours().is_ok() {
            self.compute_densities();
        }
    }

    /// Refuse the step just taken (and go back before it) if it moved a particle more than
    /// [`MAX_STEP_TRAVEL`] h, left a value that is not finite, or compressed the fluid by more than
    /// [`MAX_DENSITY_ERROR`] on average: a blow-up caught before it reaches NaN.
    pub fn check_step(&mut self, dt: f64, solver: &str) -> Result<(), FluidError> {
        let limit = MAX_STEP_TRAVEL * self.kernel.h;
        let mut worst = (0.0, 0);
        for i in 0..self.x.len() {
            let travel = (self.x[i] - self.saved_x[i]).length();
            if travel > worst.0 || travel.is_nan() {
                worst = (travel, i);
            }
            if !self.v[i].is_finite() {
                worst = (f64::INFINITY, i);
                break;
            }
        }
        let error = self.density_error();
        let message = if worst.0 > limit || worst.0.is_nan() {
            Some(format!(
                "{solver} at t = {:.4} s with Δt = {:.3e} s moved particle {} by {:.3} h in one step \
                 (the limit is {MAX_STEP_TRAVEL} h): the CFL condition is violated; lower Δt or the stiffness",
                self.time, dt, worst.1, worst.0 / self.kernel.h
            ))
        } else if error > MAX_DENSITY_ERROR || error.is_nan() {
            Some(format!(
                "{solver} at t = {:.4} s: the mean density error reached {:.1} % (the limit is {} %): \
                 the pressure solve diverged; lower Δt or raise the iterations",
                self.time,
                100.0 * error,
                100.0 * MAX_DENSITY_ERROR
            ))
        } else {
            None
        };
        match message {
            Some(message) => {
                self.restore();
                Err(FluidError::BlowUp(message))
            }
            None => Ok(()),
        }
    }

    /// Add particles at `points`, moving at `velocity` (an inlet, `fluids3d::pour`): each of mass m
    /// like the others, so the total mass stays exactly the count times m. Refused, with nothing added,
    /// beyond the fluid's limit ([`MAX_FLUID_PARTICLES`] on the CPU) or with a point that is not
    /// finite or outside the neighbour grid. Neighbours and densities are recomputed for the new
    /// positions.
    pub fn emit(&mut self, points: &[Vector], velocity: Vector) -> Result<(), FluidError> {
        let count = self.x.len() + points.len();
        if count > self.limits.fluid {
            return Err(FluidError::TooManyParticles {
                what: "fluid",
                count,
                limit: self.limits.fluid,
            });
        }
        if !velocity.is_finite() || points.iter().any(|p| !p.is_finite()) {
            return Err(FluidError::BadInput(
                "an emitted particle's position or velocity is not a finite number".into(),
            ));
        }
        let n = self.x.len();
        self.x.extend_from_slice(points);
        if let Err(error) = self.find_neighbours() {
            self.x.truncate(n);
            self.find_neighbours()?;
            return Err(error);
        }
        self.v.resize(count, velocity);
        self.density.resize(count, self.settings.rest_density);
        self.pressure.resize(count, 0.0);
        self.scratch.resize(count, Vector::ZERO);
        self.compute_densities();
        Ok(())
    }

    /// Total mass Σ m (exactly the particle count times m: particles are never removed, and the ones
    /// [`Fluid::emit`] adds weigh m).
    pub fn total_mass(&self) -> f64 {
        self.mass * self.x.len() as f64
    }
}
