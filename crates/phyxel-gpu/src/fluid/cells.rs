//! The 3D fluid's neighbour grid on the device (`shaders/fluid_cells.wgsl`): a uniform grid of cells
//! of edge h over the fluid's domain, the CPU's `CellGrid` with the same bounds rule as `Fluid::new`
//! (the walls' and the particles' box padded by 2h, and three times its height again above it for
//! splashes). The fluid's particles are counting-sorted into it every step on the device — count,
//! prefix sum, scatter — and the static wall particles once, here on the host. Cell coordinates are
//! taken in single precision the way the shaders take them, so a wall particle sits in the cell a
//! query looks for it in.

use super::buffers::{binding, Buffers};
use crate::context::GpuError;
use crate::passes::Pass;
use crate::prefix_sum::prefix_sum;
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};
use glam::DVec3;
use phyxel::fluids3d::boundary::bounds;
use phyxel::fluids3d::fluid::SUPPORT_RATIO;
use phyxel::fluids3d::Fluid;

/// The grid's lower corner and its cells along x, y and z.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub lo: [f32; 3],
    pub cells: [u32; 3],
    /// The cells' edge h in single precision, as the shaders form it (SUPPORT_RATIO Δx).
    edge: f32,
}

impl Grid {
    /// The grid over `fluid`'s particles and walls as they are now (`Fluid::new`'s rule), refused
    /// beyond the cells the fluid was built within (`Fluid::limits`: the CPU's 4 000 000, or the
    /// device's for a fluid built for it, [`super::GpuFluid::limits`]).
    pub fn covering(fluid: &Fluid) -> Result<Self, GpuError> {
        let h = fluid.kernel.h;
        let (mut lo, mut hi) = bounds(&fluid.x);
        if !fluid.boundary.x.is_empty() {
            let (blo, bhi) = bounds(&fluid.boundary.x);
            lo = lo.min(blo);
            hi = hi.max(bhi);
        }
        let pad = DVec3::splat(2.0 * h);
        let above = DVec3::Y * (3.0 * (hi.y - lo.y));
        let (lo, hi) = (lo - pad, hi + pad + above);
        let n = ((hi - lo) / h).ceil().max(DVec3::ONE);
        let total = n.x * n.y * n.z;
        let most = fluid.limits().cells;
        if total.is_nan() || total > most as f64 || total > f64::from(u32::MAX) {
            return Err(GpuError(format!(
                "the fluid's domain is {total} cells of h across: too large for the GPU neighbour grid \
                 (at most {most})"
            )));
        }
        Ok(Self {
            lo: [lo.x as f32, lo.y as f32, lo.z as f32],
            cells: [n.x as u32, n.y as u32, n.z as u32],
            edge: SUPPORT_RATIO as f32 * fluid.spacing() as f32,
        })
    }

    /// Cells in all.
    pub fn total(&self) -> u32 {
        self.cells.iter().product()
    }

    /// The cell holding `p`, computed as count_cells computes it; None outside the grid.
    pub fn cell_of(&self, p: DVec3) -> Option<u32> {
        let p = [p.x as f32, p.y as f32, p.z as f32];
        let mut c = [0u32; 3];
        for d in 0..3 {
            let q = ((p[d] - self.lo[d]) / self.edge).floor();
            if !(q >= 0.0 && q < self.cells[d] as f32) {
                return None;
            }
            c[d] = q as u32;
        }
        Some((c[2] * self.cells[1] + c[1]) * self.cells[0] + c[0])
    }

    /// The wall particles sorted by cell, each as (x_b, V_b), and each cell's end in that order (the
    /// layout `scatter_cells` leaves the fluid's in).
    pub fn sort_walls(
        &self,
        x: &[DVec3],
        volume: &[f64],
    ) -> Result<(Vec<[f32; 4]>, Vec<u32>), GpuError> {
        let cell: Vec<u32> = x
            .iter()
            .enumerate()
            .map(|(b, &p)| {
                self.cell_of(p).ok_or_else(|| {
                    GpuError(format!("wall particle {b} is outside the fluid's grid"))
                })
            })
            .collect::<Result<_, _>>()?;
        let mut end = vec![0u32; self.total() as usize];
        for &c in &cell {
            end[c as usize] += 1;
        }
        let mut sum = 0;
        for e in end.iter_mut() {
            sum += *e;
            *e = sum;
        }
        // Scatter from the back, each cell's end moving to its start, then shift back by one cell's
        // count: the walls keep their index order within a cell.
        let mut sorted = vec![[0.0f32; 4]; x.len()];
        let mut fill = end.clone();
        for b in (0..x.len()).rev() {
            let c = cell[b] as usize;
            fill[c] -= 1;
            let p = x[b];
            sorted[fill[c] as usize] = [p.x as f32, p.y as f32, p.z as f32, volume[b] as f32];
        }
        Ok((sorted, end))
    }
}

/// `Fluid::find_neighbours` on the device: clear_cells, count_cells, the prefix sum of the counts,
/// scatter_cells, sort_cells (each cell in index order, as the CPU keeps it: the sums over neighbours
/// are then the same from run to run).
pub fn search_passes(
    device: &wgpu::Device,
    buffers: &Buffers,
    particles: u32,
    cells: u32,
) -> Vec<Pass> {
    use binding::*;
    let pass = |entry, bindings: &[u32], items| {
        Pass::whole(
            device,
            &[source::FLUID_CELLS],
            entry,
            &buffers.bind(bindings),
            workgroups(items, WORKGROUP_SIZE),
        )
    };
    let mut passes = vec![
        pass("clear_cells", &[PARAMS, CELL_END], cells),
        pass(
            "count_cells",
            &[PARAMS, X, SEARCHED, CELL_END, STATUS, CELL_OF],
            particles,
        ),
    ];
    passes.extend(prefix_sum(device, &buffers.cell_end, cells));
    passes.push(pass(
        "scatter_cells",
        &[PARAMS, SEARCHED, CELL_END, SORTED, CELL_OF],
        particles,
    ));
    passes.push(pass("sort_cells", &[PARAMS, CELL_END, SORTED], cells));
    passes
}
