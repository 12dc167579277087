//! Neighbourhoods by spatial hashing (Teschner et al. 2003; tutorial §5): the grid of cells of edge
//! `cell` (the largest support radius) is hashed into a table, the phyxels are counting-sorted by bucket
//! (count → prefix sum → scatter: no fixed-size buckets, nothing dropped), and each phyxel scans the
//! buckets of the 27 cells around it.
//!
//! With per-phyxel support radii, j ∈ N(i) (|x_j − x_i| < h_i) does not imply i ∈ N(j): the reverse
//! lists record, for each phyxel k, every edge (i, j = k) that names it, which the force gather needs.

use crate::parallel::map_indices;
use glam::{DVec3, IVec3};

/// The primes p₁, p₂, p₃ of [`cell_hash`] (Teschner et al. 2003).
pub const HASH_PRIMES: [i32; 3] = [73_856_093, 19_349_663, 83_492_791];

/// The spatial hash of Teschner et al. 2003: (x·p₁ xor y·p₂ xor z·p₃) mod table size.
pub fn cell_hash(cell: IVec3, table_size: usize) -> usize {
    let [p1, p2, p3] = HASH_PRIMES;
    let h = (cell.x.wrapping_mul(p1) ^ cell.y.wrapping_mul(p2) ^ cell.z.wrapping_mul(p3)) as u32;
    h as usize % table_size
}

/// The phyxels sorted by hash bucket.
#[derive(Clone, Debug)]
pub struct HashGrid {
    pub cell: f64,
    /// `sorted[bucket_start[b]..bucket_start[b + 1]]` are the phyxels in bucket b.
    pub bucket_start: Vec<u32>,
    pub sorted: Vec<u32>,
}

impl HashGrid {
    /// Counting sort of `points` into a table of about 2n buckets.
    pub fn build(points: &[DVec3], cell: f64) -> Self {
        assert!(
            cell > 0.0 && cell.is_finite(),
            "hash cell size must be positive"
        );
        let table_size = (2 * points.len()).max(1) | 1;
        let buckets: Vec<usize> = points
            .iter()
            .map(|&p| cell_hash(cell_of(p, cell), table_size))
            .collect();
        let mut bucket_start = vec![0u32; table_size + 1];
        for &b in &buckets {
            bucket_start[b + 1] += 1;
        }
        for b in 0..table_size {
            bucket_start[b + 1] += bucket_start[b];
        }
        let mut fill = bucket_start.clone();
        let mut sorted = vec![0u32; points.len()];
        for (i, &b) in buckets.iter().enumerate() {
            sorted[fill[b] as usize] = i as u32;
            fill[b] += 1;
        }
        Self {
            cell,
            bucket_start,
            sorted,
        }
    }

    fn table_size(&self) -> usize {
        self.bucket_start.len() - 1
    }

    /// Every phyxel in the buckets of the 27 cells around `p` (a superset of those within `cell`).
    pub fn candidates(&self, p: DVec3) -> impl Iterator<Item = u32> + '_ {
        let centre = cell_of(p, self.cell);
        let mut buckets = [0usize; 27];
        let mut n = 0;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    buckets[n] = cell_hash(centre + IVec3::new(dx, dy, dz), self.table_size());
                    n += 1;
                }
            }
        }
        // Distinct cells may hash to one bucket: visit each bucket once.
        buckets.sort_unstable();
        let mut unique = buckets.to_vec();
        unique.dedup();
        self.phyxels_in(unique)
    }

    /// The phyxels of `buckets`, bucket after bucket.
    fn phyxels_in(&self, buckets: Vec<usize>) -> impl Iterator<Item = u32> + '_ {
        buckets.into_iter().flat_map(move |b| {
            let range = self.bucket_start[b] as usize..self.bucket_start[b + 1] as usize;
            self.sorted[range].iter().copied()
        })
    }

    /// Every phyxel in the buckets of the cells within `radius` of `p` along each axis (a superset of
    /// those within `radius`): [`HashGrid::candidates`] for a reach of any length, each bucket once
    /// (every bucket where the cells outnumber them).
    pub fn candidates_within(&self, p: DVec3, radius: f64) -> impl Iterator<Item = u32> + '_ {
        let reach = DVec3::splat(radius);
        self.phyxels_in(self.buckets_in_box(p - reach, p + reach, |_| true))
    }

    /// Every phyxel in the buckets of the cells that may hold a point within `radius` of the segment
    /// from `a` to `b` (a superset of those points): the cells of the segment's bounding box grown by
    /// `radius` whose centre lies within `radius` + half a cell's diagonal of the segment — a point
    /// of a cell lies within half its diagonal of its centre, so a cell farther away holds none —
    /// each bucket once. Along an edge of a crack's outline one walk of the cells near it, instead of
    /// [`HashGrid::candidates_within`]'s boxes around points on it, which overlap and hold their corners.
    pub fn candidates_near_segment(
        &self,
        a: DVec3,
        b: DVec3,
        radius: f64,
    ) -> impl Iterator<Item = u32> + '_ {
        let (grown, reach) = (DVec3::splat(radius), radius + 0.5 * 3f64.sqrt() * self.cell);
        let near = |cell: IVec3| {
            let centre = (cell.as_dvec3() + 0.5) * self.cell;
            distance_to_segment(centre, a, b) <= reach
        };
        self.phyxels_in(self.buckets_in_box(a.min(b) - grown, a.max(b) + grown, near))
    }

    /// The buckets of the cells from the one holding `low` to the one holding `high` that `keep`
    /// keeps, each once — every bucket where the cells outnumber them.
    fn buckets_in_box(&self, low: DVec3, high: DVec3, keep: impl Fn(IVec3) -> bool) -> Vec<usize> {
        let (low, high) = (cell_of(low, self.cell), cell_of(high, self.cell));
        let extent = |a: i32, b: i32| (i64::from(b) - i64::from(a) + 1).max(0);
        let cells = extent(low.x, high.x)
            .saturating_mul(extent(low.y, high.y))
            .saturating_mul(extent(low.z, high.z));
        if cells > self.table_size() as i64 {
            return (0..self.table_size()).collect();
        }
        let mut buckets = Vec::with_capacity(cells as usize);
        for z in low.z..=high.z {
            for y in low.y..=high.y {
                for x in low.x..=high.x {
                    let cell = IVec3::new(x, y, z);
                    if keep(cell) {
                        buckets.push(cell_hash(cell, self.table_size()));
                    }
                }
            }
        }
        buckets.sort_unstable();
        buckets.dedup();
        buckets
    }
}

/// The distance from `x` to the closed segment from `a` to `b`.
pub fn distance_to_segment(x: DVec3, a: DVec3, b: DVec3) -> f64 {
    let s = b - a;
    let length2 = s.length_squared();
    let t = if length2 > 0.0 {
        ((x - a).dot(s) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    x.distance(a + s * t)
}

fn cell_of(p: DVec3, cell: f64) -> IVec3 {
    (p / cell).floor().as_ivec3()
}

/// Neighbour lists in compressed rows, and the reverse lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Neighbourhoods {
    /// Edges of phyxel i: `start[i]..start[i + 1]`; edge k joins i to `neighbour[k]`.
    pub start: Vec<u32>,
    pub neighbour: Vec<u32>,
    /// Edges that name phyxel k as a neighbour: `reverse[reverse_start[k]..reverse_start[k + 1]]`,
    /// each an edge index into `neighbour` (its owner is found with [`Neighbourhoods::owner`]).
    pub reverse_start: Vec<u32>,
    pub reverse: Vec<u32>,
    /// The owner i of each edge.
    pub owner: Vec<u32>,
}

impl Neighbourhoods {
    /// j ∈ N(i) ⇔ j ≠ i and |x_j − x_i| < h_i. Lists are sorted by index (deterministic).
    pub fn build(points: &[DVec3], support_radius: &[f64]) -> Self {
        assert_eq!(points.len(), support_radius.len());
        let n = points.len();
        let cell = support_radius.iter().cloned().fold(0.0, f64::max);
        if n == 0 || cell <= 0.0 {
            return Self {
                start: vec![0; n + 1],
                reverse_start: vec![0; n + 1],
                ..Self::default()
            };
        }
        let grid = HashGrid::build(points, cell);
        let lists = map_indices(n, |i| {
            let (x, h) = (points[i], support_radius[i]);
            let mut list: Vec<u32> = grid
                .candidates(x)
                .filter(|&j| j as usize != i && points[j as usize].distance(x) < h)
                .collect();
            list.sort_unstable();
            list
        });
        Self::from_lists(n, |i| &lists[i], |_| &[])
    }

    /// What [`Neighbourhoods::build`] gives for `points` and `support_radius` when `self` is its
    /// result for their first `self.len()` entries and the rest were appended since: an old phyxel's
    /// list is its old one (sorted) followed by the appended phyxels within its support (their indices
    /// are all larger); only the appended phyxels search the grid. Edge for edge the same as a full
    /// build (tested), at the cost of a copy of the edges rather than a search of every phyxel's 27
    /// cells — what adaptive resampling needs after each split (seed 002 eq. 71).
    pub fn with_appended(&self, points: &[DVec3], support_radius: &[f64]) -> Self {
        assert_eq!(points.len(), support_radius.len());
        let cell = support_radius.iter().cloned().fold(0.0, f64::max);
        if self.len() == points.len() {
            return self.clone();
        }
        if cell <= 0.0 {
            return Self::build(points, support_radius);
        }
        self.with_appended_in(&HashGrid::build(points, cell), points, support_radius)
    }

    /// [`Neighbourhoods::with_appended`] searching `grid`, a grid of all of `points` whose cell is no
    /// smaller than any support radius (the caller's own, built once for more than this).
    pub fn with_appended_in(
        &self,
        grid: &HashGrid,
        points: &[DVec3],
        support_radius: &[f64],
    ) -> Self {
        assert_eq!(points.len(), support_radius.len());
        let (old, n) = (self.len(), points.len());
        assert!(old <= n, "phyxels are appended, never removed");
        assert_eq!(grid.sorted.len(), n, "the grid holds every phyxel");
        debug_assert!(support_radius.iter().all(|&h| h <= grid.cell));
        // The appended phyxels' own lists, and for each old phyxel the appended ones it reaches.
        let mut fresh: Vec<Vec<u32>> = Vec::with_capacity(n - old);
        let mut reached: Vec<Vec<u32>> = vec![Vec::new(); old];
        for j in old..n {
            let (x, h) = (points[j], support_radius[j]);
            let mut list = Vec::new();
            for i in grid.candidates(x) {
                let (i, d) = (i as usize, points[i as usize].distance(x));
                if i != j && d < h {
                    list.push(i as u32);
                }
                if i < old && d < support_radius[i] {
                    reached[i].push(j as u32);
                }
            }
            list.sort_unstable();
            fresh.push(list);
        }
        reached.iter_mut().for_each(|list| list.sort_unstable());
        Self::from_lists(
            n,
            |i| {
                if i < old {
                    &self.neighbour[self.edges(i)]
                } else {
                    &fresh[i - old]
                }
            },
            |i| if i < old { &reached[i] } else { &[] },
        )
    }

    /// The edges of phyxel i's list `head(i)` followed by `tail(i)`, for i in 0..n, and their reverse
    /// lists.
    fn from_lists<'a>(
        n: usize,
        head: impl Fn(usize) -> &'a [u32],
        tail: impl Fn(usize) -> &'a [u32],
    ) -> Self {
        let edges = (0..n).map(|i| head(i).len() + tail(i).len()).sum();
        let mut start = Vec::with_capacity(n + 1);
        start.push(0);
        let mut neighbour = Vec::with_capacity(edges);
        let mut owner = Vec::with_capacity(edges);
        for i in 0..n {
            neighbour.extend_from_slice(head(i));
            neighbour.extend_from_slice(tail(i));
            owner.resize(neighbour.len(), i as u32);
            start.push(neighbour.len() as u32);
        }
        // Reverse lists by counting sort of the edges on their target.
        let mut reverse_start = vec![0u32; n + 1];
        for &j in &neighbour {
            reverse_start[j as usize + 1] += 1;
        }
        for k in 0..n {
            reverse_start[k + 1] += reverse_start[k];
        }
        let mut fill = reverse_start.clone();
        let mut reverse = vec![0u32; neighbour.len()];
        for (edge, &j) in neighbour.iter().enumerate() {
            reverse[fill[j as usize] as usize] = edge as u32;
            fill[j as usize] += 1;
        }
        Self {
            start,
            neighbour,
            reverse_start,
            reverse,
            owner,
        }
    }

    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The edge indices of phyxel i's neighbourhood.
    pub fn edges(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }

    /// The edges (i → k) of other neighbourhoods that contain phyxel k.
    pub fn edges_into(&self, k: usize) -> &[u32] {
        &self.reverse[self.reverse_start[k] as usize..self.reverse_start[k + 1] as usize]
    }

    /// Mean number of neighbours.
    pub fn mean_count(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.neighbour.len() as f64 / self.len() as f64
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small deterministic pseudo-random sequence in [0, 1) (no dependency needed).
    pub(crate) fn uniform(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn hash_grid_finds_exactly_the_brute_force_neighbours_with_varying_radii() {
        let mut seed = 7;
        let points: Vec<DVec3> = (0..600)
            .map(|_| {
                DVec3::new(
                    uniform(&mut seed),
                    uniform(&mut seed),
                    0.5 * uniform(&mut seed),
                )
            })
            .collect();
        let radii: Vec<f64> = (0..600).map(|_| 0.05 + 0.1 * uniform(&mut seed)).collect();
        let hoods = Neighbourhoods::build(&points, &radii);
        for i in 0..points.len() {
            let brute: Vec<u32> = (0..points.len() as u32)
                .filter(|&j| j as usize != i && points[j as usize].distance(points[i]) < radii[i])
                .collect();
            let found: Vec<u32> = hoods.edges(i).map(|k| hoods.neighbour[k]).collect();
            assert_eq!(found, brute, "phyxel {i}");
        }
        // The relation is not symmetric, and the reverse lists invert it exactly.
        let asymmetric = (0..points.len())
            .flat_map(|i| hoods.edges(i).map(move |k| (i, k)))
            .filter(|&(i, k)| {
                let j = hoods.neighbour[k] as usize;
                !hoods.edges(j).any(|e| hoods.neighbour[e] as usize == i)
            })
            .count();
        assert!(asymmetric > 0, "radii vary, so some edges must be one-way");
        let mut seen = 0;
        for k in 0..points.len() {
            for &edge in hoods.edges_into(k) {
                assert_eq!(hoods.neighbour[edge as usize] as usize, k);
                assert!(hoods
                    .edges(hoods.owner[edge as usize] as usize)
                    .contains(&(edge as usize)));
                seen += 1;
            }
        }
        assert_eq!(
            seen,
            hoods.neighbour.len(),
            "every edge appears in exactly one reverse list"
        );
    }

    /// 500 points in the unit cube and a grid of cells 0.1 wide over them.
    fn cloud(mut seed: u64) -> (Vec<DVec3>, HashGrid, u64) {
        let points: Vec<DVec3> = (0..500)
            .map(|_| DVec3::new(uniform(&mut seed), uniform(&mut seed), uniform(&mut seed)))
            .collect();
        let grid = HashGrid::build(&points, 0.1);
        (points, grid, seed)
    }

    /// A query point, partly outside the cloud.
    fn query(seed: &mut u64) -> DVec3 {
        DVec3::new(1.4 * uniform(seed) - 0.2, uniform(seed), uniform(seed))
    }

    /// Check a grid query's `listed` candidates: no point twice, none of the points `near` missed,
    /// every point where the reach passes the whole table; returns how many were listed.
    fn check_candidates(
        listed: impl Iterator<Item = u32>,
        points: &[DVec3],
        near: impl Fn(DVec3) -> bool,
        whole_table: bool,
        what: &str,
    ) -> usize {
        let mut found: Vec<u32> = listed.collect();
        let listed = found.len();
        found.sort_unstable();
        found.dedup();
        assert_eq!(found.len(), listed, "{what}: a point twice");
        let missed = (0..points.len() as u32)
            .filter(|&j| near(points[j as usize]))
            .filter(|j| found.binary_search(j).is_err())
            .count();
        assert_eq!(missed, 0, "{what}");
        if whole_table {
            assert_eq!(
                listed,
                points.len(),
                "{what}: a reach past the table lists every point"
            );
        }
        listed
    }

    #[test]
    fn candidates_near_a_segment_hold_every_point_that_near_once() {
        let (points, grid, mut seed) = cloud(11);
        let mut walked_fewer = false;
        // Reaches below a cell and of several cells, segments of none to many cells (a point, short,
        // long), and one past the whole table (every bucket).
        for (n, radius) in [0.03, 0.1, 0.27, 5.0].into_iter().enumerate() {
            for q in 0..40 {
                let a = query(&mut seed);
                let b = match q % 4 {
                    0 => a,
                    1 => a + 0.05 * (query(&mut seed) - a),
                    _ => query(&mut seed),
                };
                let listed = check_candidates(
                    grid.candidates_near_segment(a, b, radius),
                    &points,
                    |x| distance_to_segment(x, a, b) <= radius,
                    n == 3,
                    &format!("reach {radius}, segment {q}"),
                );
                if n == 1 && q % 4 == 1 {
                    // The walk keeps fewer candidates than a box around the segment's midpoint that
                    // holds it.
                    let box_reach = radius + 0.5 * a.distance(b);
                    walked_fewer |=
                        listed < grid.candidates_within(a.lerp(b, 0.5), box_reach).count();
                }
            }
        }
        assert!(walked_fewer, "the walk dropped no cell of the box");
    }

    #[test]
    fn candidates_within_any_reach_hold_every_point_that_near_once() {
        let (points, grid, mut seed) = cloud(5);
        // Reaches below a cell, of several cells, and past the whole table (every bucket).
        for (n, radius) in [0.03, 0.1, 0.27, 5.0].into_iter().enumerate() {
            for q in 0..40 {
                let p = query(&mut seed);
                check_candidates(
                    grid.candidates_within(p, radius),
                    &points,
                    |x| x.distance(p) < radius,
                    n == 3,
                    &format!("reach {radius}, query {q}"),
                );
            }
        }
    }

    #[test]
    fn appending_phyxels_gives_the_lists_of_a_full_build() {
        let mut seed = 11;
        let mut points: Vec<DVec3> = (0..400)
            .map(|_| {
                DVec3::new(
                    uniform(&mut seed),
                    uniform(&mut seed),
                    0.3 * uniform(&mut seed),
                )
            })
            .collect();
        let mut radii: Vec<f64> = (0..400).map(|_| 0.06 + 0.08 * uniform(&mut seed)).collect();
        let mut hoods = Neighbourhoods::build(&points, &radii);
        // Three rounds of appended phyxels (smaller supports, as resampling makes, and one larger
        // than any before: the grid's cell grows); none appended (the lists unchanged).
        for (count, radius) in [(30, 0.05), (0, 0.0), (5, 0.2), (12, 0.04)] {
            for _ in 0..count {
                points.push(DVec3::new(
                    uniform(&mut seed),
                    uniform(&mut seed),
                    0.3 * uniform(&mut seed),
                ));
                radii.push(radius);
            }
            let appended = hoods.with_appended(&points, &radii);
            let built = Neighbourhoods::build(&points, &radii);
            assert_eq!(appended.start, built.start);
            assert_eq!(appended.neighbour, built.neighbour);
            assert_eq!(appended.owner, built.owner);
            assert_eq!(appended.reverse_start, built.reverse_start);
            assert_eq!(appended.reverse, built.reverse);
            hoods = appended;
        }
        assert_eq!(hoods.len(), 447);
        let appended_edges = (400..447).map(|i| hoods.edges(i).len()).sum::<usize>();
        let reaching = (0..400)
            .flat_map(|i| hoods.edges(i))
            .filter(|&k| hoods.neighbour[k] >= 400)
            .count();
        assert!(
            appended_edges > 0 && reaching > 0,
            "the appended phyxels have neighbours and are seen"
        );
    }

    #[test]
    fn nothing_is_dropped_when_many_phyxels_share_a_cell() {
        // 500 phyxels inside one cell: a fixed-size bucket would overflow.
        let points: Vec<DVec3> = (0..500)
            .map(|i| DVec3::splat(0.01 + 1e-5 * i as f64))
            .collect();
        let hoods = Neighbourhoods::build(&points, &vec![1.0; 500]);
        assert!((0..500).all(|i| hoods.edges(i).len() == 499));
    }
}
