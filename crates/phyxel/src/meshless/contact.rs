//! Contact between the objects of one body through their surface meshes (Brunet et al. 2019 — seed
//! 003 §3.7): collisions are found on the embedded surfaces and their impulses are mapped to the
//! phyxels with the surface's own weights, so two deformable objects touch.
//!
//! **Detection.** Each step, surface k's deformed vertices x_s ([`EmbeddedSurface::deformed_vertices`],
//! tutorial eq. 68) are tested against every *other* surface l (an object never touches itself this
//! way). Broad phase: the surfaces' bounding boxes, widened by the reach r; then l's triangles in a
//! uniform grid of cell r, each listed in every cell its box (widened by r) overlaps, so a vertex reads
//! one cell. Narrow phase: the closest point x_c = Σ_a b_a x_a of the nearest triangle within r
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
//! **Response: velocity impulses and a position projection after the step.** Both are applied to the
//! state the integrator produced, so any integrator — the explicit ones and corotated implicit Euler,
//! nodal or background quadrature (the surface embedding uses the MLS neighbourhoods, not the
//! integration) — gets the same contact, and none of them needs the contact in its stability bound:
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
//! must stay under 2/Δt, and a stiffness that stops a fast body within r is far above it) and, in the
//! implicit step, a term in the system matrix that changes as contacts come and go; the post-step
//! impulse needs neither and cannot make a step unstable.

use super::body::Body;
use super::surface::EmbeddedSurface;
use glam::DVec3;
use std::collections::HashMap;

/// Settings of the surface contact ([`resolve`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceContact {
    /// The reach r = `reach` × the smallest support radius: a vertex at most this deep inside
    /// another surface is found (deeper ones are not seen).
    pub reach: f64,
    /// Gauss–Seidel sweeps over the contacts, for the impulses and for the projection.
    pub iterations: usize,
}

impl Default for SurfaceContact {
    fn default() -> Self {
        Self {
            reach: 1.0,
            iterations: 8,
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

/// One vertex of one surface inside another.
#[derive(Clone, Debug)]
struct Contact {
    /// (surface, vertex) and (surface, triangle).
    vertex: (usize, usize),
    triangle: (usize, usize),
    normal: DVec3,
    depth: f64,
    /// (phyxel, c_j, 1/m_j), each phyxel once.
    row: Vec<(usize, f64, f64)>,
    inverse_mass: f64,
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
    if surfaces.len() < 2 || body.is_empty() {
        return report;
    }
    let smallest_h = body
        .support_radius
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min);
    let reach = settings.reach * smallest_h;
    let gradients = body.displacement_gradients();
    let deformed: Vec<Vec<DVec3>> = surfaces
        .iter()
        .map(|s| s.deformed_vertices(body, &gradients))
        .collect();
    let contacts = find_contacts(surfaces, &deformed, reach, body, fixed);
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
    let mut shift: HashMap<usize, DVec3> = HashMap::new();
    let mut projected = vec![0.0; contacts.len()];
    for _ in 0..settings.iterations.max(1) {
        for (k, c) in contacts.iter().enumerate() {
            let moved: DVec3 = c
                .row
                .iter()
                .map(|&(j, cj, _)| cj * shift.get(&j).copied().unwrap_or(DVec3::ZERO))
                .sum();
            let depth = c.depth - moved.dot(c.normal);
            let accumulated = (projected[k] + depth / c.inverse_mass).max(0.0);
            let delta = accumulated - projected[k];
            projected[k] = accumulated;
            for &(j, cj, inverse) in &c.row {
                *shift.entry(j).or_insert(DVec3::ZERO) += cj * inverse * delta * c.normal;
            }
        }
    }
    for (j, delta) in shift
        .into_iter()
        .filter(|_| std::env::var("NOPROJ").is_err())
    {
        body.displacement[j] += delta;
    }
    report
}

/// The contacts of every vertex of every surface with every other surface.
fn find_contacts(
    surfaces: &[EmbeddedSurface],
    deformed: &[Vec<DVec3>],
    reach: f64,
    body: &Body,
    fixed: &[bool],
) -> Vec<Contact> {
    let bounds: Vec<(DVec3, DVec3)> = deformed.iter().map(|v| bounding_box(v)).collect();
    let overlaps = |k: usize, l: usize| {
        let (a, b) = (bounds[k], bounds[l]);
        (a.0 - reach).cmple(b.1).all() && (b.0 - reach).cmple(a.1).all()
    };
    let mut contacts = Vec::new();
    for l in 0..surfaces.len() {
        if !(0..surfaces.len()).any(|k| k != l && overlaps(k, l)) {
            continue;
        }
        let surface = &surfaces[l];
        let target = TargetSurface::new(
            &surface.triangles,
            surface.rest_vertices(),
            &deformed[l],
            reach,
        );
        for k in (0..surfaces.len()).filter(|&k| k != l && overlaps(k, l)) {
            let (lo, hi) = (bounds[l].0 - reach, bounds[l].1 + reach);
            for (s, x) in deformed[k].iter().enumerate() {
                if !(x.cmpge(lo).all() && x.cmple(hi).all()) {
                    continue;
                }
                let Some((t, bary, normal, depth)) = target.penetration(*x) else {
                    continue;
                };
                let row = contact_row(
                    &surfaces[k],
                    s,
                    &surfaces[l],
                    target.triangles[t],
                    bary,
                    body,
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
/// corners ([`EmbeddedSurface::vertex_coefficients`]), each phyxel once.
fn contact_row(
    vertex_surface: &EmbeddedSurface,
    s: usize,
    triangle_surface: &EmbeddedSurface,
    triangle: [u32; 3],
    bary: [f64; 3],
    body: &Body,
) -> Vec<(usize, f64)> {
    let mut terms = vertex_surface.vertex_coefficients(s, body);
    for (corner, b) in triangle.iter().zip(bary) {
        if b != 0.0 {
            let corner = triangle_surface.vertex_coefficients(*corner as usize, body);
            terms.extend(corner.into_iter().map(|(j, a)| (j, -b * a)));
        }
    }
    terms.sort_unstable_by_key(|t| t.0);
    let mut row: Vec<(usize, f64)> = Vec::with_capacity(terms.len());
    for (j, c) in terms {
        match row.last_mut() {
            Some(last) if last.0 == j => last.1 += c,
            _ => row.push((j, c)),
        }
    }
    row
}

fn bounding_box(points: &[DVec3]) -> (DVec3, DVec3) {
    points
        .iter()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        })
}

/// A deformed closed surface ready for inside tests: its triangles in a grid, and the pseudo-normals
/// of its faces, edges and vertices. Edges and vertices are those of the welded mesh: corners that
/// coincide at rest are one (a box's faces are separate grids that meet at its edges).
struct TargetSurface<'a> {
    triangles: &'a [[u32; 3]],
    vertices: &'a [DVec3],
    /// The welded vertex of each vertex.
    welded: Vec<u32>,
    face_normal: Vec<DVec3>,
    /// Σ of the two faces' unit normals at each edge (sorted corner pair).
    edge_normal: HashMap<(u32, u32), DVec3>,
    /// Σ of the angle-weighted unit normals of the faces around each vertex.
    vertex_normal: Vec<DVec3>,
    cell: f64,
    reach: f64,
    grid: HashMap<[i64; 3], Vec<u32>>,
}

impl<'a> TargetSurface<'a> {
    /// The surface of `triangles` with corners at `vertices` (at `rest` in the reference shape).
    fn new(triangles: &'a [[u32; 3]], rest: &[DVec3], vertices: &'a [DVec3], reach: f64) -> Self {
        let welded = weld(rest);
        let mut face_normal = Vec::with_capacity(triangles.len());
        let mut edge_normal: HashMap<(u32, u32), DVec3> = HashMap::new();
        let mut vertex_normal = vec![DVec3::ZERO; vertices.len()];
        let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
        let cell = reach;
        for (t, tri) in triangles.iter().enumerate() {
            let [a, b, c] = tri.map(|i| vertices[i as usize]);
            let n = (b - a).cross(c - a).normalize_or_zero();
            face_normal.push(n);
            for k in 0..3 {
                let (i, j) = (welded[tri[k] as usize], welded[tri[(k + 1) % 3] as usize]);
                *edge_normal.entry((i.min(j), i.max(j))).or_default() += n;
                let p = vertices[tri[k] as usize];
                let e1 = (vertices[tri[(k + 1) % 3] as usize] - p).normalize_or_zero();
                let e2 = (vertices[tri[(k + 2) % 3] as usize] - p).normalize_or_zero();
                vertex_normal[i as usize] += e1.dot(e2).clamp(-1.0, 1.0).acos() * n;
            }
            let lo = cell_of(a.min(b).min(c) - reach, cell);
            let hi = cell_of(a.max(b).max(c) + reach, cell);
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        grid.entry([x, y, z]).or_default().push(t as u32);
                    }
                }
            }
        }
        Self {
            triangles,
            vertices,
            welded,
            face_normal,
            edge_normal,
            vertex_normal,
            cell,
            reach,
            grid,
        }
    }

    /// If `x` lies inside the surface within the reach: (triangle, barycentric coordinates of the
    /// closest point, normal n out of the surface, depth d).
    fn penetration(&self, x: DVec3) -> Option<(usize, [f64; 3], DVec3, f64)> {
        let candidates = self.grid.get(&cell_of(x, self.cell))?;
        let mut best: Option<(usize, [f64; 3], DVec3, f64)> = None;
        for &t in candidates {
            let t = t as usize;
            let corners = self.triangles[t].map(|i| self.vertices[i as usize]);
            let bary = closest_on_triangle(x, corners);
            let closest = bary[0] * corners[0] + bary[1] * corners[1] + bary[2] * corners[2];
            let distance_squared = closest.distance_squared(x);
            if best.is_none_or(|b| distance_squared < b.3) {
                best = Some((t, bary, closest, distance_squared));
            }
        }
        let (t, bary, closest, distance_squared) = best?;
        let depth = distance_squared.sqrt();
        if depth > self.reach {
            return None;
        }
        let pseudo_normal = self.pseudo_normal(t, bary);
        if (x - closest).dot(pseudo_normal) >= 0.0 {
            return None;
        }
        let normal = if depth > 1e-12 * self.reach {
            (closest - x) / depth
        } else {
            self.face_normal[t]
        };
        Some((t, bary, normal, depth))
    }

    /// The pseudo-normal of the feature of triangle t that holds the point with barycentric `bary`:
    /// its face (no zero coordinate), an edge (one), or a vertex (two).
    fn pseudo_normal(&self, t: usize, bary: [f64; 3]) -> DVec3 {
        let tri = self.triangles[t].map(|i| self.welded[i as usize]);
        let zero: Vec<usize> = (0..3).filter(|&k| bary[k] <= 1e-12).collect();
        match zero.as_slice() {
            [] => self.face_normal[t],
            [k] => {
                let (i, j) = (tri[(k + 1) % 3], tri[(k + 2) % 3]);
                self.edge_normal
                    .get(&(i.min(j), i.max(j)))
                    .copied()
                    .unwrap_or(self.face_normal[t])
            }
            _ => {
                let k = (0..3).find(|k| !zero.contains(k)).unwrap_or(0);
                self.vertex_normal[tri[k] as usize]
            }
        }
    }
}

/// For each vertex, the first vertex at the same place (to 10⁻⁹ of the mesh's size).
fn weld(vertices: &[DVec3]) -> Vec<u32> {
    let (lo, hi) = bounding_box(vertices);
    let tolerance = 1e-9 * (hi - lo).length().max(f64::MIN_POSITIVE);
    let mut first = HashMap::new();
    vertices
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let key = (*v / tolerance).round().as_i64vec3().to_array();
            *first.entry(key).or_insert(i as u32)
        })
        .collect()
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
        let surface = TargetSurface::new(&mesh.triangles, &mesh.vertices, &mesh.vertices, 0.2);
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
