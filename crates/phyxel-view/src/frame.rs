//! What one frame of a 3D view shows: plain data that the solver glue fills and the renderer draws.

use glam::Vec3;

/// How a frame colours what it draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colouring {
    /// The value is an object number: one palette colour per object.
    ByObject = 0,
    /// The value in [0, 1] runs through a blue–yellow colour map.
    ByValue = 1,
}

/// What one frame shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameData {
    /// x, y, z and a colour value per phyxel.
    pub phyxels: Vec<[f32; 4]>,
    pub phyxel_radius: f32,
    /// Interleaved position (3), normal (3), value (1) per vertex.
    pub surface_vertices: Vec<f32>,
    pub surface_indices: Vec<u32>,
    pub colouring: Colouring,
    /// Sphere obstacles: centre and radius.
    pub obstacles: Vec<(Vec3, f32)>,
}

/// Floats per surface vertex in [`FrameData::surface_vertices`].
pub const SURFACE_VERTEX_FLOATS: usize = 7;
