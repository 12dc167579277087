//! The plate drawn as material, closed along its crack faces (issue 18 item 5). Seed 002 §7.2 (after
//! Pauly et al. 2005) gives a cracked meshless solid a surface of its own on each side of a crack, so
//! that fragments look closed, not like loose particles; in the plane that surface is a cell per
//! particle:
//!
//! - **in the reference configuration** particle i owns the points X nearer to X_i than to any
//!   particle it sees — the Voronoi cell over its neighbours j whose segment X_i X_j crosses no crack
//!   (the visibility criterion's test, seed 002 §7.3), X·(X_j − X_i) ≤ ½ (|X_j|² − |X_i|²) — cut by
//!   every crack segment beside it (the half-plane on X_i's side of the segment's line), within a square
//!   of half-side a around X_i and the plate's outline (the lattice's box, a/2 beyond its outer
//!   particles). The particles across a crack are invisible, so the cells on both sides reach the
//!   crack's line and meet there: the cells tile the plate, cracked or not, and a crack's two faces
//!   are the cut edges of the cells on its two sides. Ahead of a front (past a segment's end that is a
//!   front) no cut is made: the material there is whole. (Beside a front the cut is the segment's
//!   line, not the segment, so a sliver of less than a cell's area stays uncovered there: 0.02 a² on
//!   the tests' plate.)
//! - **in the deformed configuration** each cell is carried by its particle's own affine map,
//!   x = x_i + F_i (X − X_i), F_i the MLS deformation gradient (MKN04 eq. 9). MLS reproduces affine
//!   fields, so a homogeneous deformation carries the tiling to a tiling of the deformed plate; where
//!   fragments move apart, the faces of a crack open by exactly their separation. A particle whose F_i
//!   is no plausible deformation (a crack left it a sliver of neighbours: [`drawn_gradient`]) carries
//!   its cell rigidly.

use super::crack::{point_segment_distance, Crack};
use super::solid::{rotation_of, Solid, PLANAR_RANK};
use glam::{DMat2, DVec2};

/// The polygon (counter-clockwise corners) of `polygon`'s part where n·X ≤ c (Sutherland–Hodgman for
/// one half-plane).
pub fn clip(polygon: &[DVec2], normal: DVec2, offset: f64) -> Vec<DVec2> {
    let mut kept = Vec::with_capacity(polygon.len() + 1);
    for (k, &p) in polygon.iter().enumerate() {
        let q = polygon[(k + 1) % polygon.len()];
        let (dp, dq) = (normal.dot(p) - offset, normal.dot(q) - offset);
        if dp <= 0.0 {
            kept.push(p);
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            kept.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    kept
}

/// The signed area of a polygon (positive counter-clockwise; the shoelace formula).
pub fn polygon_area(polygon: &[DVec2]) -> f64 {
    let n = polygon.len();
    0.5 * (0..n)
        .map(|k| polygon[k].perp_dot(polygon[(k + 1) % n]))
        .sum::<f64>()
}

/// Whether crack segment a→b (of `crack`, its `index`-th of `count`) cuts the cell of a particle at
/// `x`: always, unless `x` lies past one of the segment's ends that is a crack front (module docs).
fn cuts(crack: &Crack, index: usize, count: usize, (a, b): (DVec2, DVec2), x: DVec2) -> bool {
    let s = b - a;
    let t = (x - a).dot(s) / s.length_squared().max(f64::MIN_POSITIVE);
    let past_start = t < 0.0 && index == 0 && crack.start.is_front;
    let past_end = t > 1.0 && index + 1 == count && crack.end.is_front;
    !(past_start || past_end)
}

/// Particle i's cell in the reference configuration (module docs), counter-clockwise; empty where
/// nothing of it is left (a particle outside the outline).
pub fn reference_cell(solid: &Solid, i: usize) -> Vec<DVec2> {
    cell_within(solid, i, outline(solid))
}

/// [`reference_cell`] inside the outline `(lo, hi)`.
fn cell_within(solid: &Solid, i: usize, (lo, hi): (DVec2, DVec2)) -> Vec<DVec2> {
    let a = solid.spacing;
    let x_i = solid.reference[i];
    let lo = lo.max(x_i - DVec2::splat(a));
    let hi = hi.min(x_i + DVec2::splat(a));
    let mut cell = vec![lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)];
    // The two of a pair whose weight no crack modified see each other (both criteria lower ω'_ij below ω_ij where
    // a crack crosses, but for d_s = 0 exactly); the others are tested.
    let visible = |x_j: DVec2| solid.cracks.iter().all(|c| c.crossing(x_i, x_j).is_none());
    for k in solid.edges(i) {
        let (j, uncut, weight) = solid.edge(k);
        let x_j = solid.reference[j];
        if j == i || x_j == x_i || (weight != uncut && !visible(x_j)) {
            continue;
        }
        let n = x_j - x_i;
        cell = clip(
            &cell,
            n,
            0.5 * (x_j.length_squared() - x_i.length_squared()),
        );
    }
    let reach = std::f64::consts::SQRT_2 * a;
    for crack in &solid.cracks {
        let (lo, hi) = crack.bounds();
        if (x_i + DVec2::splat(reach)).cmplt(lo).any()
            || (x_i - DVec2::splat(reach)).cmpgt(hi).any()
        {
            continue;
        }
        let count = crack.vertices.len().saturating_sub(1);
        for (index, (p, q)) in crack.segments().enumerate() {
            // A segment farther than the box's corner cannot meet the cell.
            let near = point_segment_distance(x_i, p, q) < reach;
            if !near || !cuts(crack, index, count, (p, q), x_i) {
                continue;
            }
            // Keep X_i's side of the line through p and q.
            let n = (q - p).perp();
            let side = n.dot(x_i - p);
            if side != 0.0 {
                let outward = -side.signum() * n;
                cell = clip(&cell, outward, outward.dot(p));
            }
        }
    }
    if cell.len() < 3 {
        cell.clear();
    }
    cell
}

/// The plate's outline in the reference configuration: the box of its particles, half a spacing wider
/// on every side.
fn outline(solid: &Solid) -> (DVec2, DVec2) {
    let half = DVec2::splat(0.5 * solid.spacing);
    let (lo, hi) = solid.reference.iter().fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(lo, hi), x| (lo.min(*x), hi.max(*x)),
    );
    (lo - half, hi + half)
}

/// Particle i's cell carried to the deformed configuration by x = x_i + F_i (X − X_i).
pub fn deformed_cell(solid: &Solid, i: usize) -> Vec<DVec2> {
    deform(solid, i, &reference_cell(solid, i))
}

fn deform(solid: &Solid, i: usize, cell: &[DVec2]) -> Vec<DVec2> {
    let f = drawn_gradient(solid, i);
    let (x_ref, x) = (solid.reference[i], solid.positions[i]);
    cell.iter()
        .map(|&corner| x + f * (corner - x_ref))
        .collect()
}

/// The principal stretches a cell is drawn with at most (and 1 / it at least): beyond, the particle's
/// F_i is taken as its rotation alone.
pub const LARGEST_DRAWN_STRETCH: f64 = 2.0;

/// The F_i a cell is carried by: the MLS gradient, or where that is not a plausible deformation of a
/// piece of material — a moment matrix that lost rank, an inverted F_i, a principal stretch beyond
/// [`LARGEST_DRAWN_STRETCH`] (a particle a crack left with a one-sided sliver of neighbours) — its
/// rotation only, so that no cell is drawn as a needle across the plate.
pub fn drawn_gradient(solid: &Solid, i: usize) -> DMat2 {
    let f: DMat2 = solid.deformation_gradient(i);
    let det = f.determinant();
    // Principal stretches σ₁ ≥ σ₂: σ₁² + σ₂² = |F|², σ₁ σ₂ = det F.
    let norm2 = f.x_axis.length_squared() + f.y_axis.length_squared();
    let largest = (0.5 * (norm2 + (norm2 * norm2 - 4.0 * det * det).max(0.0).sqrt())).sqrt();
    let smallest = det / largest.max(f64::MIN_POSITIVE);
    let plausible = solid.rank(i) >= PLANAR_RANK
        && det > 0.0
        && largest <= LARGEST_DRAWN_STRETCH
        && smallest >= 1.0 / LARGEST_DRAWN_STRETCH;
    if plausible {
        f
    } else {
        rotation_of(f)
    }
}

/// Every particle's reference cell, in particle order. They change only where the cracks or the
/// particles do (the page keeps them until then and carries them each frame with [`deform_cells`]).
pub fn reference_cells(solid: &Solid) -> Vec<Vec<DVec2>> {
    let bounds = outline(solid);
    (0..solid.len())
        .map(|i| cell_within(solid, i, bounds))
        .collect()
}

/// The reference cells `cells` ([`reference_cells`]) carried to the deformed configuration.
pub fn deform_cells(solid: &Solid, cells: &[Vec<DVec2>]) -> Vec<Vec<DVec2>> {
    cells
        .iter()
        .enumerate()
        .map(|(i, cell)| deform(solid, i, cell))
        .collect()
}

/// Every particle's deformed cell, in particle order.
pub fn deformed_cells(solid: &Solid) -> Vec<Vec<DVec2>> {
    deform_cells(solid, &reference_cells(solid))
}
