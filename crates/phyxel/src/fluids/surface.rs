//! The free surface by marching squares (seed 002 §6.5: an iso-line of a field sampled from the
//! particles, here in 2D). The field is the SPH estimate of the fluid's volume fraction,
//!
//! φ(x) = Σ_j (m/ρ_j) W(x − x_j),
//!
//! 1 inside the fluid and 0 away from it; the surface is φ = ½. It is sampled on the nodes of a grid
//! (scattered from each particle to the nodes within h), and each grid cell contributes the segments
//! where φ crosses ½ along its edges, the crossings placed by linear interpolation; a saddle cell (two
//! opposite corners inside) is split by the value at its centre, the corners' mean.

use super::fluid::Fluid;
use super::kernel::Vector;

/// The iso-value of the surface.
pub const ISO: f64 = 0.5;

/// A grid over a rectangle, its sampled field and the surface's segments, reused frame to frame.
#[derive(Clone, Debug, Default)]
pub struct Surface {
    lo: Vector,
    cell: f64,
    nx: usize,
    ny: usize,
    /// φ at node (i, j), row-major, (nx + 1) × (ny + 1).
    pub field: Vec<f64>,
    /// The surface as segments (a, b).
    pub segments: Vec<(Vector, Vector)>,
}

impl Surface {
    /// A grid over [lo, hi] with square cells of edge `cell` (at most 1 000 000 nodes).
    pub fn new(lo: Vector, hi: Vector, cell: f64) -> Self {
        let nx = (((hi.x - lo.x) / cell).ceil().max(1.0) as usize).min(1000);
        let ny = (((hi.y - lo.y) / cell).ceil().max(1.0) as usize).min(1000);
        Self {
            lo,
            cell,
            nx,
            ny,
            field: vec![0.0; (nx + 1) * (ny + 1)],
            segments: Vec::new(),
        }
    }

    fn node(&self, i: usize, j: usize) -> Vector {
        self.lo + Vector::new(i as f64, j as f64) * self.cell
    }

    /// Sample φ from the fluid and extract the segments.
    pub fn extract(&mut self, fluid: &Fluid) {
        self.field.iter_mut().for_each(|f| *f = 0.0);
        let h = fluid.kernel.h;
        let reach = (h / self.cell).ceil() as i64;
        let row = self.nx + 1;
        for (k, &x) in fluid.x.iter().enumerate() {
            let volume = fluid.mass / fluid.density[k];
            let ci = ((x.x - self.lo.x) / self.cell).floor() as i64;
            let cj = ((x.y - self.lo.y) / self.cell).floor() as i64;
            for j in (cj - reach + 1).max(0)..=(cj + reach).min(self.ny as i64) {
                for i in (ci - reach + 1).max(0)..=(ci + reach).min(self.nx as i64) {
                    let node = self.node(i as usize, j as usize);
                    self.field[j as usize * row + i as usize] +=
                        volume * fluid.kernel.w((node - x).length());
                }
            }
        }
        self.segments.clear();
        for j in 0..self.ny {
            for i in 0..self.nx {
                self.march_cell(i, j);
            }
        }
    }

    /// The segments of cell (i, j): corners 0 (i, j), 1 (i+1, j), 2 (i+1, j+1), 3 (i, j+1).
    fn march_cell(&mut self, i: usize, j: usize) {
        let row = self.nx + 1;
        let value = [
            self.field[j * row + i],
            self.field[j * row + i + 1],
            self.field[(j + 1) * row + i + 1],
            self.field[(j + 1) * row + i],
        ];
        let corner = [
            self.node(i, j),
            self.node(i + 1, j),
            self.node(i + 1, j + 1),
            self.node(i, j + 1),
        ];
        let inside = value.map(|v| v >= ISO);
        let case = inside
            .iter()
            .enumerate()
            .fold(0, |c, (k, &b)| c | ((b as usize) << k));
        if case == 0 || case == 15 {
            return;
        }
        // The crossing on edge e (from corner e to corner e + 1).
        let crossing = |e: usize| {
            let (a, b) = (e, (e + 1) % 4);
            let t = ((ISO - value[a]) / (value[b] - value[a])).clamp(0.0, 1.0);
            corner[a] + t * (corner[b] - corner[a])
        };
        // Edges crossed, paired into segments.
        let (mut crossed, mut count) = ([0; 4], 0);
        for e in 0..4 {
            if inside[e] != inside[(e + 1) % 4] {
                crossed[count] = e;
                count += 1;
            }
        }
        if count == 2 {
            self.segments
                .push((crossing(crossed[0]), crossing(crossed[1])));
        } else {
            // A saddle: corners 0 and 2 on one side, 1 and 3 on the other.
            let centre_inside = value.iter().sum::<f64>() / 4.0 >= ISO;
            if centre_inside == inside[0] {
                // Corners 0 and 2 are joined through the centre: cut off corners 1 and 3.
                self.segments.push((crossing(0), crossing(1)));
                self.segments.push((crossing(2), crossing(3)));
            } else {
                self.segments.push((crossing(3), crossing(0)));
                self.segments.push((crossing(1), crossing(2)));
            }
        }
    }
}
