//! Contact between the objects of one body through their surface meshes (Brunet et al. 2019 — seed
//! 003 §3.7): collisions are found on the embedded surfaces and their impulses are mapped to the
//! phyxels with the surface's own weights, so two deformable objects touch.
//!
//! **Detection.** Each step, surface k's deformed vertices x_s ([`EmbeddedSurface::deformed_vertices`],
//! tutorial eq. 68) are tested against every *other* surface l (an object never touches itself this
//! way). Broad phase: the boxes around the phyxels each surface follows (widened by 2 h, so no vertex
//! needs moving while objects are apart), then the deformed surfaces' boxes widened by the reach r;
//! then the triangles of l near k in a uniform grid, searched ring by ring around each vertex of k
//! (`TargetSurface`). Narrow phase: the closest point x_c = Σ_a b_a x_a of the nearest triangle within r
//! (Ericson 2005 §5.1.5, barycentric b_a), and the inside test sign((x_s − x_c)·N) < 0 with N the
//! angle-weighted pseudo-normal of the closest feature (face, edge or vertex; Bærentzen & Aanæs 2005),
//! which is exact for a closed, outward-oriented mesh. A vertex inside l is a contact with
//!
//!   depth d = |x_c − x_s|,   normal n = (x_c − x_s)/d   (out of l, along which the vertex leaves),
//!
//! n taken as the face normal where d vanishes. A vertex deeper than r is not seen: r (a support
//! radius by default) bounds how far a step may carry a surface into another.
//!
//! **Mapping to the phyxels (seed 003 eq. 17).** A force f_s at a surface vertex goes to the particles
//! that carry it, f_i = φ_i(x_s⁰) f_s. Here φ are the coefficients of the embedding itself: eq. 68 is
//! linear in the displacements, x_s = x̄_s + Σ_k a_sk u_k ([`EmbeddedSurface::vertex_coefficients`]:
//! the weights ω̃ and the MLS gradient's d_jk), with Σ_k a_sk = 1 and Σ_k a_sk x_k = x_s. The reaction
//! −f_s acts at x_c on the triangle and goes to its corners' phyxels with b_a a_aj. One contact is
//! therefore a row of coefficients over phyxels,
//!
//!   c_j = a_sj − Σ_a b_a a_aj,   Σ_j c_j = 1 − 1 = 0,   Σ_j c_j x_j = x_s − x_c = −d n,
//!
//! its relative normal velocity v_n = n · Σ_j c_j v_j = n · (ẋ_s − ẋ_c) (≥ 0: separating), and an
//! impulse λ n along it changes v_j by c_j λ n / m_j. Because Σ_j c_j = 0, every impulse — and so the
//! whole contact pass — keeps the total linear momentum Σ m_j v_j exactly; because Σ_j c_j x_j ∥ n, a
//! normal impulse exerts no torque on the body, so the angular momentum is kept too. (A friction
//! impulse t acts at x_s and −t at x_c, a couple d n × t over the depth; the projection below moves a
//! still-sliding pair apart, which turns it by μ_p n × v_rel. Both are small: a glancing blow in
//! `tests/surface_contact.rs` keeps Σ m x × v to 8·10⁻⁴.)
//!
//! **Explicit steps: velocity impulses and a position projection after the step** ([`resolve`]).
//! Both are applied to the state the explicit integrator produced (the surface embedding uses the
//! MLS neighbourhoods, not the integration), and the contact needs no place in its stability bound:
//!
//! * Velocities (sequential impulses, Gauss–Seidel over the contacts, accumulated impulse clamped
//!   to λ ≥ 0): Δλ = −v_n / w with the effective inverse mass w = Σ_j c_j² / m_j, which brings v_n to
//!   zero — a perfectly inelastic impulse at the vertex. Such an impulse changes the kinetic energy
//!   by −½ v_n²/w ≤ 0: the contact never adds energy (the bodies still bounce, by their elasticity,
//!   as off the ground). Coulomb friction (μ = `Environment::friction`): the tangential relative
//!   velocity is removed by an accumulated tangential impulse held within μ λ, equally dissipative.
//! * Positions (the same Gauss–Seidel on the depth, "split impulse"): δx_j = c_j μ_p n / m_j with
//!   μ_p = d / w removes the depth without touching velocities, and Σ m_j δx_j = 0 leaves the centre
//!   of mass — and the gravitational energy — where it was.
//!
//! A penalty force k d n would instead add a stiffness k to the explicit step's bound (ω = √(k/m)
//! must stay under 2/Δt, and a stiffness that stops a fast body within r is far above it).
//!
//! **Implicit steps: the contact inside the solve** ([`find`] here, the solve in
//! [`super::implicit::velocity_change`], driven by `Simulation::advance_implicit`). After a long
//! implicit step the response above came a step late: in the collide scene at 1/120 s (10 across)
//! and 1/60 s (6 and 10 across) the projection after the impact — a step's approach, most of a
//! spacing, removed at once through rows that reach two neighbourhoods deep — turned neighbourhoods
//! by more than [`MAX_ROTATION_PER_STEP`] and the step was stopped (measured 2026-11-24; so were a
//! projection of a fifth of the depth per step, one through the weights ω̃ alone, and taking the
//! approach out before the solve). So corotated implicit Euler (nodal or background quadrature)
//! takes the contacts into its linear system instead:
//!
//! * Detection at the start of the step, at the predicted displacements ũ = u + Δt v (the point
//!   the solve linearizes about): every vertex inside another surface within the reach, and every
//!   vertex *outside* it within the margin (`SurfaceContact::margin`, 0.25 h: speculative contacts,
//!   so that what the solve itself brings into contact — Δt² g and the elastic response — is in
//!   the same solve), each with its row c_j, normal n and predicted depth d̃ = −n·Σ_j c_j x̃_j
//!   (negative outside). The rows and normals are frozen for the step; d is then linear in the
//!   displacements, d⁺ = d̃ − Δt n·Σ_j c_j Δv_j.
//! * Each contact is a penalty U_c = ½ k_c max(0, d_c)², taken at the end of the step like the
//!   elastic forces (backward Euler, Baraff & Witkin 1998 eq. 18): the pressing contacts add
//!   Δt² k_c (c n)(c n)ᵀ to the system matrix and Δt k_c d̃_c (c n) to the right-hand side. The
//!   stiffness is scaled to the contact's inertia per step, Δt² k_c = κ / w_c (κ =
//!   `SurfaceContact::stiffness` = 100): the compliant-constraint form (Servin, Lacoursière & Melin
//!   2006, "Interactive simulation of elastic deformable materials"; Tournier et al. 2015, "Stable
//!   constrained dynamics"), in which a lone contact keeps d⁺ = d̃/(1 + κ) of its predicted depth
//!   whatever Δt, and the CG's conditioning grows by κ at most instead of by an arbitrary k.
//! * Which contacts press (d⁺ > 0) is found by a primal–dual active set (Hintermüller, Ito &
//!   Kunisch 2002): solve, let go of those that would pull, take in those that end inside, solve
//!   again from the last Δv, at most 10 times. A resting patch has many more surface vertices than
//!   phyxels, most of them redundant, and starting from all of them the set halves per solve; so
//!   the first guess is the set that pressed in the last step plus the vertices new to the
//!   candidates (then it settles in one or two solves).
//! * Coulomb friction, lagged on the normal force (as IPC's, Li et al. 2020 §5): once the set has
//!   settled, each pressing contact gets a tangential drag −η_c T Σ_j c_j v_j⁺ (T = I − n nᵀ) with
//!   Δt η_c = μ λ_c / |v_t| from that solve's impulse λ_c = Δt k_c d_c⁺ and slip v_t (capped at
//!   κ / w_c: sticking), and the system is solved once more. Friction as impulses *after* the solve
//!   (as the explicit steps have it) was tried first: its impulses, through rows that share
//!   phyxels, pushed other vertices inside, and a ball rolling over the cube's edge sank 0.27
//!   spacing into it and gained up to 3 J a step.
//!
//! Why not the alternatives. The obstacles' contacts are constraints of the CG by Baraff & Witkin's
//! filter (`implicit.rs`), which constrains one phyxel's velocity along a normal; a surface contact
//! is a row over two objects' phyxels, and a resting patch has more vertices than phyxels, so its
//! rows are dependent: no per-phyxel filter expresses them, and a projected CG on C Δv = e
//! (Gould, Hribar & Nocedal 2001) needs (C P⁻¹ Cᵀ)⁻¹, singular for dependent rows; an LCP on the
//! Schur complement C A⁻¹ Cᵀ needs a solve per contact. The penalty keeps the system symmetric
//! positive definite, takes dependent rows as they come, and keeps its properties:
//!
//! * momentum: Σ_j c_j = 0, so the contact term adds nothing to Σ_j (A Δv)_j or Σ_j b_j, and Σ m v
//!   moves only by the CG's residual (measured: 3·10⁻⁶ N·s of M v = 34 N·s through a 2 m/s impact in
//!   free flight at 1/60 s, CG to 10⁻⁸);
//! * energy: with the rows frozen, U_c is convex, and one backward Euler step on a convex
//!   potential, v⁺ = argmin ½|v − v₀|²_M + U(x + Δt v), cannot raise the energy (the drag only
//!   dissipates); what re-linearizing each step and the corotated model's frozen rotations leave is
//!   measured in `tests/surface_contact.rs`.
//!
//! Measured 2026-11-24 (`tests/surface_contact.rs`, test profile, a shared 2-core machine): the
//! collide scene at the demo's implicit steps (CG to 10⁻⁴, damping 0.5/s, μ = 0.5), from the drop
//! until the ball has rolled off the cube (as with explicit steps, it lands off-centre, bounces and
//! rolls off at 1.15–1.25 s; 2.4 s nodal), no step stopped:
//!
//! | across, Δt, model | deepest vertex over the top / in all | CG a step (most) | largest energy rise in a contact step | run |
//! | --- | --- | --- | --- | --- |
//! | 6, 1/60 s, quadrature | 0.008 / 0.026 spacing | 439 | none (−0.15 J) | 23 s |
//! | 6, 1/120 s, quadrature | 0.003 / 0.005 | 485 | none (−0.07 J) | 24 s |
//! | 10, 1/60 s, quadrature | 0.042 / 0.042 | 522 | 0.042 J of 215 J | 30 s |
//! | 10, 1/120 s, quadrature | 0.008 / 0.008 | 525 | none (−0.08 J) | 38 s |
//! | 6, 1/60 s, nodal | 0.011 / 0.014 | 355 | 0.006 J of 232 J | 10 s |
//!
//! (free fall takes 15–30 CG iterations a step). A resting ball's contact carries 1.0000 of its
//! weight at 1/240, 1/120 and 1/60 s; two balls head on keep Σ m v to the CG tolerance.
//!
//! **Known limits (2026-11-24).** (1) Until 2026-11-25, at 10 across and 1/60 s the ball, once it had
//! rolled off the cube, was stopped by [`MAX_ROTATION_PER_STEP`] when it hit the ground (quadrature at
//! 1.27 s, nodal at 1.42 s): the obstacles' contact was a projection after the solve, with friction
//! after it too. The obstacles' contacts are now predicted at u + Δt v and taken inside the solve as
//! well (`implicit.rs`, "Obstacles inside the solve"; on the GPU too), and the scene runs to its end
//! (`tests/surface_contact.rs`). (2) The energy is not exactly non-increasing per step: the rows, normals
//! and the corotated model's rotations are frozen for a step and re-linearized at the next, and the
//! friction is lagged; the table's rises are at most 2·10⁻⁴ of the energy. (3) Contact steps cost
//! 10–30 times a free step's CG iterations (the penalty's κ and the active-set solves), so the
//! 10-across demo at 1/60 s runs below real time on the CPU while the ball is on the cube. (4) A
//! vertex deeper than the reach at the predicted positions is not seen.
//!
//! [`MAX_ROTATION_PER_STEP`]: super::simulation::MAX_ROTATION_PER_STEP

use super::body::Body;
use super::surface::EmbeddedSurface;
use glam::DVec3;

/// Settings of the surface contact ([`resolve`]; the implicit step's in its solve).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceContact {
    /// The reach r = `reach` × the smallest support radius: a vertex at most this deep inside
    /// another surface is found (deeper ones are not seen).
    pub reach: f64,
    /// Gauss–Seidel sweeps over the contacts, for the impulses and for the projection.
    pub iterations: usize,
    /// Implicit steps only: vertices up to `margin` × the smallest support radius *outside* another
    /// surface at the predicted positions are candidates too (speculative contacts), so that what
    /// the solve itself brings into contact is caught in the same step. At most `reach`.
    pub margin: f64,
    /// Implicit steps only: κ = Δt² k w, the contact's penalty stiffness k over its inertia per
    /// step (w = Σ c_j²/m_j): a lone contact keeps 1/(1 + κ) of its predicted depth.
    pub stiffness: f64,
}

impl Default for SurfaceContact {
    fn default() -> Self {
        Self {
            reach: 1.0,
            iterations: 8,
            margin: 0.25,
            stiffness: 100.0,
        }
    }
}

/// What the contact pass did in one step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactReport {
    /// Surface vertices found inside another object's surface.
    pub contacts: usize,
    /// The deepest of them (m), before the projection.
    pub deepest: f64,
    /// The impulse (N·s) the phyxels of each surface's vertices and triangles received: Σ over the
    /// contacts where surface k holds the vertex of λ n (+ friction) and where it holds the triangle of
    /// −λ n. These sum to zero over the surfaces.
    pub impulse: Vec<DVec3>,
}

/// One vertex of one surface inside (or, for the implicit step, near) another.
#[derive(Clone, Debug)]
pub struct Contact {
    /// (surface, vertex) and (surface, triangle).
    pub vertex: (usize, usize),
    pub triangle: (usize, usize),
    /// n: out of the triangle's surface, along which the vertex leaves it.
    pub normal: DVec3,
    /// d = −n · Σ_j c_j x_j: how deep the vertex lies inside (negative: how far outside).
    pub depth: f64,
    /// (phyxel, c_j, 1/m_j), each phyxel once; 1/m_j = 0 for a fixed phyxel.
    pub row: Vec<(usize, f64, f64)>,
    /// w = Σ_j c_j² / m_j.
    pub inverse_mass: f64,
}

/// Find the contacts between the surfaces of `body` and resolve them in place (velocities, then
/// displacements). `fixed` phyxels (an empty slice: none) do not move. `friction` is Coulomb's μ.
pub fn resolve(
    body: &mut Body,
    surfaces: &[EmbeddedSurface],
    fixed: &[bool],
    friction: f64,
    settings: SurfaceContact,
) -> ContactReport {
    let mut report = ContactReport {
        impulse: vec![DVec3::ZERO; surfaces.len()],
        ..ContactReport::default()
    };
    let contacts = find(body, surfaces, fixed, settings.reach, 0.0);
    if contacts.is_empty() {
        return report;
    }
    report.contacts = contacts.len();
    report.deepest = contacts.iter().map(|c| c.depth).fold(0.0, f64::max);

    // Velocities: sequential impulses with accumulated normal λ ≥ 0 and friction within μλ.
    let mut normal_impulse = vec![0.0; contacts.len()];
    let mut tangential_impulse = vec![DVec3::ZERO; contacts.len()];
    for _ in 0..settings.iterations.max(1) {
        for (k, c) in contacts.iter().enumerate() {
            let relative: DVec3 = c.row.iter().map(|&(j, cj, _)| cj * body.velocity[j]).sum();
            let v_n = relative.dot(c.normal);
            let accumulated = (normal_impulse[k] - v_n / c.inverse_mass).max(0.0);
            let delta_n = accumulated - normal_impulse[k];
            normal_impulse[k] = accumulated;
            // Friction on the relative velocity after the normal impulse.
            let tangential = relative + delta_n * c.inverse_mass * c.normal;
            let tangential = tangential - tangential.dot(c.normal) * c.normal;
            let wanted = tangential_impulse[k] - tangential / c.inverse_mass;
            let limit = friction.max(0.0) * accumulated;
            let clamped = wanted.clamp_length_max(limit);
            let delta_t = clamped - tangential_impulse[k];
            tangential_impulse[k] = clamped;
            let delta = delta_n * c.normal + delta_t;
            for &(j, cj, inverse) in &c.row {
                body.velocity[j] += cj * inverse * delta;
            }
        }
    }
    for (k, c) in contacts.iter().enumerate() {
        let delta = normal_impulse[k] * c.normal + tangential_impulse[k];
        report.impulse[c.vertex.0] += delta;
        report.impulse[c.triangle.0] -= delta;
    }

    // Positions: the same sweeps on the depth, d − n·Σ c_j δx_j ≤ 0, moving no centre of mass.
    let mut shift = vec![DVec3::ZERO; body.len()];
    let mut projected = vec![0.0; contacts.len()];
    for _ in 0..settings.iterations.max(1) {
        for (k, c) in contacts.iter().enumerate() {
            let moved: DVec3 = c.row.iter().map(|&(j, cj, _)| cj * shift[j]).sum();
            let depth = c.depth - moved.dot(c.normal);
            let accumulated = (projected[k] + depth / c.inverse_mass).max(0.0);
            let delta = accumulated - projected[k];
            projected[k] = accumulated;
            for &(j, cj, inverse) in &c.row {
                shift[j] += cj * inverse * delta * c.normal;
            }
        }
    }
    for c in &contacts {
        for &(j, _, _) in &c.row {
            body.displacement[j] += std::mem::take(&mut shift[j]);
        }
    }
    report
}

impl ContactReport {
    /// The report of an implicit step's contacts: those that received a normal impulse are counted,
    /// (a pull, λ < 0, too: see [`super::implicit::VelocityChange::surface_impulses`])
    /// `deepest` is the largest of their depths `after` the step, and each surface's impulse sums
    /// λ n + t (vertex side) and −(λ n + t) (triangle side).
    pub fn of(
        surfaces: usize,
        contacts: &[Contact],
        normal_impulse: &[f64],
        tangential_impulse: &[DVec3],
        after: &[f64],
    ) -> Self {
        let mut report = ContactReport {
            impulse: vec![DVec3::ZERO; surfaces],
            ..ContactReport::default()
        };
        for (k, c) in contacts.iter().enumerate() {
            if normal_impulse[k] == 0.0 {
                continue;
            }
            report.contacts += 1;
            report.deepest = report.deepest.max(after[k]);
            let delta = normal_impulse[k] * c.normal + tangential_impulse[k];
            report.impulse[c.vertex.0] += delta;
            report.impulse[c.triangle.0] -= delta;
        }
        report
    }
}

/// The vertices of each surface inside another surface of `body` (at its current displacements) by
/// at most `reach` × the smallest support radius, and — with `margin` > 0 — those outside it by at
/// most `margin` × that radius (`depth` < 0), each with its row c_j. `fixed` phyxels get 1/m = 0.
pub fn find(
    body: &Body,
    surfaces: &[EmbeddedSurface],
    fixed: &[bool],
    reach: f64,
    margin: f64,
) -> Vec<Contact> {
    if surfaces.len() < 2 || body.is_empty() {
        return Vec::new();
    }
    let smallest_h = body
        .support_radius
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min);
    let reach = reach * smallest_h;
    let margin = (margin * smallest_h).clamp(0.0, reach);
    // Broad phase on the phyxels, before any vertex is moved: a vertex lies within h of the phyxels
    // it follows at rest, and within ‖F‖ h deformed; 2 h_max + r covers stretches up to 2.
    let largest_h = body.support_radius.iter().cloned().fold(0.0, f64::max);
    let positions = |j: &u32| body.reference[*j as usize] + body.displacement[*j as usize];
    let around: Vec<(DVec3, DVec3)> = surfaces
        .iter()
        .map(|s| {
            let (lo, hi) = bounding_box_of(s.followed_phyxels().iter().map(positions));
            (lo - 2.0 * largest_h, hi + 2.0 * largest_h)
        })
        .collect();
    let near: Vec<bool> = (0..surfaces.len())
        .map(|k| (0..surfaces.len()).any(|l| l != k && overlap(around[k], around[l], reach)))
        .collect();
    if !near.contains(&true) {
        return Vec::new();
    }
    let gradients = body.displacement_gradients();
    let deformed: Vec<Vec<DVec3>> = surfaces
        .iter()
        .zip(&near)
        .map(|(s, &near)| {
            if near {
                s.deformed_vertices(body, &gradients)
            } else {
                Vec::new()
            }
        })
        .collect();
    find_contacts(surfaces, &deformed, reach, margin, body, fixed)
}

/// The contacts of every vertex of every surface with every other surface.
fn find_contacts(
    surfaces: &[EmbeddedSurface],
    deformed: &[Vec<DVec3>],
    reach: f64,
    margin: f64,
    body: &Body,
    fixed: &[bool],
) -> Vec<Contact> {
    // Surfaces left out by the broad phase have no deformed vertices (and an empty box).
    let bounds: Vec<(DVec3, DVec3)> = deformed.iter().map(|v| bounding_box(v)).collect();
    let overlaps = |k: usize, l: usize| overlap(bounds[k], bounds[l], reach);
    let mut contacts = Vec::new();
    let mut scratch = vec![0.0; body.len()];
    for l in 0..surfaces.len() {
        let touching: Vec<usize> = (0..surfaces.len())
            .filter(|&k| k != l && overlaps(k, l))
            .collect();
        if touching.is_empty() {
            continue;
        }
        // Only the triangles near the other surfaces are listed.
        let region = touching
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &k| {
                (lo.min(bounds[k].0 - reach), hi.max(bounds[k].1 + reach))
            });
        let surface = &surfaces[l];
        let target = TargetSurface::new(
            &surface.triangles,
            surface.welded_vertices(),
            &deformed[l],
            reach,
            region,
        );
        for k in touching {
            let (lo, hi) = (bounds[l].0 - reach, bounds[l].1 + reach);
            for (s, x) in deformed[k].iter().enumerate() {
                if !(x.cmpge(lo).all() && x.cmple(hi).all()) {
                    continue;
                }
                let Some((t, bary, normal, depth)) = target.signed_depth(*x, margin) else {
                    continue;
                };
                let row = contact_row(
                    &surfaces[k],
                    s,
                    &surfaces[l],
                    target.triangles[t],
                    bary,
                    body,
                    &mut scratch,
                );
                let row: Vec<(usize, f64, f64)> = row
                    .into_iter()
                    .map(|(j, cj)| {
                        let held = fixed.get(j).copied().unwrap_or(false);
                        (j, cj, if held { 0.0 } else { 1.0 / body.mass[j] })
                    })
                    .collect();
                let inverse_mass: f64 = row.iter().map(|&(_, cj, inv)| cj * cj * inv).sum();
                if inverse_mass > 0.0 {
                    contacts.push(Contact {
                        vertex: (k, s),
                        triangle: (l, t),
                        normal,
                        depth,
                        row,
                        inverse_mass,
                    });
                }
            }
        }
    }
    contacts
}

/// The coefficients c_j of one contact: +a_sj for the vertex, −Σ_a b_a a_aj for the triangle's
/// corners ([`EmbeddedSurface::vertex_coefficients`]), each phyxel once, summed in `scratch` (zero
/// on entry and on return, one entry per phyxel).
fn contact_row(
    vertex_surface: &EmbeddedSurface,
    s: usize,
    triangle_surface: &EmbeddedSurface,
    triangle: [u32; 3],
    bary: [f64; 3],
    body: &Body,
    scratch: &mut [f64],
) -> Vec<(usize, f64)> {
    let mut touched: Vec<usize> = Vec::new();
    let mut add = |j: usize, c: f64| {
        if scratch[j] == 0.0 {
            touched.push(j);
        }
        scratch[j] += c;
        if scratch[j] == 0.0 {
            // Keep it nonzero so that it is not listed twice (it is read back below).
            scratch[j] = f64::MIN_POSITIVE;
        }
    };
    vertex_surface.each_vertex_coefficient(s, body, &mut add);
    for (corner, b) in triangle.iter().zip(bary) {
        if b != 0.0 {
            triangle_surface.each_vertex_coefficient(*corner as usize, body, |j, a| add(j, -b * a));
        }
    }
    touched
        .into_iter()
        .map(|j| (j, std::mem::take(&mut scratch[j])))
        .collect()
}

fn bounding_box(points: &[DVec3]) -> (DVec3, DVec3) {
    bounding_box_of(points.iter().copied())
}

fn bounding_box_of(points: impl Iterator<Item = DVec3>) -> (DVec3, DVec3) {
    points.fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p), hi.max(p))
    })
}

/// Whether boxes a and b come within `gap` of each other.
fn overlap(a: (DVec3, DVec3), b: (DVec3, DVec3), gap: f64) -> bool {
    (a.0 - gap).cmple(b.1).all() && (b.0 - gap).cmple(a.1).all()
}

/// A deformed closed surface ready for inside tests: the triangles near a region in a grid, each listed
/// in the cells its box overlaps, searched ring by ring around a point until no unvisited cell can
/// hold a closer triangle. The cells are twice the mean edge, within r/2 … r (measured on the collide
/// scene: r/4 visits too many empty cells, r too many triangles). Edges and vertices are those of the welded mesh.
struct TargetSurface<'a> {
    triangles: &'a [[u32; 3]],
    vertices: &'a [DVec3],
    /// The welded vertex of each vertex ([`EmbeddedSurface::welded_vertices`]).
    welded: &'a [u32],
    cell: f64,
    reach: f64,
    /// The grid: cell [x, y, z] (counted from `origin`, `dims` of them per axis) lists
    /// `listed[first[c]..first[c + 1]]`, c = x + dims.x (y + dims.y z).
    origin: DVec3,
    dims: [i64; 3],
    first: Vec<u32>,
    listed: Vec<u32>,
}

impl<'a> TargetSurface<'a> {
    /// The surface of `triangles` with corners at `vertices` (`welded` as at rest), its triangles
    /// that come within the box `region` listed.
    fn new(
        triangles: &'a [[u32; 3]],
        welded: &'a [u32],
        vertices: &'a [DVec3],
        reach: f64,
        region: (DVec3, DVec3),
    ) -> Self {
        let near: Vec<(usize, (DVec3, DVec3))> = triangles
            .iter()
            .enumerate()
            .map(|(t, tri)| {
                (
                    t,
                    bounding_box_of(tri.iter().map(|&i| vertices[i as usize])),
                )
            })
            .filter(|(_, bounds)| overlap(*bounds, region, 0.0))
            .collect();
        let mean_edge = near
            .iter()
            .map(|(_, (lo, hi))| (*hi - *lo).max_element())
            .sum::<f64>()
            / near.len().max(1) as f64;
        let cell = (2.0 * mean_edge).clamp(0.5 * reach, reach);
        let (lo, hi) = near.iter().fold(
            (DVec3::INFINITY, DVec3::NEG_INFINITY),
            |(lo, hi), (_, b)| (lo.min(b.0), hi.max(b.1)),
        );
        let origin = if near.is_empty() { DVec3::ZERO } else { lo };
        let top = cell_of(hi - origin, cell);
        let dims = if near.is_empty() {
            [0; 3]
        } else {
            top.map(|c| c + 1)
        };
        // Counting sort of (cell, triangle) pairs.
        let cells = (dims[0] * dims[1] * dims[2]) as usize;
        let mut first = vec![0u32; cells + 1];
        let index = |c: [i64; 3]| (c[0] + dims[0] * (c[1] + dims[1] * c[2])) as usize;
        let range = |b: &(DVec3, DVec3)| (cell_of(b.0 - origin, cell), cell_of(b.1 - origin, cell));
        let each_cell = |(lo, hi): ([i64; 3], [i64; 3]), f: &mut dyn FnMut([i64; 3])| {
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        f([x, y, z]);
                    }
                }
            }
        };
        for (_, b) in &near {
            each_cell(range(b), &mut |c| first[index(c) + 1] += 1);
        }
        for c in 0..cells {
            first[c + 1] += first[c];
        }
        let mut fill = first.clone();
        let mut listed = vec![0u32; first[cells] as usize];
        for (t, b) in &near {
            each_cell(range(b), &mut |c| {
                let slot = &mut fill[index(c)];
                listed[*slot as usize] = *t as u32;
                *slot += 1;
            });
        }
        Self {
            triangles,
            vertices,
            welded,
            cell,
            reach,
            origin,
            dims,
            first,
            listed,
        }
    }

    /// The triangles listed in cell c (none outside the grid).
    fn cell_list(&self, c: [i64; 3]) -> &[u32] {
        if (0..3).any(|k| c[k] < 0 || c[k] >= self.dims[k]) {
            return &[];
        }
        let i = (c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])) as usize;
        &self.listed[self.first[i] as usize..self.first[i + 1] as usize]
    }

    fn corners(&self, t: usize) -> [DVec3; 3] {
        self.triangles[t].map(|i| self.vertices[i as usize])
    }

    fn face_normal(&self, t: usize) -> DVec3 {
        let [a, b, c] = self.corners(t);
        (b - a).cross(c - a).normalize_or_zero()
    }

    /// If `x` lies inside the surface within the reach: (triangle, barycentric coordinates of the
    /// closest point, normal n out of the surface, depth d).
    #[cfg(test)]
    fn penetration(&self, x: DVec3) -> Option<(usize, [f64; 3], DVec3, f64)> {
        self.signed_depth(x, 0.0)
    }

    /// As [`Self::penetration`], and where `x` lies outside within `margin` (≤ the reach): the
    /// closest point's triangle and barycentric coordinates, n = (x − x_c)/|x − x_c| (along which it
    /// moves away) and d = −|x − x_c| ≤ 0.
    fn signed_depth(&self, x: DVec3, margin: f64) -> Option<(usize, [f64; 3], DVec3, f64)> {
        let [cx, cy, cz] = cell_of(x - self.origin, self.cell);
        let mut candidates: Vec<u32> = Vec::new();
        let mut best: Option<(usize, [f64; 3], DVec3, f64)> = None;
        // A triangle listed only in cells of ring r + 1 or beyond lies at least r cells away.
        let rings = (self.reach / self.cell).ceil() as i64 + 1;
        for ring in 0..=rings {
            let start = candidates.len();
            for dx in -ring..=ring {
                for dy in -ring..=ring {
                    for dz in -ring..=ring {
                        if dx.abs().max(dy.abs()).max(dz.abs()) != ring {
                            continue;
                        }
                        candidates.extend_from_slice(self.cell_list([cx + dx, cy + dy, cz + dz]));
                    }
                }
            }
            for &t in &candidates[start..] {
                let t = t as usize;
                let corners = self.corners(t);
                let bary = closest_on_triangle(x, corners);
                let closest = bary[0] * corners[0] + bary[1] * corners[1] + bary[2] * corners[2];
                let distance_squared = closest.distance_squared(x);
                if best.is_none_or(|b| distance_squared < b.3) {
                    best = Some((t, bary, closest, distance_squared));
                }
            }
            let covered = ring as f64 * self.cell;
            if best.is_some_and(|b| b.3 <= covered * covered) || covered > self.reach {
                break;
            }
        }
        let (t, bary, closest, distance_squared) = best?;
        let depth = distance_squared.sqrt();
        if depth > self.reach {
            return None;
        }
        let pseudo_normal = self.pseudo_normal(t, bary, &candidates);
        let tiny = depth <= 1e-12 * self.reach;
        if (x - closest).dot(pseudo_normal) >= 0.0 {
            if depth > margin || margin <= 0.0 {
                return None;
            }
            let normal = if tiny {
                self.face_normal(t)
            } else {
                (x - closest) / depth
            };
            return Some((t, bary, normal, -depth));
        }
        let normal = if tiny {
            self.face_normal(t)
        } else {
            (closest - x) / depth
        };
        Some((t, bary, normal, depth))
    }

    /// The pseudo-normal of the feature of triangle t that holds the point with barycentric `bary`:
    /// its face (no zero coordinate), an edge (one: the sum of its faces' normals) or a vertex (two:
    /// the faces' normals around it weighted by their angles there). The faces around the feature
    /// hold the closest point, so they are among `candidates` (possibly more than once).
    fn pseudo_normal(&self, t: usize, bary: [f64; 3], candidates: &[u32]) -> DVec3 {
        let welded = |t: usize| self.triangles[t].map(|i| self.welded[i as usize]);
        let tri = welded(t);
        let zero: Vec<usize> = (0..3).filter(|&k| bary[k] <= 1e-12).collect();
        // A triangle may be listed in several cells: each face once.
        let around = |corner: u32| {
            let mut faces: Vec<usize> = candidates
                .iter()
                .map(|&f| f as usize)
                .filter(|&f| welded(f).contains(&corner))
                .collect();
            faces.sort_unstable();
            faces.dedup();
            faces.into_iter()
        };
        match zero.as_slice() {
            [] => self.face_normal(t),
            [k] => {
                let (i, j) = (tri[(k + 1) % 3], tri[(k + 2) % 3]);
                around(i)
                    .filter(|&f| welded(f).contains(&j))
                    .map(|f| self.face_normal(f))
                    .sum()
            }
            _ => {
                let k = (0..3).find(|k| !zero.contains(k)).unwrap_or(0);
                let corner = tri[k];
                around(corner)
                    .map(|f| {
                        let w = welded(f);
                        let c = self.corners(f);
                        let at = (0..3).find(|&m| w[m] == corner).unwrap_or(0);
                        let e1 = (c[(at + 1) % 3] - c[at]).normalize_or_zero();
                        let e2 = (c[(at + 2) % 3] - c[at]).normalize_or_zero();
                        e1.dot(e2).clamp(-1.0, 1.0).acos() * self.face_normal(f)
                    })
                    .sum()
            }
        }
    }
}

fn cell_of(x: DVec3, cell: f64) -> [i64; 3] {
    let c = (x / cell).floor();
    [c.x as i64, c.y as i64, c.z as i64]
}

/// Barycentric coordinates of the point of triangle (a, b, c) closest to p (Ericson, "Real-Time
/// Collision Detection" §5.1.5): exactly zero on the coordinates of the corners the point is not
/// between.
fn closest_on_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> [f64; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denominator = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denominator, vc * denominator);
    [1.0 - v - w, v, w]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_point_of_a_triangle_is_found_in_every_region() {
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        // Above the face: its projection.
        let b = closest_on_triangle(DVec3::new(0.25, 0.25, 1.0), tri);
        assert!((b[0] - 0.5).abs() < 1e-15 && (b[1] - 0.25).abs() < 1e-15);
        // Beyond a corner, beyond an edge.
        assert_eq!(
            closest_on_triangle(DVec3::new(-1.0, -1.0, 0.3), tri),
            [1.0, 0.0, 0.0]
        );
        assert_eq!(
            closest_on_triangle(DVec3::new(0.5, -1.0, 0.0), tri),
            [0.5, 0.5, 0.0]
        );
        let hypotenuse = closest_on_triangle(DVec3::new(1.0, 1.0, 0.0), tri);
        assert!(hypotenuse[0] == 0.0 && (hypotenuse[1] - 0.5).abs() < 1e-15);
    }

    #[test]
    fn points_inside_a_closed_surface_within_the_reach_are_found_with_depth_and_outward_normal() {
        use crate::meshless::sampling::Shape;
        let mesh = Shape::Box {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        }
        .surface_mesh(4);
        let welded = crate::meshless::surface::weld(&mesh.vertices);
        let everywhere = (DVec3::splat(-1.0), DVec3::splat(2.0));
        let surface = TargetSurface::new(&mesh.triangles, &welded, &mesh.vertices, 0.2, everywhere);
        // 0.05 inside the top face: depth 0.05, pushed out along +y.
        let (_, _, n, d) = surface.penetration(DVec3::new(0.3, 0.95, 0.4)).unwrap();
        assert!((d - 0.05).abs() < 1e-12 && (n - DVec3::Y).length() < 1e-12);
        // Near a corner inside: the nearest face decides.
        let (_, _, n, d) = surface.penetration(DVec3::new(0.97, 0.9, 0.92)).unwrap();
        assert!((d - 0.03).abs() < 1e-12 && (n - DVec3::X).length() < 1e-12);
        // Outside beside an edge and beside a corner (where a face normal alone misleads: the box's
        // faces are separate grids, welded here), deeper than the reach, and far away: nothing.
        assert!(surface.penetration(DVec3::new(1.05, 1.05, 0.5)).is_none());
        assert!(surface.penetration(DVec3::new(1.02, 1.03, 1.01)).is_none());
        assert!(surface.penetration(DVec3::splat(0.5)).is_none());
        assert!(surface.penetration(DVec3::splat(5.0)).is_none());
    }

    #[test]
    fn contact_impulses_conserve_momentum_exactly_and_move_no_centre_of_mass() {
        use crate::meshless::body::SupportRadius;
        use crate::meshless::material::Material;
        use crate::meshless::sampling::{sample, Lattice, Shape};
        // Two balls 0.02 m into each other (their rest shapes apart: the overlap is displacement),
        // approaching at 1 m/s each, with friction.
        let spacing = 0.05;
        let balls = [-0.2, 0.2].map(|x| Shape::Sphere {
            center: DVec3::new(x, 0.0, 0.0),
            radius: 0.15,
        });
        let mut points = sample(&balls[0], spacing, Lattice::Cubic);
        let start = points.len();
        points.extend(sample(&balls[1], spacing, Lattice::Cubic));
        let mut body = Body::new(
            points,
            spacing.powi(3),
            spacing,
            Material::JELLY,
            SupportRadius::SpacingMultiple { factor: 1.9 },
        );
        let surfaces: Vec<EmbeddedSurface> = balls
            .iter()
            .map(|b| EmbeddedSurface::bind(&b.surface_mesh(16), &body))
            .collect();
        for i in 0..body.len() {
            let side = if i < start { 1.0 } else { -1.0 };
            body.displacement[i] = DVec3::new(side * 0.06, 0.0, 0.0);
            body.velocity[i] = DVec3::new(side, 0.3 * side, 0.0);
        }
        let momentum =
            |b: &Body| -> DVec3 { b.velocity.iter().zip(&b.mass).map(|(v, m)| *m * *v).sum() };
        let moment = |b: &Body| -> DVec3 {
            b.positions()
                .iter()
                .zip(&b.mass)
                .map(|(x, m)| *m * *x)
                .sum()
        };
        let kinetic = |b: &Body| -> f64 {
            b.velocity
                .iter()
                .zip(&b.mass)
                .map(|(v, m)| 0.5 * m * v.length_squared())
                .sum()
        };
        let (p0, c0, k0) = (momentum(&body), moment(&body), kinetic(&body));
        let report = resolve(&mut body, &surfaces, &[], 0.5, SurfaceContact::default());
        assert!(report.contacts > 10, "{} contacts", report.contacts);
        assert!((report.impulse[0] + report.impulse[1]).length() < 1e-12);
        assert!(report.impulse[0].x < 0.0, "the left ball is pushed back");
        let mass: f64 = body.mass.iter().sum();
        assert!(
            (momentum(&body) - p0).length() <= 1e-14 * mass,
            "{}",
            momentum(&body) - p0
        );
        assert!(
            (moment(&body) - c0).length() <= 1e-15 * mass,
            "{}",
            moment(&body) - c0
        );
        assert!(
            kinetic(&body) < k0,
            "inelastic with friction: {} → {}",
            k0,
            kinetic(&body)
        );
        // Approaching vertices no longer approach: every contact's relative normal velocity ≥ 0 up to
        // the Gauss–Seidel sweeps' residue.
        let again = resolve(&mut body, &surfaces, &[], 0.5, SurfaceContact::default());
        let second: f64 = again.impulse[0].length();
        assert!(
            second < 0.05 * report.impulse[0].length(),
            "{second} after {}",
            report.impulse[0]
        );
    }
}
