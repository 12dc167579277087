//! Neighbourhoods on a uniform cell grid (seed 002 §5.2 with a dense table instead of a hash: the
//! fluid lives in a box, so the grid of cells of edge h over the box is small and every cell has its
//! own slot — no hash collisions to scan). The points are counting-sorted by cell (count → prefix sum
//! → scatter, as `meshless/neighbours.rs` does for the phyxels), and each query scans the 3×3 cells
//! around it. Neighbour lists are kept in compressed rows (`start`, `index`) whose buffers are reused
//! from step to step: no allocation once they have grown to the fluid's size.

use super::kernel::Vector;

/// Points sorted by the cell of edge `cell` that holds them, over the rectangle [lo, hi].
#[derive(Clone, Debug, Default)]
pub struct CellGrid {
    lo: Vector,
    cell: f64,
    nx: usize,
    ny: usize,
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
        let nx = (((hi.x - lo.x) / cell).ceil() as usize).max(1);
        let ny = (((hi.y - lo.y) / cell).ceil() as usize).max(1);
        Self {
            lo,
            cell,
            nx,
            ny,
            cell_start: vec![0; nx * ny + 1],
            sorted: Vec::new(),
            sorted_x: Vec::new(),
            cell_of: Vec::new(),
        }
    }

    /// The number of cells (the grid's memory is proportional to it).
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }

    fn cell_coords(&self, x: Vector) -> Option<(usize, usize)> {
        let cx = ((x.x - self.lo.x) / self.cell).floor();
        let cy = ((x.y - self.lo.y) / self.cell).floor();
        // NaN fails both comparisons, so a NaN position is outside too.
        if cx >= 0.0 && cy >= 0.0 && cx < self.nx as f64 && cy < self.ny as f64 {
            Some((cx as usize, cy as usize))
        } else {
            None
        }
    }

    /// Sort `points` into the cells; `Err(i)` names the first point outside the grid.
    pub fn build(&mut self, points: &[Vector]) -> Result<(), usize> {
        self.cell_of.clear();
        self.cell_start.iter_mut().for_each(|c| *c = 0);
        for (i, &x) in points.iter().enumerate() {
            let (cx, cy) = self.cell_coords(x).ok_or(i)?;
            let c = cy * self.nx + cx;
            self.cell_of.push(c as u32);
            self.cell_start[c + 1] += 1;
        }
        for c in 0..self.nx * self.ny {
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
        for c in 0..self.nx * self.ny {
            self.cell_start[c] = self.cell_start[c + 1];
        }
        self.cell_start[self.nx * self.ny] = points.len() as u32;
        Ok(())
    }

    /// Calls `f(j)` for every point j in the 3×3 cells around x (a superset of those within `cell`).
    #[inline]
    pub fn for_each_near(&self, x: Vector, mut f: impl FnMut(usize)) {
        self.for_each_near_with_position(x, |j, _| f(j));
    }

    /// Calls `f(j, x_j)` for every point j in the 3×3 cells around x, with its position as built.
    #[inline]
    pub fn for_each_near_with_position(&self, x: Vector, mut f: impl FnMut(usize, Vector)) {
        // Divided, not multiplied by 1/cell: the cell must be the one `build` put an equal point in.
        let cx = Self::floor((x.x - self.lo.x) / self.cell);
        let cy = Self::floor((x.y - self.lo.y) / self.cell);
        let x0 = (cx - 1).max(0);
        let x1 = (cx + 1).min(self.nx as i64 - 1);
        if x0 > x1 {
            return;
        }
        for y in (cy - 1).max(0)..=(cy + 1).min(self.ny as i64 - 1) {
            let row = y as usize * self.nx;
            let a = self.cell_start[row + x0 as usize] as usize;
            let b = self.cell_start[row + x1 as usize + 1] as usize;
            for (&j, &xj) in self.sorted[a..b].iter().zip(&self.sorted_x[a..b]) {
                f(j as usize, xj);
            }
        }
    }

    /// ⌊q⌋ as an integer; a truncation where q ≥ 0 (every query inside the grid), which x86-64's
    /// baseline does without a call to `floor`.
    #[inline(always)]
    fn floor(q: f64) -> i64 {
        if q >= 0.0 {
            q as i64
        } else {
            q.floor() as i64
        }
    }
}

/// For each query point, the indices of the grid's points closer than h, in compressed rows.
#[derive(Clone, Debug, Default)]
pub struct NeighbourLists {
    start: Vec<u32>,
    index: Vec<u32>,
}

impl NeighbourLists {
    /// Neighbours j of each query x_i with |x_i − x_j| < h among `points` (sorted in `grid`, which
    /// keeps their positions as they were when it was built); a query that is itself one of the points
    /// finds itself.
    pub fn build(&mut self, queries: &[Vector], grid: &CellGrid, points: &[Vector], h: f64) {
        debug_assert_eq!(points.len(), grid.sorted.len());
        let h2 = h * h;
        self.start.clear();
        self.index.clear();
        self.start.push(0);
        for &xi in queries {
            grid.for_each_near_with_position(xi, |j, xj| {
                if (xi - xj).length_squared() < h2 {
                    self.index.push(j as u32);
                }
            });
            self.start.push(self.index.len() as u32);
        }
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
