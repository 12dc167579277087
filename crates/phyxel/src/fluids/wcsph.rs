//! Weakly compressible SPH (seed 002 §6.1–6.4): pressure from the density by the Tait equation,
//! explicit symmetric pressure forces, XSPH viscosity, symplectic Euler, and a CFL step bound on the
//! speed of sound.

use super::error::FluidError;
use super::fluid::{Fluid, StepReport};
use super::grid::PIECE;
use super::kernel::Vector;

/// WCSPH's equation of state and its step bound.
#[derive(Clone, Copy, Debug)]
pub struct Wcsph {
    /// The numerical speed of sound c (m/s); the stiffness is K = ρ₀ c²/γ, so a flow of speed v
    /// compresses by about (v/c)² (Monaghan 1994: c = 10 v_max keeps it near 1 %).
    pub speed_of_sound: f64,
    /// The Tait exponent γ (seed 002 eq. 47; 7 after Monaghan).
    pub gamma: f64,
    /// ζ of seed 002 eq. 54: negative pressures are scaled by it (0: clamped to zero).
    pub negative_pressure_scale: f64,
    /// The CFL number λ of Δt = λ Δx / (c + v_max).
    pub cfl: f64,
}

impl Wcsph {
    /// The stiffness whose speed of sound is ten times the fastest flow expected, v_max = √(2 g H) for
    /// a column of height H falling under gravity g.
    pub fn for_height(gravity: f64, height: f64) -> Self {
        Self {
            speed_of_sound: 10.0 * (2.0 * gravity * height).sqrt(),
            gamma: 7.0,
            negative_pressure_scale: 0.0,
            cfl: 0.4,
        }
    }

    /// K = ρ₀ c² / γ of the Tait equation.
    pub fn stiffness(&self, rest_density: f64) -> f64 {
        rest_density * self.speed_of_sound * self.speed_of_sound / self.gamma
    }

    /// The step the CFL condition allows: Δt = λ Δx / (c + v_max).
    pub fn time_step(&self, fluid: &Fluid) -> f64 {
        self.cfl * fluid.spacing() / (self.speed_of_sound + fluid.max_speed())
    }

    /// p = K((ρ/ρ₀)^γ − 1) (seed 002 eq. 47), negatives scaled by ζ (eq. 54).
    pub fn pressure(&self, density: f64, rest_density: f64) -> f64 {
        let p = self.stiffness(rest_density) * ((density / rest_density).powf(self.gamma) - 1.0);
        if p < 0.0 {
            self.negative_pressure_scale * p
        } else {
            p
        }
    }

    /// One step of Δt. Expects (and leaves) neighbours and densities at the current positions.
    /// Refuses a Δt beyond the CFL bound by more than the factor 2.5 (λ = 1) before stepping.
    pub fn step(&self, fluid: &mut Fluid, dt: f64) -> Result<StepReport, FluidError> {
        let courant = dt * (self.speed_of_sound + fluid.max_speed()) / fluid.spacing();
        if courant > 1.0 {
            return Err(FluidError::BlowUp(format!(
                "WCSPH with Δt = {dt:.3e} s has a CFL number Δt (c + v_max) / Δx = {courant:.2} above 1 \
                 (c = {:.1} m/s): the step would blow up; lower Δt to at most {:.3e} s",
                self.speed_of_sound,
                fluid.spacing() / (self.speed_of_sound + fluid.max_speed())
            )));
        }
        let rho0 = fluid.rest_density();
        let mut pressure = std::mem::take(&mut fluid.pressure);
        let pieces: Vec<_> = pressure
            .chunks_mut(PIECE)
            .zip(fluid.density.chunks(PIECE))
            .collect();
        crate::parallel::for_each_piece(pieces, |(pressure, density)| {
            for (p, &rho) in pressure.iter_mut().zip(density) {
                *p = self.pressure(rho, rho0);
            }
        });
        fluid.pressure = pressure;
        fluid.non_pressure_accelerations();
        pressure_accelerations(fluid, dt);
        for i in 0..fluid.len() {
            let a = fluid.scratch[i];
            fluid.v[i] += dt * a;
        }
        fluid.xsph_viscosity();
        fluid.drift(dt)?;
        Ok(StepReport {
            dt,
            iterations: 1,
            density_error: fluid.density_error(),
        })
    }
}

/// a_i −= Σ_j m (p_i/ρ_i² + p_j/ρ_j²) ∇W_ij + Σ_b ρ₀ V_b (p_i/ρ_i²) ∇W_ib (seed 002 eq. 51,
/// symmetric: Σ m a = 0 inside the fluid; the wall's term after Akinci et al. 2012 §3: the wall takes
/// p_i), added into `fluid.scratch`; with the ∇W of the last [`Fluid::compute_densities`] (the
/// particles have not moved since). Where [`Fluid::boundary_impulse`] is kept, each wall particle takes
/// the reaction Δt m ρ₀ V_b (p_i/ρ_i²) ∇W_ib (Akinci et al. 2012 eq. 10).
fn pressure_accelerations(fluid: &mut Fluid, dt: f64) {
    // p_j/ρ_j² once per particle (bit for bit the quotient each pair took before), in `fluid.scratch_scalar`.
    let f = &mut *fluid;
    f.scratch_scalar.clear();
    f.scratch_scalar.extend(
        f.pressure
            .iter()
            .zip(&f.density)
            .map(|(&p, &rho)| p / (rho * rho)),
    );
    f.update_scratch(|f, i, impulse, a| *a += particle_acceleration(f, i, dt, impulse));
}

/// Particle i's pressure acceleration; each wall particle b it pushes takes its reaction in
/// `impulse[b]` where that is kept.
#[inline(always)]
fn particle_acceleration(f: &Fluid, i: usize, dt: f64, impulse: &mut [Vector]) -> Vector {
    let rho0 = f.rest_density();
    let pi_rho2 = f.scratch_scalar[i];
    let mut a = Vector::ZERO;
    let range = f.fluid_neighbours.range(i);
    for (&j, pair) in f.fluid_neighbours.of(i).iter().zip(&f.fluid_kernels[range]) {
        let pj_rho2 = f.scratch_scalar[j as usize];
        a -= (f.mass * (pi_rho2 + pj_rho2)) * pair.grad();
    }
    let range = f.boundary_neighbours.range(i);
    for (&b, pair) in f
        .boundary_neighbours
        .of(i)
        .iter()
        .zip(&f.boundary_kernels[range])
    {
        let push = (rho0 * f.boundary.volume[b as usize] * pi_rho2) * pair.grad();
        a -= push;
        if let Some(impulse) = impulse.get_mut(b as usize) {
            *impulse += (dt * f.mass) * push;
        }
    }
    a
}
