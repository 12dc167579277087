//! What one frame of the 3D view shows: plain data that [`Demo::frame`] fills and phyxel-view's
//! renderer draws.

use crate::demo::{Accelerator, Demo};
use glam::Vec3;
use phyxel::meshless::collision::Collider;
use phyxel::meshless::fracture::cells::CellMesh;
use phyxel::meshless::melting::{AMBIENT_TEMPERATURE, MELTING_POINT};
use phyxel::meshless::plasticity::{norm, plastic_stretch};
use phyxel::meshless::primitive_mesh::vertex_normals;
use phyxel::meshless::simulation::Elasticity;

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
    /// Sphere obstacles (the struck slab's ball among them): centre and radius.
    pub obstacles: Vec<(Vec3, f32)>,
}

/// Floats per surface vertex in [`FrameData::surface_vertices`].
pub const SURFACE_VERTEX_FLOATS: usize = 7;

/// The speed (m/s) at the top of the "speed" colour map.
pub const FULL_SPEED: f64 = 2.0;

impl<A: Accelerator> Demo<A> {
    /// The plastic strain (Frobenius norm for MKN04's ε_plastic, stretch of F_p for the corotated
    /// model) at the top of the "plastic" colour map: the plasticity's c_max, else 0.3.
    pub fn full_plastic_strain(&self) -> f64 {
        self.sim.plasticity.map_or(0.3, |p| p.max_strain.max(1e-3))
    }

    /// What the renderer draws, coloured by `colour_by` ("object", "temperature", "plastic",
    /// "speed"; in the fracture scene also "fragment" — one palette colour per piece, the free
    /// particles one more — and "stress", σ₁/σ_t from 0 to 1).
    pub fn frame_data(&self, colour_by: &str) -> Result<FrameData, String> {
        self.frame(colour_by, true, true)
    }

    /// [`Demo::frame_data`] with only the parts to be drawn: the phyxels and/or the surfaces
    /// (the surface vertices need every phyxel's displacement gradient).
    pub fn frame(
        &self,
        colour_by: &str,
        with_phyxels: bool,
        with_surfaces: bool,
    ) -> Result<FrameData, String> {
        let body = &self.sim.body;
        let values: Vec<f64> = match colour_by {
            "object" => self.object_of().iter().map(|&k| k as f64).collect(),
            "temperature" => body
                .temperature
                .iter()
                .map(|t| (t - AMBIENT_TEMPERATURE) / (MELTING_POINT - AMBIENT_TEMPERATURE))
                .collect(),
            "plastic" => {
                let full = self.full_plastic_strain();
                match self.sim.elasticity {
                    Elasticity::Mkn04 => body
                        .plastic_strain
                        .iter()
                        .map(|e| norm(*e) / full)
                        .collect(),
                    Elasticity::CorotatedLinear => body
                        .plastic_deformation
                        .iter()
                        .map(|f| plastic_stretch(*f) / full)
                        .collect(),
                }
            }
            "speed" => body
                .velocity
                .iter()
                .map(|v| v.length() / FULL_SPEED)
                .collect(),
            "fragment" | "stress" => {
                let Some((pieces, ratios)) = self.fracture_colours() else {
                    return Err(format!(
                        "colouring by {colour_by} needs the fracture scene (notched-bar)"
                    ));
                };
                if colour_by == "stress" {
                    ratios
                } else {
                    // Free particles share one colour past the fragments' (a palette entry of their own).
                    let free = pieces.iter().cloned().fold(0.0, f64::max) + 1.0;
                    pieces
                        .into_iter()
                        .map(|p| if p < 0.0 { free } else { p })
                        .collect()
                }
            }
            other => {
                return Err(format!(
                    "unknown colouring “{other}” (known: object, temperature, plastic, speed, \
                     fragment, stress)"
                ))
            }
        };
        let colouring = if colour_by == "object" || colour_by == "fragment" {
            Colouring::ByObject
        } else {
            Colouring::ByValue
        };
        let phyxels = if with_phyxels {
            body.positions()
                .iter()
                .zip(&values)
                .map(|(p, v)| [p.x as f32, p.y as f32, p.z as f32, *v as f32])
                .collect()
        } else {
            Vec::new()
        };
        let mut surface_vertices = Vec::new();
        let mut surface_indices = Vec::new();
        if let Some(mesh) = self.cell_mesh().filter(|_| with_surfaces) {
            cell_faces(&mesh, &values, &mut surface_vertices, &mut surface_indices);
        }
        let deformed = if with_surfaces {
            self.sim.surface_vertices()
        } else {
            Vec::new()
        };
        for (k, (surface, vertices)) in self.sim.surfaces.iter().zip(deformed).enumerate() {
            let normals = vertex_normals(&vertices, &surface.triangles);
            let vertex_values = match colouring {
                Colouring::ByObject => vec![k as f64; vertices.len()],
                Colouring::ByValue => surface.interpolate(&values),
            };
            for ((p, n), v) in vertices.iter().zip(&normals).zip(&vertex_values) {
                surface_vertices.extend([p.x, p.y, p.z, n.x, n.y, n.z, *v].map(|c| c as f32));
            }
        }
        let obstacles = self
            .sim
            .environment
            .colliders
            .iter()
            .copied()
            .chain(self.ball().map(|b| b.collider()))
            .filter_map(|c| match c {
                Collider::Sphere { center, radius } => Some((center.as_vec3(), radius as f32)),
                _ => None,
            })
            .collect();
        Ok(FrameData {
            phyxels,
            phyxel_radius: 0.5 * self.spacing() as f32,
            surface_vertices,
            surface_indices: if with_surfaces && surface_indices.is_empty() {
                self.triangles.clone()
            } else {
                surface_indices
            },
            colouring,
            obstacles,
        })
    }
}

/// The fracture scene's surface ([`CellMesh`]) as the renderer's vertices and triangles: four
/// vertices per cell face, flat-shaded with the face's normal, carrying its phyxel's colour value.
fn cell_faces(mesh: &CellMesh, values: &[f64], vertices: &mut Vec<f32>, indices: &mut Vec<u32>) {
    vertices.reserve(4 * SURFACE_VERTEX_FLOATS * mesh.quads.len());
    indices.reserve(6 * mesh.quads.len());
    for (k, quad) in mesh.quads.iter().enumerate() {
        let x = quad.corners.map(|c| mesh.corners[c as usize]);
        let n = (x[2] - x[0]).cross(x[3] - x[1]).normalize_or_zero();
        let value = values.get(quad.phyxel as usize).copied().unwrap_or(0.0);
        for p in x {
            vertices.extend([p.x, p.y, p.z, n.x, n.y, n.z, value].map(|c| c as f32));
        }
        let base = 4 * k as u32;
        indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
}
