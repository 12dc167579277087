//! Crack surfaces of the 3D solver, kept in the reference configuration (seed 002 §7.3, after Pauly et
//! al. 2005; seed 000 §4.1.3), and the visibility criterion they impose on the weights.
//!
//! A crack is planar — mode I: it lies in the plane normal to the largest principal stress at its
//! start and stays in it — and its extent in that plane is a simple polygon, the *outline*. Each
//! outline vertex carries the in-plane direction in which it grows and whether it is still a *front*
//! (inside the body, free to advance). A crack started inside the body is a small fan of vertices on a
//! circle, each growing radially; a notch cut in from the surface has its front vertices along the
//! notch tip, growing straight on. Where growth leaves two neighbouring fronts farther apart than the
//! lattice spacing, a vertex is inserted between them, so the outline follows the front's shape.
//!
//! Visibility (Belytschko's criterion, seed 002 §7.3): the pair (i, j) interacts only if the segment
//! X_i–X_j crosses no crack, i.e. its point on the crack plane (if it has one) lies outside every
//! outline. Every point lies on exactly one side of a plane (signed distance ≥ 0 or < 0), so a crack
//! that spans a body splits every pair across it: fragments share no weight. Transparency (seed 002
//! eq. 70) weakens a crossing pair by the distance d_s from its crossing point to the nearest front
//! ([`Crack::distance_to_front`]).

use crate::meshless::neighbours::distance_to_segment;
use glam::{DVec2, DVec3};

/// One vertex of a crack's outline, in the crack plane's coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutlineVertex {
    /// Position in the plane: X = origin + p.x t + p.y b (t, b the plane's basis).
    pub position: DVec2,
    /// The unit in-plane direction in which this vertex advances.
    pub direction: DVec2,
    /// Whether the vertex is a crack front inside the body (false once it left the body, or for the
    /// outline of a notch outside it).
    pub is_front: bool,
}

/// A planar crack: the plane through `origin` with unit normal `normal`, cut where the outline is.
#[derive(Clone, Debug, PartialEq)]
pub struct Crack {
    pub origin: DVec3,
    pub normal: DVec3,
    /// The plane's orthonormal basis (t, b, n right-handed).
    pub tangent: DVec3,
    pub bitangent: DVec3,
    /// A simple polygon in plane coordinates.
    pub outline: Vec<OutlineVertex>,
    /// The largest distance of an outline vertex from the origin (for quick rejections).
    reach: f64,
}

impl Crack {
    /// An empty crack in the plane through `origin` normal to `normal` (outline to be added with
    /// [`Crack::push_vertex`]).
    pub fn in_plane(origin: DVec3, normal: DVec3) -> Self {
        let normal = normal.normalize();
        let (tangent, bitangent) = normal.any_orthonormal_pair();
        Self {
            origin,
            normal,
            tangent,
            bitangent,
            outline: Vec::new(),
            reach: 0.0,
        }
    }

    /// A crack started inside the body: a disc of radius `radius` around `origin` normal to `normal`,
    /// outlined by `vertices` fronts on its circle, each growing radially.
    pub fn disc(origin: DVec3, normal: DVec3, radius: f64, vertices: usize) -> Self {
        let mut crack = Self::in_plane(origin, normal);
        let count = vertices.max(3);
        for k in 0..count {
            let direction = DVec2::from_angle(std::f64::consts::TAU * k as f64 / count as f64);
            crack.push_vertex(OutlineVertex {
                position: direction * radius,
                direction,
                is_front: true,
            });
        }
        crack
    }

    /// Append a vertex to the outline.
    pub fn push_vertex(&mut self, vertex: OutlineVertex) {
        self.reach = self.reach.max(vertex.position.length());
        self.outline.push(vertex);
    }

    /// Plane coordinates of the projection of `x` onto the plane.
    pub fn plane_coordinates(&self, x: DVec3) -> DVec2 {
        let r = x - self.origin;
        DVec2::new(r.dot(self.tangent), r.dot(self.bitangent))
    }

    /// The point of the plane with plane coordinates `p`.
    pub fn to_space(&self, p: DVec2) -> DVec3 {
        self.origin + p.x * self.tangent + p.y * self.bitangent
    }

    /// The in-plane direction `d` in space.
    pub fn direction_in_space(&self, d: DVec2) -> DVec3 {
        d.x * self.tangent + d.y * self.bitangent
    }

    /// Signed distance n·(x − origin) of `x` from the plane.
    pub fn signed_distance(&self, x: DVec3) -> f64 {
        self.normal.dot(x - self.origin)
    }

    /// Whether the plane point `p` lies inside the outline (crossing number, W. R. Franklin's test).
    pub fn contains(&self, p: DVec2) -> bool {
        if p.length() > self.reach {
            return false;
        }
        let n = self.outline.len();
        let mut inside = false;
        for k in 0..n {
            let a = self.outline[k].position;
            let b = self.outline[(k + 1) % n].position;
            if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) {
                inside = !inside;
            }
        }
        inside
    }

    /// Whether the segment from `p` to `q` crosses the crack: its ends lie on different sides of the
    /// plane (side: signed distance ≥ 0, or < 0) and its point on the plane lies inside the outline.
    /// Callers pass the ends in a fixed order (the lower phyxel index first) so that the test is
    /// exactly symmetric.
    pub fn crosses(&self, p: DVec3, q: DVec3) -> bool {
        self.crossing(p, q).is_some()
    }

    /// Where the segment from `p` to `q` crosses the crack ([`Crack::crosses`]), in plane coordinates.
    pub fn crossing(&self, p: DVec3, q: DVec3) -> Option<DVec2> {
        let (sp, sq) = (self.signed_distance(p), self.signed_distance(q));
        if (sp >= 0.0) == (sq >= 0.0) {
            return None;
        }
        let x = self.plane_coordinates(p + (q - p) * (sp / (sp - sq)));
        self.contains(x).then_some(x)
    }

    /// d_s of the transparency method (seed 002 eq. 70): the in-plane distance from the plane point
    /// `x` to the nearest crack front — the front vertices and the outline's edges between two fronts;
    /// ∞ when no front is left (the crack cuts through, and nothing passes it).
    pub fn distance_to_front(&self, x: DVec2) -> f64 {
        let n = self.outline.len();
        (0..n)
            .filter(|&k| self.outline[k].is_front)
            .map(|k| {
                let (a, b) = (self.outline[k], self.outline[(k + 1) % n]);
                if b.is_front {
                    point_segment_distance(x, a.position, b.position)
                } else {
                    x.distance(a.position)
                }
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The largest distance of an outline vertex from the origin: the crack lies in the ball of this
    /// radius around it.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// Whether the segment from `p` to `q` may come near the crack at all (its bounding sphere).
    pub fn may_cross(&self, p: DVec3, q: DVec3) -> bool {
        let centre = 0.5 * (p + q);
        let radius = 0.5 * p.distance(q);
        centre.distance(self.origin) <= self.reach + radius
    }

    /// The distance from `x` to the crack surface (the outline's polygon in its plane).
    pub fn distance(&self, x: DVec3) -> f64 {
        let s = self.signed_distance(x);
        let p = self.plane_coordinates(x);
        if self.contains(p) {
            return s.abs();
        }
        let n = self.outline.len();
        let in_plane = (0..n)
            .map(|k| {
                let a = self.outline[k].position;
                let b = self.outline[(k + 1) % n].position;
                point_segment_distance(p, a, b)
            })
            .fold(f64::INFINITY, f64::min);
        (s * s + in_plane * in_plane).sqrt()
    }

    /// The front vertices: (outline index, position in space, direction in space).
    pub fn fronts(&self) -> impl Iterator<Item = (usize, DVec3, DVec3)> + '_ {
        self.outline
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_front)
            .map(|(k, v)| {
                (
                    k,
                    self.to_space(v.position),
                    self.direction_in_space(v.direction),
                )
            })
    }

    /// Whether any vertex is still a front.
    pub fn has_front(&self) -> bool {
        self.outline.iter().any(|v| v.is_front)
    }

    /// Move vertex k by `distance` along its direction; `is_front` says whether it stays a front.
    pub fn advance(&mut self, k: usize, distance: f64, is_front: bool) {
        let v = &mut self.outline[k];
        v.position += v.direction * distance;
        v.is_front = is_front;
        self.reach = self.reach.max(v.position.length());
    }

    /// Insert a front vertex midway between neighbouring fronts farther apart than `longest`, its
    /// direction the mean of theirs; repeated until no such edge is left.
    pub fn refine(&mut self, longest: f64) {
        let mut k = 0;
        while k < self.outline.len() {
            let n = self.outline.len();
            let (a, b) = (self.outline[k], self.outline[(k + 1) % n]);
            if a.is_front && b.is_front && a.position.distance(b.position) > longest {
                self.outline.insert(
                    k + 1,
                    OutlineVertex {
                        position: 0.5 * (a.position + b.position),
                        direction: (a.direction + b.direction).normalize_or(a.direction),
                        is_front: true,
                    },
                );
            } else {
                k += 1;
            }
        }
    }
}

/// Distance from `x` to the closed segment a→b in the plane: [`distance_to_segment`] at z = 0 (the
/// same sums, each with a zero added).
pub fn point_segment_distance(x: DVec2, a: DVec2, b: DVec2) -> f64 {
    distance_to_segment(x.extend(0.0), a.extend(0.0), b.extend(0.0))
}

/// An edge of a crack's outline whose ends moved, with how far ([`swept_edges`]): the area the edge
/// swept lies within `reach` of the segment from `a` to `b` (its ends before the move, in space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweptEdge {
    pub a: DVec3,
    pub b: DVec3,
    pub reach: f64,
}

impl SweptEdge {
    /// The distance from `x` to the segment a→b.
    pub fn distance(&self, x: DVec3) -> f64 {
        distance_to_segment(x, self.a, self.b)
    }

    /// Whether `x` lies within `radius` + δ of the segment, with a margin of rounding
    /// ([`SweptEdge::bound`]).
    pub fn holds(&self, x: DVec3, radius: f64) -> bool {
        self.distance(x) <= self.bound(radius)
    }

    /// The farthest from the segment a point [`SweptEdge::holds`] keeps for `radius`: `radius` + δ
    /// and a margin of rounding ([`SweptEdge::margin`]); it grows with `radius`.
    pub fn bound(&self, radius: f64) -> f64 {
        radius + self.reach + self.margin(radius)
    }

    /// The margin of rounding of [`SweptEdge::bound`], 10⁻⁶ of the edge's size: a point too many
    /// costs a test, a point missed a cut.
    pub fn margin(&self, radius: f64) -> f64 {
        1e-6 * (self.a.distance(self.b) + self.reach + radius)
    }
}

/// Where a crack's outline changed from `before` to `after` (the same vertices, some advanced): each
/// edge (k, k + 1) with a moved end, as the segment between its old ends and the larger of the two
/// moves, δ. The area the edge swept is {(1 − s) a(t) + s b(t)} with a(t) = a + t (a' − a) and b(t)
/// likewise, s, t ∈ [0, 1]: each such point is (1 − s) a + s b, on the old segment, plus
/// (1 − s) t (a' − a) + s t (b' − b), of length at most δ, so it lies within δ of the old segment.
/// (A ball around each moved vertex holding its two edges, as before, holds the whole far end of an
/// edge to a vertex that stopped — a front that left the body — and with it most of a body.)
pub fn swept_edges(
    crack: &Crack,
    before: &[OutlineVertex],
    after: &[OutlineVertex],
) -> Vec<SweptEdge> {
    let n = before.len();
    (0..n)
        .filter_map(|k| {
            let l = (k + 1) % n;
            let moved_k = after[k].position.distance(before[k].position);
            let moved_l = after[l].position.distance(before[l].position);
            (moved_k > 0.0 || moved_l > 0.0).then(|| SweptEdge {
                a: crack.to_space(before[k].position),
                b: crack.to_space(before[l].position),
                reach: moved_k.max(moved_l),
            })
        })
        .collect()
}
