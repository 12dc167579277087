//! The scenes of the tests and the lesson: a column of fluid in an open box, at rest (the hydrostatic
//! test) or released against an empty stretch of floor (the dam break of Martin & Moyce 1952).

use super::error::FluidError;
use super::fluid::{Fluid, FluidSettings, MAX_FLUID_PARTICLES};
use super::kernel::Vector;

/// Layers of boundary particles in each wall (h = 2Δx reaches two spacings; three is safe).
pub const WALL_LAYERS: usize = 3;

/// A rectangular column of fluid, `column_width` × `column_height`, in the left corner of a box
/// `box_width` × `box_height`, open or closed by a lid (equal widths: the hydrostatic column; a wider
/// box: the dam break).
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub column_width: f64,
    pub column_height: f64,
    pub box_width: f64,
    pub box_height: f64,
    /// Particle spacing Δx.
    pub spacing: f64,
    pub rest_density: f64,
    /// |g| (m/s²), downwards.
    pub gravity: f64,
    /// XSPH's ξ.
    pub xsph: f64,
    /// Whether the box is closed at the top: a dam break's jet up the far wall runs up v²/2g (8 m/s
    /// at the lesson's impact: 3.3 m) and would leave an open box lower than that.
    pub lid: bool,
}

impl Column {
    /// Martin & Moyce's column of width a and height n² a (they ran n² = 1 and 2) in a box `length` a
    /// long, with `per_width` particles across a.
    pub fn martin_moyce(a: f64, n_squared: f64, length: f64, per_width: usize) -> Self {
        Self {
            column_width: a,
            column_height: n_squared * a,
            box_width: length * a,
            box_height: (n_squared + 0.5) * a,
            spacing: a / per_width as f64,
            rest_density: 1000.0,
            gravity: 9.81,
            xsph: 0.01,
            lid: false,
        }
    }

    /// The particle lattice's size across and up, refused beyond [`MAX_FLUID_PARTICLES`].
    pub fn lattice(&self) -> Result<(usize, usize), FluidError> {
        let values = [
            self.column_width,
            self.column_height,
            self.box_width,
            self.box_height,
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
        let nx = (self.column_width / self.spacing).round();
        let ny = (self.column_height / self.spacing).round();
        let count = nx * ny;
        if count > MAX_FLUID_PARTICLES as f64 {
            return Err(FluidError::TooManyParticles {
                what: "fluid",
                count: if count < 1e15 {
                    count as usize
                } else {
                    usize::MAX
                },
                limit: MAX_FLUID_PARTICLES,
            });
        }
        if count < 1.0 {
            return Err(FluidError::BadInput(
                "the column holds no particle at this spacing".into(),
            ));
        }
        Ok((nx as usize, ny as usize))
    }

    /// The fluid: particles at the centres of a Δx lattice filling the column, walls of
    /// [`WALL_LAYERS`] layers.
    pub fn build(&self) -> Result<Fluid, FluidError> {
        let (nx, ny) = self.lattice()?;
        let dx = self.spacing;
        let walls_per_side = (self.box_height / dx).round() * WALL_LAYERS as f64;
        let floor = ((self.box_width / dx).round() + 2.0 * WALL_LAYERS as f64) * WALL_LAYERS as f64;
        let lid = if self.lid { floor } else { 0.0 };
        if 2.0 * walls_per_side + floor + lid > super::boundary::MAX_BOUNDARY_PARTICLES as f64 {
            return Err(FluidError::TooManyParticles {
                what: "boundary",
                count: (2.0 * walls_per_side + floor + lid) as usize,
                limit: super::boundary::MAX_BOUNDARY_PARTICLES,
            });
        }
        let mut x = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                x.push(Vector::new((i as f64 + 0.5) * dx, (j as f64 + 0.5) * dx));
            }
        }
        let walls = box_walls(self.box_width, self.box_height, dx, WALL_LAYERS, self.lid);
        Fluid::new(
            x,
            walls,
            FluidSettings {
                rest_density: self.rest_density,
                spacing: dx,
                gravity: Vector::new(0.0, -self.gravity),
                xsph: self.xsph,
            },
        )
    }
}

/// The walls of a box [0, width] × [0, height], open-topped or with a `lid`: `layers` rows of
/// particles at spacing `spacing` outside each side, below the floor (and above the lid), the first
/// half a spacing from the wall.
pub fn box_walls(width: f64, height: f64, spacing: f64, layers: usize, lid: bool) -> Vec<Vector> {
    let mut points = Vec::new();
    let nx = (width / spacing).round() as i64;
    let ny = (height / spacing).round() as i64;
    let l = layers as i64;
    for k in 0..l {
        let offset = (k as f64 + 0.5) * spacing;
        // Floor, running under the side walls' layers so the corners are filled.
        for i in -l..nx + l {
            points.push(Vector::new((i as f64 + 0.5) * spacing, -offset));
        }
        for j in 0..ny {
            let y = (j as f64 + 0.5) * spacing;
            points.push(Vector::new(-offset, y));
            points.push(Vector::new(width + offset, y));
        }
        // The lid, over the side walls' layers likewise.
        if lid {
            for i in -l..nx + l {
                points.push(Vector::new((i as f64 + 0.5) * spacing, height + offset));
            }
        }
    }
    points
}
