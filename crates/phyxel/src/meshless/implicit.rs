//! Implicit Euler and static equilibrium for the corotated linear model, both solved matrix-free by
//! preconditioned conjugate gradients (Brunet et al. 2019 §3.5–3.6; Zhou et al. 2013 §3.3 and §4;
//! Baraff & Witkin 1998 §4 for the linearized step).
//!
//! With the rotations R_i frozen at the start of the step, the forces are linear in the displacements
//! (f(u + δu) = f(u) + K δu, K = ∂f/∂u from [`super::corotated::FrozenStiffness`]), and one
//! linearized backward Euler step is
//!
//! (M − Δt·D − Δt²·K) Δv = Δt·(f + Δt·K·v)   (Brunet eq. 16; Baraff & Witkin eq. 18),
//!
//! v ← v + Δv,  u ← u + Δt·v. The Rayleigh damping force is f_d = −α M v + β K v, i.e. D = −α M + β K
//! with K ≤ 0 (Brunet §3.6: "a constant Rayleigh damping matrix"), so the system matrix
//! (1 + Δt·α) M − (Δt·β + Δt²) K is symmetric positive definite and CG applies.
//!
//! Fixed phyxels (Dirichlet conditions: a clamped end) keep their displacement and have zero
//! velocity: their rows and columns of the system are replaced by the identity with a zero right-hand
//! side.
//!
//! **Obstacles inside the solve.** The static obstacles (`collision::Collider`: the ground, walls)
//! are candidates for a phyxel i where it is predicted to be at the end of the step, x̃_i = x_i + Δt
//! v_i: the first obstacle with φ(x̃_i) ≤ [`OBSTACLE_MARGIN`]·h, with its normal n_i at x̃_i
//! ([`ObstacleContact`]). A held contact constrains the normal velocity at the end of the step,
//!
//!   n_i·v_i⁺ = −max(φ(x_i), 0) / Δt,   i.e.  n_i·Δv_i = z_i = −max(φ(x_i), 0) / Δt − n_i·v_i,
//!
//! which brings a phyxel that is still above the obstacle exactly onto it and holds one that rests
//! on it (φ = 0). It is Baraff & Witkin's constraint with a prescribed velocity change (1998 §5.3,
//! their z): the filter S_i = I − n_i n_iᵀ, Δv = z̄ + S y with z̄_i = z_i n_i, and CG on S A S y =
//! S (b − A z̄) (`residual_of` in [`velocity_change`]). The impact's stop reaches the neighbours
//! through the elastic forces in the same solve. Which contacts are held is an active set with one
//! update (Hintermüller, Ito & Kunisch 2002): the first solve holds those predicted on or in the
//! obstacle (φ(x̃_i) ≤ `touching`, a millionth of h); then a held one whose impulse J_i = n_i·(A Δv
//! − b)_i comes out adhesive (J_i < 0) is let go, a free candidate that the solve carries in
//! (n_i·Δv_i < z_i) is held, and if the set changed the system is solved once more. What the second
//! solve still brings in, the post-step projection removes. (Until 2026-11-25 the contacts were
//! found at x, not x̃, and a whole step's approach was projected away after the solve: a spinning
//! ball hitting the ground at 1/60 s in the collide scene turned its neighbourhoods past the
//! rotation check, `simulation::MAX_ROTATION_PER_STEP`. A penalty ½ k max(0, d)² in place of the
//! constraint, as the surfaces' contacts have, was tried: with Δt² k = 100 m_i a stiff cube resting
//! on the ground sank 1.1·10⁻⁴ m into it, 10³ times its self-weight compression. Holding only the
//! contacts predicted at x̃ let the phyxels just above the ground that the solve itself carries in
//! — 0.3 mm above at x̃, 6 mm in at the end — be stopped by the projection, and the rotation check
//! stopped that step.)
//!
//! Coulomb friction acts on the held phyxels inside the solve too, lagged on the last step's normal
//! impulse J_i ([`Friction`]; T_i = I − n_i n_iᵀ, slip s_i = T_i v_i): a phyxel whose friction
//! impulse μ J_i could stop its slip (μ J_i ≥ m_i |s_i|) sticks — a drag −η_i T_i v_i⁺ at the end of
//! the step with Δt η_i = c m_i ([`STICKING_DRAG`]), which adds Δt η_i T_i to A_ii and −Δt η_i s_i to
//! b_i; one that slides gets Coulomb's impulse −μ J_i ŝ_i in b_i. The friction takes part in the
//! one update: a sticking phyxel whose drag came out beyond the cone (Δt η_i |T_i v_i⁺| > μ J_i)
//! slides in the second solve, along its slip, and a sliding one whose slip turned back sticks. (A
//! drag Δt η_i = μ J_i / |s_i| for sliding too applies μ J_i |s_i⁺|/|s_i|, short of μ J_i by the
//! step's slowing: a cube pushed along the ground decelerated 4 % slower than μ g and took 20 %
//! longer to stop; an uncapped sticking drag stopped it at three times μ g at the end.) Friction as
//! a velocity change of the contact phyxels after the solve (what the step did until 2026-11-25)
//! shears their neighbourhoods alone, and stopped the same spinning ball as well. The terms are
//! diagonal in the phyxels, so the block-Jacobi preconditioner holds them exactly.

use super::body::Body;
use super::contact::Contact;
use super::corotated::{rotations_and_forces, FrozenStiffness};
use crate::conjugate_gradient::{self, block_jacobi, block_jacobi_inverses, Tolerance};
use crate::deflation::{solve_deflated, CoarseSpace};
use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};

/// Rayleigh damping D = −α M + β K (K = ∂f/∂u ≤ 0): a damping force −α m v on every phyxel plus
/// β times the elastic force of the velocity field, which damps fast (stiff) modes more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rayleigh {
    /// α (1/s), mass-proportional.
    pub mass: f64,
    /// β (s), stiffness-proportional.
    pub stiffness: f64,
}

/// Settings of the corotated implicit Euler integration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorotatedImplicit {
    /// CG stops at this relative residual ‖b − A Δv‖ / ‖b‖ (Zhou et al. 2013 §4 use 10⁻⁴).
    pub tolerance: f64,
    /// ... or after this many iterations.
    pub max_iterations: usize,
    /// Rayleigh damping; its α adds to the environment's mass-proportional damping.
    pub rayleigh: Rayleigh,
}

impl Default for CorotatedImplicit {
    fn default() -> Self {
        Self {
            tolerance: 1e-4,
            max_iterations: 500,
            rayleigh: Rayleigh::default(),
        }
    }
}

impl CorotatedImplicit {
    /// CG's stopping rule for one step: `tolerance` relative to ‖S b‖, or to the step's weight
    /// impulse `weight_impulse` = Δt‖M g‖ where that is larger (a body at rest has b → 0; see
    /// [`Tolerance`]).
    fn cg_tolerance(&self, weight_impulse: f64) -> Tolerance {
        Tolerance {
            relative_residual: self.tolerance,
            max_iterations: self.max_iterations,
            reference_norm: weight_impulse,
        }
    }
}

/// What one linear solve did (one implicit step, or the total of a static solve's Newton steps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolveStats {
    /// CG iterations (products with the system matrix).
    pub iterations: usize,
    /// The final relative residual of the (last) linear system.
    pub relative_residual: f64,
    pub converged: bool,
}

/// Obstacle contacts are candidates within this fraction of the smallest support radius at the
/// predicted positions x̃ (module docs): what a step's fall under gravity and the solve's elastic
/// response may carry in.
pub const OBSTACLE_MARGIN: f64 = 0.25;

/// Δt η / m of the obstacles' sticking friction (module docs): a lone phyxel keeps 1/(1 + c) of its
/// slip per step where Coulomb's cone allows it to stick.
pub const STICKING_DRAG: f64 = 100.0;

/// Phyxel `phyxel` predicted on or in an obstacle at x̃ = x + Δt v (module docs, "Obstacles inside
/// the solve").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObstacleContact {
    pub phyxel: usize,
    /// The obstacle's outward normal ∇φ(x̃_i).
    pub normal: DVec3,
    /// The prescribed n_i·Δv_i = −max(φ(x_i), 0)/Δt − n_i·v_i (m/s) while held.
    pub target: f64,
    /// Whether the first solve holds it: predicted on or in the obstacle (φ(x̃_i) ≤ `touching`).
    pub held: bool,
    /// Its Coulomb friction for the step.
    pub friction: Friction,
}

/// A held obstacle contact's Coulomb friction within the solve (module docs), lagged on the last
/// step's normal impulse J: sticking, a drag −η T v⁺ at the end of the step; or sliding, the impulse
/// μ J against the slip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friction {
    /// μ J (N·s).
    pub limit: f64,
    /// Δt η (kg) while sticking, 0 while sliding.
    pub drag: f64,
    /// μ J (N·s) while sliding, 0 while sticking.
    pub sliding: f64,
    /// The unit slip the sliding impulse opposes.
    pub slip: DVec3,
}

impl Friction {
    /// The friction of a phyxel of mass `mass` slipping at the tangential velocity `slip` on an
    /// obstacle that pushed it with the normal impulse J in the last step (`limit` = μ J): where μ J
    /// ≥ m |slip| it sticks, Δt η = c m ([`STICKING_DRAG`]), else it slides. None without a push.
    pub fn start(limit: f64, slip: DVec3, mass: f64) -> Self {
        let (drag, sliding) = if limit <= 0.0 {
            (0.0, 0.0)
        } else if limit >= mass * slip.length() {
            (STICKING_DRAG * mass, 0.0)
        } else {
            (0.0, limit)
        };
        Self {
            limit: limit.max(0.0),
            drag,
            sliding,
            slip: slip.normalize_or_zero(),
        }
    }

    /// What it adds to b_i: −Δt η T v − μ J ŝ (`slip` = T v, the slip at the start of the step).
    pub fn rhs(&self, slip: DVec3) -> DVec3 {
        -self.drag * slip - self.sliding * self.slip
    }

    /// The friction for a second solve from the slip `slip_end` = T v⁺ the first solve left: a
    /// sticking phyxel whose drag would exceed Coulomb's cone (Δt η |T v⁺| > μ J) slides along that
    /// slip; a sliding one whose slip turned back (T v⁺·ŝ < 0: the impulse would have stopped it)
    /// sticks.
    pub fn after_solve(&self, slip_end: DVec3, mass: f64) -> Self {
        if self.drag > 0.0 && self.drag * slip_end.length() > self.limit {
            Self {
                drag: 0.0,
                sliding: self.limit,
                slip: slip_end.normalize_or_zero(),
                ..*self
            }
        } else if self.sliding > 0.0 && slip_end.dot(self.slip) < 0.0 {
            Self {
                drag: STICKING_DRAG * mass,
                sliding: 0.0,
                ..*self
            }
        } else {
            *self
        }
    }
}

/// The forces on the body besides elasticity and damping, and its constraints, for one step.
#[derive(Clone, Copy, Debug)]
pub struct Loads<'a> {
    pub gravity: DVec3,
    /// Extra per-phyxel forces (the drag spring), treated explicitly; empty for none.
    pub extra: &'a [(usize, DVec3)],
    /// Phyxels held in place (Dirichlet); an empty slice fixes none.
    pub fixed: &'a [bool],
    /// Phyxels predicted on or in an obstacle: constraints on their normal velocity within the
    /// solve (released where the constraint would pull; module docs).
    pub contacts: &'a [ObstacleContact],
}

impl Loads<'_> {
    fn is_fixed(&self, i: usize) -> bool {
        self.fixed.get(i).copied().unwrap_or(false)
    }

    /// f_elastic + m g + extra, with the rows of fixed phyxels zeroed.
    fn total_force(&self, body: &Body, elastic: Vec<DVec3>) -> Vec<DVec3> {
        let mut f = elastic;
        for (i, fi) in f.iter_mut().enumerate() {
            *fi += body.mass[i] * self.gravity;
        }
        for &(i, extra) in self.extra {
            f[i] += extra;
        }
        self.zero_fixed(&mut f);
        f
    }

    /// The step's weight impulse Δt‖M g‖ = Δt |g| √(Σ m_i²) over the phyxels that are not held: the
    /// scale below which CG's residual does not matter ([`CorotatedImplicit::cg_tolerance`]).
    fn weight_impulse(&self, body: &Body, dt: f64) -> f64 {
        let squares: f64 = (0..body.len())
            .filter(|&i| !self.is_fixed(i))
            .map(|i| body.mass[i] * body.mass[i])
            .sum();
        dt * self.gravity.length() * squares.sqrt()
    }

    fn zero_fixed(&self, v: &mut [DVec3]) {
        for (i, vi) in v.iter_mut().enumerate() {
            if self.is_fixed(i) {
                *vi = DVec3::ZERO;
            }
        }
    }

    /// The constraint filters S_i of Baraff & Witkin 1998 §5.3: 0 for a fixed phyxel, I − n nᵀ for
    /// one held by an obstacle (`active`), I otherwise.
    fn filters(&self, n: usize, active: &[bool]) -> Vec<DMat3> {
        let mut filters = vec![DMat3::IDENTITY; n];
        for (c, &on) in self.contacts.iter().zip(active) {
            if on {
                filters[c.phyxel] -= super::mls::outer(c.normal, c.normal);
            }
        }
        for (i, f) in filters.iter_mut().enumerate() {
            if self.is_fixed(i) {
                *f = DMat3::ZERO;
            }
        }
        filters
    }

    /// Baraff & Witkin's prescribed velocity changes z̄_i = z_i n_i of the held phyxels (0 elsewhere).
    fn prescribed(&self, n: usize, active: &[bool]) -> Vec<DVec3> {
        let mut z = vec![DVec3::ZERO; n];
        for (c, &on) in self.contacts.iter().zip(active) {
            if on {
                z[c.phyxel] = c.target * c.normal;
            }
        }
        z
    }
}

/// Contacts between the objects' surfaces ([`super::contact`]) taken inside the solve as stiff
/// penalties (see [`velocity_change`] and the surface-contact paragraph of `contact.rs`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SurfacePenalty<'a> {
    /// The candidates, found at the predicted displacements u + Δt v, with their predicted depth.
    pub contacts: &'a [Contact],
    /// κ = Δt² k_c w_c ([`super::contact::SurfaceContact::stiffness`]).
    pub stiffness: f64,
    /// Per contact: whether the first solve presses with it (the caller's guess, e.g. the contacts
    /// that pressed in the last step and those new since); empty: every contact inside at x̃.
    pub first_guess: &'a [bool],
    /// Coulomb's μ between the objects.
    pub friction: f64,
}

/// The result of one implicit step's solve.
#[derive(Clone, Debug, PartialEq)]
pub struct VelocityChange {
    pub dv: Vec<DVec3>,
    pub stats: SolveStats,
    /// The normal impulse J ≥ 0 (N·s) each entry of [`Loads::contacts`] received (0 if released).
    pub contact_impulses: Vec<f64>,
    /// The normal impulse λ_c = Δt k_c d_c⁺ ≥ 0 (N·s) each surface contact received (0 where it
    /// ends apart), and its depth d_c⁺ = d̃_c − Δt n·Σ_j c_j Δv_j at the end of the step.
    pub surface_impulses: Vec<f64>,
    pub surface_depths: Vec<f64>,
    /// The friction impulse −Δt η_c T Σ_j c_j v_j⁺ (N·s) each surface contact received.
    pub surface_friction: Vec<DVec3>,
}

/// The most solves of one step while the set of pressing surface contacts changes (a primal–dual
/// active set, Hintermüller, Ito & Kunisch 2002; it settles in 1–3 here).
const ACTIVE_SET_PASSES: usize = 10;

/// The velocity change Δv of one linearized implicit Euler step (module docs), by block-Jacobi
/// preconditioned CG started from `guess` (the previous step's Δv is a good one; zero otherwise),
/// deflated by the rigid translations along the axes no constraint touches (`translations`).
/// `mass_damping` is α, the environment's damping plus the Rayleigh α.
///
/// Fixed phyxels are constraints S_i Δv_i = 0, solved with Baraff & Witkin's filtered ("modified")
/// PCG: the system S A S + (I − S) with right-hand side S b.
///
/// The obstacles' held contacts (`loads.contacts`, found at x̃ = x + Δt v) prescribe n_i·Δv_i = z_i
/// (module docs): Δv = z̄ + S y with CG on S A S y = S (b − A z̄). Then a held contact whose impulse
/// J = n·(A Δv − b) comes out adhesive (J < 0) is let go, a free one the solve carried in (n·Δv_i <
/// z_i) is held, and if that changed the set the system is solved again (once). The held ones'
/// friction adds Δt η_i T_i to A_ii (sticking) and [`Friction::rhs`] to b_i; it takes part in the
/// update (a sticking contact beyond Coulomb's cone slides, a sliding one that turned back sticks).
///
/// Surface contacts (`surface`, rows c_j over the phyxels of two objects, normal n, predicted depth
/// d̃ = −n·Σ_j c_j x̃_j at x̃ = x + Δt v) are penalties U_c = ½ k_c max(0, d_c)², taken at the end of
/// the step like the elastic forces: with d_c⁺ = d̃_c − Δt n·Σ_j c_j Δv_j, the force −∂U_c/∂x_j =
/// k_c d_c⁺ c_j n enters as
///
///   A += Σ_c Δt² k_c (c n)(c n)ᵀ,   b += Σ_c Δt k_c d̃_c (c n),   Δt² k_c = κ / w_c,
///
/// for the pressing contacts (d_c⁺ > 0); which those are is found by solving again while it changes
/// (at most `ACTIVE_SET_PASSES` = 10 solves), each warm-started from the last. Then, with μ > 0, each
/// pressing contact gets Coulomb friction lagged on that solve's normal impulse λ_c and slip v_t: a
/// drag −η_c T Σ_j c_j v_j⁺ (T = I − n nᵀ) with Δt η_c = min(μ λ_c / |v_t|, κ / w_c), which adds
/// Δt η_c (c ⊗ T)(c ⊗ T)ᵀ to A and −Δt η_c (c ⊗ T) Σ_j c_j v_j to b, and the system is solved once
/// more (symmetric positive definite still, dissipative, Σ_j c_j = 0 keeping Σ m v).
#[allow(clippy::too_many_arguments)]
pub fn velocity_change(
    body: &Body,
    velocity: &[DVec3],
    dt: f64,
    loads: Loads,
    surface: SurfacePenalty,
    mass_damping: f64,
    settings: CorotatedImplicit,
    guess: Option<&[DVec3]>,
) -> VelocityChange {
    let n = body.len();
    let (r, elastic) = rotations_and_forces(body, &body.displacement);
    let stiffness = FrozenStiffness::at(body, &r);
    let beta = settings.rayleigh.stiffness.max(0.0);
    let mass_factor = 1.0 + dt * mass_damping;
    let stiffness_factor = dt * beta + dt * dt;
    // b = Δt (f_elastic + m g + extra − α m v) + (Δt β + Δt²) K v, held here without its K v term:
    // every use of b is a residual b − A z, which takes K (v + z) in one product
    // (`residual_of`), so K v alone is only formed where z = 0 (`kv`, at most once).
    let mut b = loads.total_force(body, elastic);
    for i in 0..n {
        b[i] = dt * (b[i] - mass_damping * body.mass[i] * velocity[i]);
    }
    let kv: std::cell::OnceCell<Vec<DVec3>> = std::cell::OnceCell::new();
    // The surface contacts' Δt² k_c = κ / w_c, and the pressing ones (at first: those inside at x̃).
    let penalty: Vec<f64> = surface
        .contacts
        .iter()
        .map(|c| surface.stiffness.max(0.0) / c.inverse_mass)
        .collect();
    let mut pressing: Vec<bool> = surface
        .contacts
        .iter()
        .enumerate()
        .map(|(c, contact)| {
            contact.depth > 0.0 && surface.first_guess.get(c).copied().unwrap_or(true)
        })
        .collect();
    // The obstacles' constraints held in this solve and their friction: the caller's guess, updated
    // once.
    let mut active: Vec<bool> = loads.contacts.iter().map(|c| c.held).collect();
    let mut friction: Vec<Friction> = loads.contacts.iter().map(|c| c.friction).collect();
    let mut updated = false;
    let base_b = b.clone();
    // A z = (1 + Δt α) M z − (Δt β + Δt²) K z (+ the pressing contacts' Δt² k_c (c n)(c n)ᵀ z).
    let elastic_system = |z: &[DVec3]| -> Vec<DVec3> {
        let kz = stiffness.product(z);
        (0..n)
            .map(|i| mass_factor * body.mass[i] * z[i] - stiffness_factor * kz[i])
            .collect()
    };
    let elastic_blocks: Vec<DMat3> = stiffness
        .diagonal()
        .into_iter()
        .enumerate()
        .map(|(i, k)| DMat3::IDENTITY * (mass_factor * body.mass[i]) - stiffness_factor * k)
        .collect();
    // Friction's Δt η_c per contact: zero until the pressing set has settled (see the loop's end).
    let mut drag = vec![0.0; surface.contacts.len()];
    let mut friction_pass = false;
    let tangential = |normal: DVec3, w: DVec3| w - normal.dot(w) * normal;
    let mut iterations = 0;
    let mut passes = 0;
    let mut guess: Vec<DVec3> = match guess {
        Some(g) if g.len() == n => g.to_vec(),
        _ => vec![DVec3::ZERO; n],
    };
    loop {
        passes += 1;
        let in_contact: Vec<(usize, &Contact)> = surface
            .contacts
            .iter()
            .enumerate()
            .filter(|(c, _)| pressing[*c])
            .collect();
        let held: Vec<(&ObstacleContact, &Friction)> = loads
            .contacts
            .iter()
            .zip(&friction)
            .zip(&active)
            .filter(|(_, &on)| on)
            .map(|(c, _)| c)
            .collect();
        // The contacts' terms of A z: the held ones' sticking drag and the pressing surface rows.
        let add_contact_terms = |z: &[DVec3], az: &mut [DVec3]| {
            for (c, f) in &held {
                az[c.phyxel] += f.drag * tangential(c.normal, z[c.phyxel]);
            }
            for &(c, contact) in &in_contact {
                let along: f64 = contact
                    .row
                    .iter()
                    .map(|&(j, cj, _)| cj * contact.normal.dot(z[j]))
                    .sum();
                let mut scaled = penalty[c] * along * contact.normal;
                if drag[c] > 0.0 {
                    let relative: DVec3 = contact.row.iter().map(|&(j, cj, _)| cj * z[j]).sum();
                    scaled += drag[c] * tangential(contact.normal, relative);
                }
                for &(j, cj, _) in &contact.row {
                    az[j] += cj * scaled;
                }
            }
        };
        let system = |z: &[DVec3]| -> Vec<DVec3> {
            let mut az = elastic_system(z);
            add_contact_terms(z, &mut az);
            az
        };
        let mut blocks = elastic_blocks.clone();
        b.clone_from(&base_b);
        for &(c, contact) in &in_contact {
            let nn = super::mls::outer(contact.normal, contact.normal);
            // Δt k_c d̃_c = (κ / w_c) d̃_c / Δt.
            let mut push = penalty[c] * contact.depth / dt * contact.normal;
            let mut block = nn * penalty[c];
            if drag[c] > 0.0 {
                // The friction force at the end of the step, −η_c T Σ_j c_j (v_j + Δv_j).
                let relative: DVec3 = contact.row.iter().map(|&(j, cj, _)| cj * velocity[j]).sum();
                push -= drag[c] * tangential(contact.normal, relative);
                block += (DMat3::IDENTITY - nn) * drag[c];
            }
            for &(j, cj, _) in &contact.row {
                blocks[j] += block * (cj * cj);
                b[j] += cj * push;
            }
        }
        for (c, f) in &held {
            // Sticking: the drag at the end of the step, −η_i T_i (v_i + Δv_i); sliding: −μ J_i ŝ_i.
            let nn = super::mls::outer(c.normal, c.normal);
            blocks[c.phyxel] += (DMat3::IDENTITY - nn) * f.drag;
            b[c.phyxel] += f.rhs(tangential(c.normal, velocity[c.phyxel]));
        }
        let filters = loads.filters(n, &active);
        // b − A z = b' − (1 + Δt α) M z − (contacts) z + (Δt β + Δt²) K (v + z), b' = b less its K v.
        let residual_of = |z: &[DVec3]| -> Vec<DVec3> {
            let moving = z.iter().any(|z| *z != DVec3::ZERO);
            let k_sum = if moving {
                let sum: Vec<DVec3> = velocity.iter().zip(z).map(|(v, z)| *v + *z).collect();
                stiffness.product(&sum)
            } else {
                kv.get_or_init(|| stiffness.product(velocity)).clone()
            };
            let mut residual: Vec<DVec3> = (0..n)
                .map(|i| b[i] - mass_factor * body.mass[i] * z[i] + stiffness_factor * k_sum[i])
                .collect();
            if moving {
                let mut contact_terms = vec![DVec3::ZERO; n];
                add_contact_terms(z, &mut contact_terms);
                for (residual, term) in residual.iter_mut().zip(contact_terms) {
                    *residual -= term;
                }
            }
            residual
        };
        // Δv = z̄ + S y: CG on S A S y = S (b − A z̄).
        let prescribed = loads.prescribed(n, &active);
        let rhs = residual_of(&prescribed);
        let filter =
            |v: &[DVec3]| -> Vec<DVec3> { v.iter().zip(&filters).map(|(v, s)| *s * *v).collect() };
        let apply = |z: &Vec<DVec3>| -> Vec<DVec3> {
            let az = system(&filter(z));
            (0..n)
                .map(|i| filters[i] * az[i] + (z[i] - filters[i] * z[i]))
                .collect()
        };
        let inverses: Vec<DMat3> = block_jacobi_inverses(&blocks)
            .into_iter()
            .zip(&filters)
            .map(|(inverse, s)| *s * inverse * *s + (DMat3::IDENTITY - *s))
            .collect();
        let tolerance = settings.cg_tolerance(loads.weight_impulse(body, dt));
        // A z without the stiffness, for the translations, which K annihilates.
        let rigid_system = |z: &[DVec3]| -> Vec<DVec3> {
            let mut az: Vec<DVec3> = (0..n).map(|i| mass_factor * body.mass[i] * z[i]).collect();
            add_contact_terms(z, &mut az);
            az
        };
        let coarse = if body.holds_a_surface() {
            None
        } else {
            translations(&filters, rigid_system)
        };
        let solution = match coarse {
            Some(coarse) => solve_deflated(
                apply,
                &filter(&rhs),
                filter(&guess),
                block_jacobi(&inverses),
                &coarse,
                tolerance,
            ),
            None => conjugate_gradient::solve(
                apply,
                &filter(&rhs),
                filter(&guess),
                block_jacobi(&inverses),
                tolerance,
            ),
        };
        iterations += solution.iterations;
        let dv: Vec<DVec3> = filter(&solution.x)
            .into_iter()
            .zip(&prescribed)
            .map(|(y, z)| y + *z)
            .collect();
        // Each held contact's impulse J = n·(A Δv − b); adhesive ones (J < 0) are released once.
        let contact_impulses: Vec<f64> = if loads.contacts.is_empty() {
            Vec::new()
        } else {
            let residual = residual_of(&dv);
            loads
                .contacts
                .iter()
                .zip(&active)
                .map(|(c, &on)| {
                    if on {
                        -c.normal.dot(residual[c.phyxel])
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        // The set for a second solve: the held ones that push (J ≥ 0), the free ones carried in, and
        // the held ones' friction within Coulomb's cone.
        let now_active: Vec<bool> = loads
            .contacts
            .iter()
            .zip(&active)
            .zip(&contact_impulses)
            .map(|((c, &on), &j)| {
                if on {
                    j >= 0.0
                } else {
                    c.normal.dot(dv[c.phyxel]) < c.target
                }
            })
            .collect();
        // Each surface contact's depth at the end of the step, and whether it presses there.
        let surface_depths: Vec<f64> = surface
            .contacts
            .iter()
            .map(|c| {
                let approach: f64 = c
                    .row
                    .iter()
                    .map(|&(j, cj, _)| cj * c.normal.dot(dv[j]))
                    .sum();
                c.depth - dt * approach
            })
            .collect();
        let now_pressing: Vec<bool> = surface_depths.iter().map(|&d| d > 0.0).collect();
        let surface_settled = now_pressing == pressing;
        let now_friction: Vec<Friction> = loads
            .contacts
            .iter()
            .zip(&friction)
            .zip(active.iter().zip(&now_active))
            .map(|((c, f), (&was, &now))| {
                let i = c.phyxel;
                if was && now {
                    f.after_solve(tangential(c.normal, velocity[i] + dv[i]), body.mass[i])
                } else {
                    *f
                }
            })
            .collect();
        let obstacles_settled = updated || (now_active == active && now_friction == friction);
        let settled = (obstacles_settled && surface_settled) || passes >= ACTIVE_SET_PASSES;
        if settled && !friction_pass && surface.friction > 0.0 && pressing.contains(&true) {
            // Coulomb friction, lagged on the normal force: each pressing contact gets a
            // tangential drag −η_c T Σ_j c_j v_j⁺ with Δt η_c = μ λ_c / |v_t|, λ_c and the slip v_t
            // from this solve (at most κ / w_c, sticking), and the system is solved once more.
            for (c, contact) in surface.contacts.iter().enumerate() {
                if !pressing[c] {
                    continue;
                }
                let lambda = (penalty[c] * surface_depths[c] / dt).max(0.0);
                let relative: DVec3 = contact
                    .row
                    .iter()
                    .map(|&(j, cj, _)| cj * (velocity[j] + dv[j]))
                    .sum();
                let slip = tangential(contact.normal, relative).length();
                let stick = penalty[c];
                drag[c] = if slip * stick > surface.friction * lambda {
                    surface.friction * lambda / slip
                } else {
                    stick
                };
            }
            friction_pass = true;
            guess = dv;
            continue;
        }
        if settled || friction_pass {
            // λ_c = Δt k_c d_c⁺ over the contacts the last solve pressed with: what it applied (a
            // pull, λ_c < 0, only where the passes ran out before the set settled).
            let surface_impulses = surface_depths
                .iter()
                .zip(&pressing)
                .zip(&penalty)
                .map(|((&d, &on), &p)| if on { p * d / dt } else { 0.0 })
                .collect();
            let surface_friction = surface
                .contacts
                .iter()
                .zip(&drag)
                .map(|(contact, &drag)| {
                    let relative: DVec3 = contact
                        .row
                        .iter()
                        .map(|&(j, cj, _)| cj * (velocity[j] + dv[j]))
                        .sum();
                    -drag * tangential(contact.normal, relative)
                })
                .collect();
            return VelocityChange {
                dv,
                stats: SolveStats {
                    iterations,
                    relative_residual: solution.relative_residual,
                    converged: solution.converged,
                },
                contact_impulses: contact_impulses.into_iter().map(|j| j.max(0.0)).collect(),
                surface_impulses,
                surface_depths,
                surface_friction,
            };
        }
        if !updated && !obstacles_settled {
            active = now_active;
            friction = now_friction;
            updated = true;
        }
        pressing = now_pressing;
        guess = dv;
    }
}

/// The rigid translations as the coarse space of the solve's deflation ([`crate::deflation`]): e_d
/// for each axis d along which no constraint acts (S_i e_d = e_d for every phyxel: a flat ground
/// holds y and leaves x and z), with its product by the filtered system, Â e_d = S A e_d. That
/// product needs no stiffness product: K e_d = 0, since the MLS gradient of a uniform displacement
/// vanishes (u_j − u_i = 0 in every term of MKN04 eq. 9, and likewise at the quadrature's points,
/// Brunet et al. 2019 eq. 9 with shape functions that reproduce constants), so A e_d is
/// `rigid_system(e_d)` = (1 + Δt α) M e_d plus the contacts' terms (the surface rows sum to zero,
/// Σ_j c_j = 0, and add nothing). An axis that a constraint touches is left to CG: its products would
/// cost a stiffness product each, more than the iterations they save (measured on the 3D demo's cube
/// resting on the ground: 0.4 iterations a step saved for 3 products a solve). None if no axis is
/// free (a clamped body has no rigid translation); not called for a body whose quadrature holds a
/// surface by a penalty, whose K pulls a translation back.
fn translations(
    filters: &[DMat3],
    rigid_system: impl Fn(&[DVec3]) -> Vec<DVec3>,
) -> Option<CoarseSpace<Vec<DVec3>>> {
    let mut z = Vec::with_capacity(3);
    let mut az = Vec::with_capacity(3);
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        if filters.iter().any(|s| *s * axis != axis) {
            continue;
        }
        let ed = vec![axis; filters.len()];
        let product: Vec<DVec3> = rigid_system(&ed)
            .into_iter()
            .zip(filters)
            .map(|(a, s)| *s * a)
            .collect();
        z.push(ed);
        az.push(product);
    }
    CoarseSpace::new(z, az)
}

/// Settings of the static (equilibrium) solve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StaticSolve {
    /// Newton stops when ‖f_elastic + f_ext‖ ≤ tolerance · ‖f_ext‖ over the free phyxels (Brunet et
    /// al. 2019 §4.1 use a residual threshold of 10⁻⁵).
    pub tolerance: f64,
    pub max_newton_iterations: usize,
    /// The CG solve of each Newton step.
    pub linear: Tolerance,
}

impl Default for StaticSolve {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_newton_iterations: 30,
            linear: Tolerance {
                relative_residual: 1e-8,
                max_iterations: 5000,
                reference_norm: 0.0,
            },
        }
    }
}

/// What a static solve did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StaticReport {
    pub newton_iterations: usize,
    /// CG iterations over all Newton steps.
    pub cg_iterations: usize,
    /// ‖f_elastic + f_ext‖ / ‖f_ext‖ over the free phyxels at the end.
    pub relative_residual: f64,
    pub converged: bool,
}

/// Static equilibrium f_elastic(u) + f_ext = 0 by Newton–Raphson with the corotated tangent
/// (Brunet et al. 2019 eq. 13: K^{n−1} δu^n = f_elastic(u^{n−1}) + f_ext, their K being −∂f/∂u):
/// each step recomputes the rotations at the current u, solves −K δu = f_elastic + f_ext with
/// block-Jacobi CG on the free phyxels, and sets u ← u + δu. The velocities are set to zero.
/// Colliders are not part of the static problem.
pub fn solve_static(body: &mut Body, loads: Loads, settings: StaticSolve) -> StaticReport {
    let n = body.len();
    let external = loads.total_force(body, vec![DVec3::ZERO; n]);
    let scale = external
        .iter()
        .map(|f| f.length_squared())
        .sum::<f64>()
        .sqrt();
    let mut report = StaticReport {
        newton_iterations: 0,
        cg_iterations: 0,
        relative_residual: 0.0,
        converged: false,
    };
    body.velocity.iter_mut().for_each(|v| *v = DVec3::ZERO);
    loop {
        let (r, elastic) = rotations_and_forces(body, &body.displacement);
        let stiffness = FrozenStiffness::at(body, &r);
        let residual = loads.total_force(body, elastic);
        let norm = residual
            .iter()
            .map(|f| f.length_squared())
            .sum::<f64>()
            .sqrt();
        report.relative_residual = if scale > 0.0 { norm / scale } else { norm };
        if report.relative_residual <= settings.tolerance {
            report.converged = true;
            return report;
        }
        if report.newton_iterations >= settings.max_newton_iterations || !norm.is_finite() {
            return report;
        }
        let apply = |z: &Vec<DVec3>| -> Vec<DVec3> {
            let mut free = z.clone();
            loads.zero_fixed(&mut free);
            let kz = stiffness.product(&free);
            (0..n)
                .map(|i| if loads.is_fixed(i) { z[i] } else { -kz[i] })
                .collect()
        };
        let blocks: Vec<DMat3> = stiffness
            .diagonal()
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                if loads.is_fixed(i) {
                    DMat3::IDENTITY
                } else {
                    -k
                }
            })
            .collect();
        let inverses = block_jacobi_inverses(&blocks);
        let solution = conjugate_gradient::solve(
            apply,
            &residual,
            vec![DVec3::ZERO; n],
            block_jacobi(&inverses),
            settings.linear,
        );
        report.cg_iterations += solution.iterations;
        report.newton_iterations += 1;
        for (i, du) in solution.x.iter().enumerate() {
            if !loads.is_fixed(i) {
                body.displacement[i] += *du;
            }
        }
    }
}

#[cfg(test)]
mod tests;
