//! The closed surface of a body that cracks (seed 002 §7.2–7.3: the crack faces are drawn, so that
//! fragments look closed, not hollow): the surface mesh of the body's lattice, split along the cracks.
//!
//! The fracture scenes sample their bodies on a cubic lattice (x fastest, then y, then z), so each
//! phyxel owns the cube of its lattice cell, spacing a on a side. The surface is every face of a cell
//! that borders no cell (the body's outside) or borders one across a crack: the lattice edge between
//! the two phyxels is *open* when a crack cut its weight ([`CellSurface::open_faces`]: ω'_ij < ω_ij,
//! the segment X_i–X_j crosses a crack surface, under either criterion), or when the two belong to
//! different pieces (no chain of pairs that exchange force joins them: a phyxel whose refits were
//! released, flying off as a free particle). Cracks run between lattice layers, so a crack face is a
//! staircase of cell faces at the lattice's resolution.
//!
//! **Split along the cracks.** A lattice corner is shared by up to 8 cells. The cells around it that
//! are joined through faces no crack opened form groups, and each group has its own vertex at the
//! corner. The vertex sits where the group's cells carry it: the mean over them of the cell's affine
//! map, x_k + F_k (C − X̂_k), with C − X̂_k the corner's offset (±a/2 on each axis) from the cell's
//! centre. F_k is the deformation gradient of the cell's joined lattice neighbours, in the least-squares
//! sense F_k = (Σ_j x_kj X_kjᵀ)(Σ_j X_kj X_kjᵀ)⁻¹. It is exact for any affine motion (so a rigid
//! fragment keeps its shape). Where a cell has neighbours along only two axes, the third column
//! completes a right-handed frame; along one axis, the smallest rotation taking the axis to it; along
//! none (a free particle), F = I. A fragment's quads therefore meet only its own vertices: every
//! fragment's mesh is closed, and pieces that part open along their crack faces.
//!
//! This is geometry for drawing, computed from the phyxels' positions and the open faces alone, so
//! the page's copy of a simulation (which holds the positions but not the cut weights) draws the
//! same surface as the solver that cut it.

use super::Fracture;
use crate::meshless::body::Body;
use crate::meshless::fracture::weights::uncut_weight;
use crate::meshless::fracture::FractureError;
use glam::{DMat3, DQuat, DVec3};
use std::collections::HashMap;

/// No edge: a cell on the lattice's last layer along that axis.
const NONE: u32 = u32::MAX;

/// A body's lattice of cells and the edges between neighbouring cells.
#[derive(Clone, Debug, PartialEq)]
pub struct CellSurface {
    /// Cells along x, y and z; phyxel i is the cell (i mod n_x, (i / n_x) mod n_y, i / (n_x n_y)).
    cells: [usize; 3],
    /// The lattice spacing a (m): the side of a cell.
    spacing: f64,
    /// For phyxel i and axis a, the edge (i → i + e_a) of i's neighbourhood (NONE on the last layer).
    axis_edge: Vec<[u32; 3]>,
    /// Those edges' uncut weights ω_ij.
    uncut: Vec<[f64; 3]>,
}

/// One quadrilateral face of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quad {
    /// Corners in [`CellMesh::corners`], counter-clockwise seen from outside the cell.
    pub corners: [u32; 4],
    /// The phyxel whose cell it bounds.
    pub phyxel: u32,
    /// Whether it lies on a crack (else on the body's outside).
    pub on_crack: bool,
}

/// The surface of [`CellSurface::mesh`] in the current configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellMesh {
    /// Each corner's position x (m), one per lattice corner and group of cells joined around it.
    pub corners: Vec<DVec3>,
    pub quads: Vec<Quad>,
}

impl CellMesh {
    /// Quads on a crack.
    pub fn crack_quads(&self) -> usize {
        self.quads.iter().filter(|q| q.on_crack).count()
    }

    /// Each quad as two triangles (corner indices, counter-clockwise from outside).
    pub fn triangles(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.quads.iter().flat_map(|q| {
            let [a, b, c, d] = q.corners;
            [[a, b, c], [a, c, d]]
        })
    }

    /// The volume it encloses (m³), by the divergence theorem: Σ over its triangles of
    /// x₀ · (x₁ × x₂) / 6 — each fragment's cells' volume if it is closed and outward.
    pub fn enclosed_volume(&self) -> f64 {
        self.triangles()
            .map(|[a, b, c]| {
                let [a, b, c] = [a, b, c].map(|k| self.corners[k as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    /// Edges that no quad passes the other way: none where the mesh is closed and consistently
    /// oriented (every directed edge u → v is matched by one v → u).
    pub fn unmatched_edges(&self) -> usize {
        let mut count: HashMap<(u32, u32), i64> = HashMap::new();
        for q in &self.quads {
            for k in 0..4 {
                let (u, v) = (q.corners[k], q.corners[(k + 1) % 4]);
                *count.entry((u.min(v), u.max(v))).or_default() += if u < v { 1 } else { -1 };
            }
        }
        count.values().filter(|&&c| c != 0).count()
    }
}

impl CellSurface {
    /// The lattice of `cells` (x fastest) at `spacing` that `body`'s first phyxels sample (those
    /// resampling appended after them, `super::resample`, own no cell: their parent's cell covers
    /// them). Its faces are bound to the body's neighbour lists: made anew when they are rebuilt.
    /// Refused if the body has fewer phyxels, or if two lattice neighbours are not in each other's
    /// neighbourhood (a support radius below the spacing).
    pub fn new(body: &Body, cells: [usize; 3], spacing: f64) -> Result<Self, FractureError> {
        let n = cells.iter().product::<usize>();
        if n > body.len() || n == 0 {
            return Err(FractureError(format!(
                "a body of {} phyxels is no lattice of {cells:?} cells",
                body.len()
            )));
        }
        if !(spacing > 0.0 && spacing.is_finite()) {
            return Err(FractureError(format!(
                "the lattice spacing must be a positive length (got {spacing})"
            )));
        }
        let stride = strides(cells);
        let mut axis_edge = vec![[NONE; 3]; n];
        let mut uncut = vec![[0.0; 3]; n];
        for i in 0..n {
            let p = coordinates(cells, i);
            for a in 0..3 {
                if p[a] + 1 == cells[a] {
                    continue;
                }
                let j = (i + stride[a]) as u32;
                let k = body
                    .neighbours
                    .edges(i)
                    .find(|&k| body.neighbours.neighbour[k] == j)
                    .ok_or_else(|| {
                        FractureError(format!(
                            "phyxels {i} and {j}, lattice neighbours, do not interact: the \
                             support radius is below the lattice spacing"
                        ))
                    })?;
                axis_edge[i][a] = k as u32;
                uncut[i][a] = uncut_weight(body, k);
            }
        }
        Ok(Self {
            cells,
            spacing,
            axis_edge,
            uncut,
        })
    }

    /// The open faces, as codes 3 i + a, in increasing order: the lattice edges (i → i + e_a) whose
    /// weight the cracks cut (ω'_ij below ω_ij), and those between phyxels of different pieces
    /// (`pieces`: [`super::fragments`]' labels) — two pieces that no crack separates, where refits
    /// released the phyxels between them (d_ij = 0), part too.
    pub fn open_faces(&self, fracture: &Fracture, pieces: &[u32]) -> Vec<u32> {
        let mut open = Vec::new();
        let stride = strides(self.cells);
        for (i, (edges, uncut)) in self.axis_edge.iter().zip(&self.uncut).enumerate() {
            for a in 0..3 {
                if edges[a] == NONE {
                    continue;
                }
                let parted = pieces.get(i) != pieces.get(i + stride[a]);
                if parted || fracture.weight(edges[a] as usize) < uncut[a] {
                    open.push((3 * i + a) as u32);
                }
            }
        }
        open
    }

    /// The faces on the body's outside, 2 (n_x n_y + n_y n_z + n_z n_x): the surface has these and
    /// two per open face.
    pub fn outer_faces(&self) -> usize {
        let [nx, ny, nz] = self.cells;
        2 * (nx * ny + ny * nz + nz * nx)
    }

    /// The surface at the phyxels' rest positions `reference` and current `positions`, opened where
    /// `open` says ([`CellSurface::open_faces`]; codes beyond the lattice are ignored).
    pub fn mesh(&self, reference: &[DVec3], positions: &[DVec3], open: &[u32]) -> CellMesh {
        let n = self.axis_edge.len();
        let mut is_open = vec![false; 3 * n];
        for &code in open {
            if let Some(flag) = is_open.get_mut(code as usize) {
                *flag = true;
            }
        }
        let lattice = Joins {
            cells: self.cells,
            stride: strides(self.cells),
            is_open,
        };
        let gradient: Vec<DMat3> = (0..n)
            .map(|i| lattice.deformation_gradient(i, reference, positions))
            .collect();
        let mut mesh = CellMesh::default();
        let mut groups: HashMap<usize, CornerGroups> = HashMap::new();
        let [nx, ny, _] = self.cells;
        for i in 0..n {
            let p = coordinates(self.cells, i);
            for a in 0..3 {
                for side in [0, 1] {
                    let across = lattice.across(i, a, side);
                    if across == Some(false) {
                        continue;
                    }
                    let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                    let mut offsets = [(0, 0), (1, 0), (1, 1), (0, 1)];
                    if side == 0 {
                        offsets.reverse();
                    }
                    let corners = offsets.map(|(db, dc)| {
                        let mut corner = p;
                        corner[a] += side;
                        corner[b] += db;
                        corner[c] += dc;
                        let index = corner[0] + (nx + 1) * (corner[1] + (ny + 1) * corner[2]);
                        let group = groups
                            .entry(index)
                            .or_insert_with(|| lattice.groups_around(corner));
                        let slot = group.slot_of(corner, p);
                        if group.vertex[slot] == NONE {
                            let x =
                                group.position(slot, corner, &lattice, self, positions, &gradient);
                            let vertex = mesh.corners.len() as u32;
                            mesh.corners.push(x);
                            for s in 0..8 {
                                if group.root[s] == group.root[slot] {
                                    group.vertex[s] = vertex;
                                }
                            }
                        }
                        group.vertex[slot]
                    });
                    mesh.quads.push(Quad {
                        corners,
                        phyxel: i as u32,
                        on_crack: across == Some(true),
                    });
                }
            }
        }
        mesh
    }
}

/// Cell i's lattice coordinates.
fn coordinates(cells: [usize; 3], i: usize) -> [usize; 3] {
    [
        i % cells[0],
        (i / cells[0]) % cells[1],
        i / (cells[0] * cells[1]),
    ]
}

/// The index steps of one cell along x, y and z.
fn strides(cells: [usize; 3]) -> [usize; 3] {
    [1, cells[0], cells[0] * cells[1]]
}

/// Which neighbouring cells are joined (no crack opened the face between them).
struct Joins {
    cells: [usize; 3],
    stride: [usize; 3],
    /// Per code 3 i + a: whether the face between cell i and i + e_a is open.
    is_open: Vec<bool>,
}

impl Joins {
    /// The cell next to i along axis a (side 1: +, 0: −): None if there is none, else whether a
    /// crack opened the face between them.
    fn across(&self, i: usize, a: usize, side: usize) -> Option<bool> {
        let p = coordinates(self.cells, i);
        let lower = if side == 1 {
            (p[a] + 1 < self.cells[a]).then_some(i)
        } else {
            (p[a] > 0).then(|| i - self.stride[a])
        }?;
        Some(self.is_open[3 * lower + a])
    }

    /// The cells joined to i along axis a.
    fn joined(&self, i: usize, a: usize) -> impl Iterator<Item = usize> + '_ {
        [0, 1]
            .into_iter()
            .filter(move |&side| self.across(i, a, side) == Some(false))
            .map(move |side| {
                if side == 1 {
                    i + self.stride[a]
                } else {
                    i - self.stride[a]
                }
            })
    }

    /// F_k of cell i from its joined neighbours (the module's paragraph): least squares where it has
    /// neighbours along all three axes, else completed to a frame.
    fn deformation_gradient(&self, i: usize, reference: &[DVec3], positions: &[DVec3]) -> DMat3 {
        let mut moment = DMat3::ZERO;
        let mut moved = DMat3::ZERO;
        let mut column = [None; 3];
        for a in 0..3 {
            let mut sum = DVec3::ZERO;
            let mut count = 0.0;
            for j in self.joined(i, a) {
                let dx_rest = reference[j] - reference[i];
                let dx = positions[j] - positions[i];
                moment += outer(dx_rest, dx_rest);
                moved += outer(dx, dx_rest);
                sum += dx / dx_rest[a];
                count += 1.0;
            }
            if count > 0.0 {
                column[a] = Some(sum / count);
            }
        }
        match column {
            [Some(_), Some(_), Some(_)] if moment.determinant().abs() > 0.0 => {
                moved * moment.inverse()
            }
            [Some(x), Some(y), Some(z)] => DMat3::from_cols(x, y, z),
            [None, Some(y), Some(z)] => DMat3::from_cols(completed(y, z, 0), y, z),
            [Some(x), None, Some(z)] => DMat3::from_cols(x, completed(z, x, 1), z),
            [Some(x), Some(y), None] => DMat3::from_cols(x, y, completed(x, y, 2)),
            [Some(x), None, None] => turned(x, 0),
            [None, Some(y), None] => turned(y, 1),
            [None, None, Some(z)] => turned(z, 2),
            [None, None, None] => DMat3::IDENTITY,
        }
    }

    /// The cells around lattice corner `corner` grouped by the faces that join them.
    fn groups_around(&self, corner: [usize; 3]) -> CornerGroups {
        // Slot s holds the cell corner − 1 + (s & 1, s >> 1 & 1, s >> 2 & 1), if it exists.
        let cell = |s: usize| -> Option<usize> {
            let mut index = 0;
            for (a, &c) in corner.iter().enumerate() {
                let q = (c + (s >> a & 1)).checked_sub(1)?;
                if q >= self.cells[a] {
                    return None;
                }
                index += q * self.stride[a];
            }
            Some(index)
        };
        let mut root: [u8; 8] = std::array::from_fn(|s| s as u8);
        fn find(root: &mut [u8; 8], mut s: usize) -> usize {
            while root[s] as usize != s {
                s = root[s] as usize;
            }
            s
        }
        for s in 0..8 {
            for a in 0..3 {
                if s >> a & 1 == 1 {
                    continue;
                }
                let t = s | 1 << a;
                if let (Some(lower), Some(_)) = (cell(s), cell(t)) {
                    if !self.is_open[3 * lower + a] {
                        let (u, v) = (find(&mut root, s), find(&mut root, t));
                        root[u.max(v)] = u.min(v) as u8;
                    }
                }
            }
        }
        for s in 0..8 {
            root[s] = find(&mut root, s) as u8;
        }
        CornerGroups {
            cell: std::array::from_fn(cell),
            root,
            vertex: [NONE; 8],
        }
    }
}

/// The cells around one lattice corner, their groups and each group's vertex.
struct CornerGroups {
    cell: [Option<usize>; 8],
    /// Each slot's group (its lowest slot).
    root: [u8; 8],
    vertex: [u32; 8],
}

impl CornerGroups {
    /// The slot of the cell at lattice coordinates `cell` around `corner`.
    fn slot_of(&self, corner: [usize; 3], cell: [usize; 3]) -> usize {
        (0..3).map(|a| (cell[a] + 1 - corner[a]) << a).sum()
    }

    /// The vertex of `slot`'s group at `corner`: the mean of its cells' affine maps there.
    fn position(
        &self,
        slot: usize,
        corner: [usize; 3],
        lattice: &Joins,
        surface: &CellSurface,
        positions: &[DVec3],
        gradient: &[DMat3],
    ) -> DVec3 {
        let mut sum = DVec3::ZERO;
        let mut count = 0.0;
        for s in (0..8).filter(|&s| self.root[s] == self.root[slot]) {
            let Some(k) = self.cell[s] else { continue };
            let centre = coordinates(lattice.cells, k).map(|q| q as f64 + 0.5);
            let offset = DVec3::new(
                corner[0] as f64 - centre[0],
                corner[1] as f64 - centre[1],
                corner[2] as f64 - centre[2],
            ) * surface.spacing;
            sum += positions[k] + gradient[k] * offset;
            count += 1.0;
        }
        sum / count
    }
}

/// u vᵀ.
fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

/// Column a that completes columns u, v (the next two in cyclic order) to a right-handed frame:
/// along u × v, as long as the geometric mean of their lengths (e_a where u × v vanishes).
fn completed(u: DVec3, v: DVec3, a: usize) -> DVec3 {
    let normal = u.cross(v);
    let length = normal.length();
    if length > 0.0 && length.is_finite() {
        normal / length * (u.length() * v.length()).sqrt()
    } else {
        DVec3::AXES[a]
    }
}

/// The smallest rotation taking e_a to the direction of column `f`, with `f` as its column a.
fn turned(f: DVec3, a: usize) -> DMat3 {
    let axis = DVec3::AXES[a];
    let Some(direction) = f.try_normalize() else {
        return DMat3::IDENTITY;
    };
    let mut frame = DMat3::from_quat(DQuat::from_rotation_arc(axis, direction));
    *frame.col_mut(a) = f;
    frame
}

#[cfg(test)]
mod tests;
