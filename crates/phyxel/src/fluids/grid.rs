//! Neighbourhoods on a uniform cell grid (seed 002 §5.2 with a dense table instead of a hash: the
//! fluid lives in a box, so the grid of cells of edge h — or a little wider, for candidates — over
//! the box is small and every cell has its own slot — no hash collisions to scan). The points are
//! counting-sorted by cell (count → prefix sum → scatter, as `meshless/neighbours.rs` does for the
//! phyxels), and each query scans the 3×3 (3×3×3 in 3D) cells around it, one row of three cells
//! along x at a time. Lists found so with a radius larger than h can serve as candidates for several
//! steps (Verlet's lists: [`NeighbourLists::keep_within`]). Neighbour lists are kept in compressed
//! rows (`start`, `index`) whose buffers are reused from step to step: no allocation once they have
//! grown to the fluid's size.

use super::kernel::Vector;
use super::space::{coordinates, DIM};

/// Points sorted by the cell of edge `cell` that holds them, over the box [lo, hi].
#[derive(Clone, Debug, Default)]
pub struct CellGrid {
    lo: [f64; DIM],
    cell: f64,
    /// Cells along each axis.
    n: [usize; DIM],
    /// Cell index c = Σ_d c_d stride_d (x fastest).
    stride: [usize; DIM],
    /// `cell_start[c] .. cell_start[c + 1]` are the points of cell c in `sorted`.
    cell_start: Vec<u32>,
    sorted: Vec<u32>,
    /// The points' positions in the order of `sorted`.
    sorted_x: Vec<Vector>,
    cell_of: Vec<u32>,
}

impl CellGrid {
    /// An empty grid over [lo, hi] with cells of edge `cell` (the support radius).
    pub fn new(lo: Vector, hi: Vector, cell: f64) -> Self {
        let (lo, hi) = (coordinates(lo), coordinates(hi));
        let n: [usize; DIM] =
            std::array::from_fn(|d| (((hi[d] - lo[d]) / cell).ceil() as usize).max(1));
        let mut stride = [1; DIM];
        for d in 1..DIM {
            stride[d] = stride[d - 1] * n[d - 1];
        }
        Self {
            lo,
            cell,
            n,
            stride,
            cell_start: vec![0; n.iter().product::<usize>() + 1],
            sorted: Vec::new(),
            sorted_x: Vec::new(),
            cell_of: Vec::new(),
        }
    }

    /// The number of cells (the grid's memory is proportional to it).
    pub fn cells(&self) -> usize {
        self.n.iter().product()
    }

    /// The index of the cell that holds x, if it is inside the grid.
    fn cell_index(&self, x: Vector) -> Option<usize> {
        let mut c = 0;
        for (d, x) in coordinates(x).into_iter().enumerate() {
            let cd = ((x - self.lo[d]) / self.cell).floor();
            // NaN fails both comparisons, so a NaN position is outside too.
            if !(cd >= 0.0 && cd < self.n[d] as f64) {
                return None;
            }
            c += cd as usize * self.stride[d];
        }
        Some(c)
    }

    /// Sort `points` into the cells; `Err(i)` names the first point outside the grid.
    pub fn build(&mut self, points: &[Vector]) -> Result<(), usize> {
        self.cell_of.clear();
        self.cell_start.iter_mut().for_each(|c| *c = 0);
        for (i, &x) in points.iter().enumerate() {
            let c = self.cell_index(x).ok_or(i)?;
            self.cell_of.push(c as u32);
            self.cell_start[c + 1] += 1;
        }
        let cells = self.cells();
        for c in 0..cells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.sorted.clear();
        self.sorted.resize(points.len(), 0);
        // Scatter from the back so each cell keeps its points in index order; each cell_start[c + 1]
        // moves from the end of cell c to its start.
        for i in (0..points.len()).rev() {
            let c = self.cell_of[i] as usize;
            self.cell_start[c + 1] -= 1;
            self.sorted[self.cell_start[c + 1] as usize] = i as u32;
        }
        self.sorted_x.clear();
        self.sorted_x
            .extend(self.sorted.iter().map(|&i| points[i as usize]));
        // Each cell_start[c + 1] now holds the start of cell c: shift back by one.
        for c in 0..cells {
            self.cell_start[c] = self.cell_start[c + 1];
        }
        self.cell_start[cells] = points.len() as u32;
        Ok(())
    }

    /// Calls `f(j)` for every point j in the 3×3 cells around x (a superset of those within `cell`).
    #[inline]
    pub fn for_each_near(&self, x: Vector, mut f: impl FnMut(usize)) {
        self.for_each_row(x, |rows| {
            self.sorted[rows].iter().for_each(|&j| f(j as usize))
        });
    }

    /// Appends to `out` the points j in the 3×3 cells around x with |x − x_j|² < `h2` (positions as
    /// built), in the order [`CellGrid::for_each_near`] visits them: the list that testing each
    /// candidate and pushing the close ones gives, without a branch per candidate. In 3D about one
    /// candidate in seven is kept, in no order a branch predictor learns (a test and push took 3.6 ns
    /// a candidate on the 3D dam break, the test alone 1.6), so the tests of up to 64 candidates
    /// are first packed into the bits of a mask and the kept ones then taken from its set bits.
    #[inline]
    pub fn push_within(&self, x: Vector, h2: f64, out: &mut Vec<u32>) {
        self.for_each_row(x, |rows| {
            let candidates = self.sorted[rows.clone()]
                .chunks(64)
                .zip(self.sorted_x[rows].chunks(64));
            for (ids, xs) in candidates {
                let mut mask = 0u64;
                for (k, &xj) in xs.iter().enumerate() {
                    mask |= u64::from((x - xj).length_squared() < h2) << k;
                }
                push_set_bits(ids, mask, out);
            }
        });
    }

    /// Calls `f(a..b)` for each row of cells along x among the 3×3 cells around x: `sorted[a..b]`
    /// are the row's points, x fastest, the rows in the order of the other axes (an odometer).
    #[inline(always)]
    fn for_each_row(&self, x: Vector, mut f: impl FnMut(std::ops::Range<usize>)) {
        // Divided, not multiplied by 1/cell: the cell must be the one `build` put an equal point in.
        let x = coordinates(x);
        let mut first = [0usize; DIM];
        let mut last = [0usize; DIM];
        for d in 0..DIM {
            let c = Self::floor((x[d] - self.lo[d]) / self.cell);
            let (a, b) = ((c - 1).max(0), (c + 1).min(self.n[d] as i64 - 1));
            if a > b {
                return;
            }
            (first[d], last[d]) = (a as usize, b as usize);
        }
        let mut at = first;
        loop {
            let row: usize = (1..DIM).map(|d| at[d] * self.stride[d]).sum();
            let a = self.cell_start[row + first[0]] as usize;
            let b = self.cell_start[row + last[0] + 1] as usize;
            f(a..b);
            let mut d = 1;
            loop {
                if d == DIM {
                    return;
                }
                if at[d] < last[d] {
                    at[d] += 1;
                    break;
                }
                at[d] = first[d];
                d += 1;
            }
        }
    }

    #[inline(always)]
    fn floor(q: f64) -> i64 {
        if q >= 0.0 {
            q as i64
        } else {
            q.floor() as i64
        }
    }
}

/// Appends `ids[k]` for every set bit k of `mask`, in order: the kept candidates of up to 64 tests
/// packed into a mask ([`CellGrid::push_within`], [`NeighbourLists::keep_within`]).
#[inline(always)]
fn push_set_bits(ids: &[u32], mut mask: u64, out: &mut Vec<u32>) {
    while mask != 0 {
        out.push(ids[mask.trailing_zeros() as usize]);
        mask &= mask - 1;
    }
}

/// Queries (particles) per piece of a parallel pass: fixed, so that the pieces, and every sum
/// inside one, do not depend on the thread count.
pub const PIECE: usize = 256;

/// For each query point, the indices of the grid's points closer than h, in compressed rows.
#[derive(Clone, Debug, Default)]
pub struct NeighbourLists {
    start: Vec<u32>,
    index: Vec<u32>,
}

impl NeighbourLists {
    /// Neighbours j of each query x_i with |x_i − x_j| < h among `points` (sorted in `grid`, which
    /// keeps their positions as they were when it was built; its cells at least h across); a query
    /// that is itself one of the points finds itself.
    pub fn build(&mut self, queries: &[Vector], grid: &CellGrid, points: &[Vector], h: f64) {
        debug_assert_eq!(points.len(), grid.sorted.len());
        debug_assert!(
            grid.cell >= h,
            "the 3×3 cells around a query hold its neighbours"
        );
        let h2 = h * h;
        self.fill(queries.len(), |i, index| {
            grid.push_within(queries[i], h2, index)
        });
    }

    /// The points j of `candidates`' lists (found by [`NeighbourLists::build`] with a larger radius,
    /// for the same queries and points, when they were elsewhere) with |x_i − x_j| < h now, in the
    /// candidates' order: the neighbour lists, as long as no query and no point has moved by more
    /// than half the difference of the radii since (Verlet's lists, Verlet 1967; the test
    /// `candidates_within_the_skin_keep_exactly_the_pairs_closer_than_h`). Up to 64 candidates'
    /// tests are packed into the bits of a mask, as in [`CellGrid::push_within`].
    pub fn keep_within(
        &mut self,
        candidates: &NeighbourLists,
        queries: &[Vector],
        points: &[Vector],
        h: f64,
    ) {
        debug_assert_eq!(candidates.start.len(), queries.len() + 1);
        let h2 = h * h;
        self.fill(queries.len(), |i, index| {
            let xi = queries[i];
            for ids in candidates.of(i).chunks(64) {
                let mut mask = 0u64;
                for (k, &j) in ids.iter().enumerate() {
                    mask |= u64::from((xi - points[j as usize]).length_squared() < h2) << k;
                }
                push_set_bits(ids, mask, index);
            }
        });
    }

    /// The lists of `queries` queries, `near(i, index)` appending query i's to `index`.
    fn fill(&mut self, queries: usize, near: impl Fn(usize, &mut Vec<u32>) + Sync + Send) {
        self.start.clear();
        self.index.clear();
        self.start.push(0);
        if crate::parallel::thread_count() == 1 || queries <= PIECE {
            for i in 0..queries {
                near(i, &mut self.index);
                self.start.push(self.index.len() as u32);
            }
            return;
        }
        // In parallel: each piece of PIECE queries lists its rows, then the pieces are joined in
        // order (the same rows as one pass over the queries, whatever the thread count).
        let pieces = crate::parallel::map_indices(queries.div_ceil(PIECE), |p| {
            let range = p * PIECE..((p + 1) * PIECE).min(queries);
            let mut ends = Vec::with_capacity(range.len());
            let mut index = Vec::new();
            for i in range {
                near(i, &mut index);
                ends.push(index.len() as u32);
            }
            (ends, index)
        });
        for (ends, index) in pieces {
            let base = self.index.len() as u32;
            self.start.extend(ends.iter().map(|&end| base + end));
            self.index.extend_from_slice(&index);
        }
    }

    /// Cut `per_pair` (one element per pair, in the lists' order) where each piece of [`PIECE`]
    /// queries begins: the pairs of queries p·PIECE … (p+1)·PIECE − 1 are the p-th slice.
    pub fn split_pairs<'a, T>(&self, mut per_pair: &'a mut [T]) -> Vec<&'a mut [T]> {
        let queries = self.start.len().saturating_sub(1);
        let mut pieces = Vec::with_capacity(queries.div_ceil(PIECE));
        let mut at = 0;
        for first in (0..queries).step_by(PIECE) {
            let end = self.start[(first + PIECE).min(queries)] as usize;
            let (piece, rest) = std::mem::take(&mut per_pair).split_at_mut(end - at);
            pieces.push(piece);
            per_pair = rest;
            at = end;
        }
        pieces
    }

    /// The neighbours of query i.
    #[inline]
    pub fn of(&self, i: usize) -> &[u32] {
        &self.index[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// The positions of query i's neighbours in the flat list (to index per-pair data kept alongside).
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }

    /// The number of (query, neighbour) pairs.
    pub fn pairs(&self) -> usize {
        self.index.len()
    }
}

/// The points closer than h to x, by brute force, in index order: the reference the neighbour-list
/// tests (2D and 3D) hold the grid's lists to.
#[cfg(test)]
pub fn closer_than(points: &[Vector], x: Vector, h: f64) -> Vec<u32> {
    (0..points.len() as u32)
        .filter(|&j| (x - points[j as usize]).length() < h)
        .collect()
}
