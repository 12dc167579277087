//! The 3D scenes: a block of fluid in a corner of a box of wall particles (y up), at rest (the
//! hydrostatic column, the block filling the box's floor) or released along a channel (the dam break:
//! Martin & Moyce's column, extruded through the channel's depth).

use super::fluid::{Fluid, FluidSettings, Limits};
use super::kernel::Vector;
use crate::fluids::error::FluidError;

/// Layers of boundary particles in each wall (h = 2Δx reaches two spacings; three is safe).
pub const WALL_LAYERS: usize = 3;

/// A block of fluid `column_width` × `column_height` × `depth` in the corner x = z = 0 of a box
/// `box_width` × `box_height` × `depth` (the block spans the box's depth: a channel), open or closed
/// by a lid.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub column_width: f64,
    pub column_height: f64,
    pub box_width: f64,
    pub box_height: f64,
    /// The channel's depth along z, the block's and the box's.
    pub depth: f64,
    /// Particle spacing Δx.
    pub spacing: f64,
    pub rest_density: f64,
    /// |g| (m/s²), along −y.
    pub gravity: f64,
    /// XSPH's ξ.
    pub xsph: f64,
    pub lid: bool,
}

impl Column {
    /// Martin & Moyce's column of width a and height n² a in a channel `length` a long and `depth` a
    /// deep, with `per_width` particles across a.
    pub fn martin_moyce(a: f64, n_squared: f64, length: f64, depth: f64, per_width: usize) -> Self {
        Self {
            column_width: a,
            column_height: n_squared * a,
            box_width: length * a,
            box_height: (n_squared + 0.5) * a,
            depth: depth * a,
            spacing: a / per_width as f64,
            rest_density: 1000.0,
            gravity: 9.81,
            xsph: 0.01,
            lid: false,
        }
    }

    /// The lattice's size along x, y and z, refused beyond [`super::fluid::MAX_FLUID_PARTICLES`].
    pub fn lattice(&self) -> Result<[usize; 3], FluidError> {
        self.lattice_within(&Limits::CPU)
    }

    /// [`Column::lattice`], refused beyond `limits.fluid` particles instead.
    pub fn lattice_within(&self, limits: &Limits) -> Result<[usize; 3], FluidError> {
        let values = [
            self.column_width,
            self.column_height,
            self.box_width,
            self.box_height,
            self.depth,
            self.spacing,
        ];
        if values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(FluidError::BadInput(
                "the column, the box and the spacing must have positive sizes".into(),
            ));
        }
        if self.column_width > self.box_width + 1e-9 || self.column_height > self.box_height + 1e-9
        {
            return Err(FluidError::BadInput(
                "the column must fit in the box".into(),
            ));
        }
        let n =
            [self.column_width, self.column_height, self.depth].map(|l| (l / self.spacing).round());
        let count = n[0] * n[1] * n[2];
        if count > limits.fluid as f64 {
            return Err(FluidError::TooManyParticles {
                what: "fluid",
                count: if count < 1e15 {
                    count as usize
                } else {
                    usize::MAX
                },
                limit: limits.fluid,
            });
        }
        if count < 1.0 {
            return Err(FluidError::BadInput(
                "the column holds no particle at this spacing".into(),
            ));
        }
        Ok(n.map(|n| n as usize))
    }

    /// The fluid: particles at the centres of a Δx lattice filling the block, walls of
    /// [`WALL_LAYERS`] layers, within the CPU's caps ([`Limits::CPU`]).
    pub fn build(&self) -> Result<Fluid, FluidError> {
        self.build_within(Limits::CPU)
    }

    /// [`Column::build`] within `limits` ([`Fluid::with_limits`]): a fluid for a stepper other than
    /// the CPU's (the GPU's), whose neighbours and densities the CPU has not computed.
    pub fn build_within(&self, limits: Limits) -> Result<Fluid, FluidError> {
        let [nx, ny, nz] = self.lattice_within(&limits)?;
        let dx = self.spacing;
        let walls = box_walls_within(
            [self.box_width, self.box_height, self.depth],
            dx,
            WALL_LAYERS,
            self.lid,
            limits.boundary,
        )?;
        let mut x = Vec::with_capacity(nx * ny * nz);
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    x.push((Vector::new(i as f64, j as f64, k as f64) + 0.5) * dx);
                }
            }
        }
        Fluid::with_limits(
            x,
            walls,
            FluidSettings {
                rest_density: self.rest_density,
                spacing: dx,
                gravity: Vector::new(0.0, -self.gravity, 0.0),
                xsph: self.xsph,
            },
            limits,
        )
    }
}

/// The walls of the box [0, w] × [0, h] × [0, d] (`size` = [w, h, d]), open-topped or with a `lid`:
/// `layers` sheets of particles at spacing `spacing` outside each side, below the floor (and above the
/// lid), the first half a spacing from the wall. The floor and lid run under the side walls' layers,
/// and the walls x = const run through the z walls' layers, so edges and corners are filled. The
/// count is checked against [`super::boundary::MAX_BOUNDARY_PARTICLES`] before any is made.
pub fn box_walls(
    size: [f64; 3],
    spacing: f64,
    layers: usize,
    lid: bool,
) -> Result<Vec<Vector>, FluidError> {
    box_walls_within(
        size,
        spacing,
        layers,
        lid,
        super::boundary::MAX_BOUNDARY_PARTICLES,
    )
}

/// [`box_walls`] with at most `limit` particles instead of the CPU's cap.
pub fn box_walls_within(
    size: [f64; 3],
    spacing: f64,
    layers: usize,
    lid: bool,
    limit: usize,
) -> Result<Vec<Vector>, FluidError> {
    let [nx, ny, nz] = size.map(|s| (s / spacing).round() as i64);
    let l = layers as i64;
    let sheet = (nx + 2 * l) * (nz + 2 * l);
    let count = l * (sheet * (1 + i64::from(lid)) + 2 * ny * (nz + 2 * l) + 2 * ny * nx);
    if count as f64 > limit as f64 {
        return Err(FluidError::TooManyParticles {
            what: "boundary",
            count: count as usize,
            limit,
        });
    }
    let at = |i: i64, j: i64, k: i64| (Vector::new(i as f64, j as f64, k as f64) + 0.5) * spacing;
    let mut points = Vec::with_capacity(count as usize);
    for layer in 0..l {
        // Floor (and lid): the cells j = −1 − layer (and ny + layer).
        for k in -l..nz + l {
            for i in -l..nx + l {
                points.push(at(i, -1 - layer, k));
                if lid {
                    points.push(at(i, ny + layer, k));
                }
            }
        }
        for j in 0..ny {
            // The walls x = 0 and x = w, through the z walls' layers.
            for k in -l..nz + l {
                points.push(at(-1 - layer, j, k));
                points.push(at(nx + layer, j, k));
            }
            // The walls z = 0 and z = d.
            for i in 0..nx {
                points.push(at(i, j, -1 - layer));
                points.push(at(i, j, nz + layer));
            }
        }
    }
    debug_assert_eq!(points.len() as i64, count);
    Ok(points)
}
