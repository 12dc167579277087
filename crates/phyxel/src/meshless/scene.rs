//! Scene descriptions: which objects, how finely sampled, of what material, in which surroundings.
//! One description builds the same simulation for every backend and every page.

use super::body::{Body, SupportRadius};
use super::collision::Collider;
use super::contact::SurfaceContact;
use super::inside::{sample_mesh, IndexedMesh};
use super::material::Material;
use super::mesh::{bunny, TriangleMesh};
use super::quadrature::points::Region;
use super::quadrature::QuadratureSettings;
use super::sampling::{sample, Lattice, Shape};
use super::simulation::{Environment, Simulation};
use super::surface::EmbeddedSurface;
use glam::DVec3;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The benchmark scene every backend is measured on (`phyxel-bench`, the site's bench page): an
/// n × n × n jelly cube on a cubic lattice of spacing 0.05 m, support radius 1.9 spacings, its lowest
/// layer 0.1 m above the ground, in the default environment.
pub fn benchmark_cube(n: usize) -> Simulation {
    let spacing = 0.05;
    let edge = spacing * (n.max(1) - 1) as f64;
    let shape = Shape::Box {
        min: DVec3::new(0.0, 0.1, 0.0),
        max: DVec3::new(edge, 0.1 + edge, edge),
    };
    let body = Body::new(
        sample(&shape, spacing, Lattice::Cubic),
        spacing.powi(3),
        spacing,
        Material::JELLY,
        SupportRadius::SpacingMultiple { factor: 1.9 },
    );
    Simulation::new(body, Environment::default())
}

/// The objects of a scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objects {
    Cube,
    Sphere,
    Torus,
    /// The shipped bunny mesh (sampled by winding number, drawn as its own surface).
    Bunny,
    /// A cube, a sphere and a torus side by side.
    Several,
    /// A ball dropped onto a cube: two objects that touch through their surfaces
    /// ([`super::contact`]).
    Collide,
}

impl Objects {
    pub const ALL: [Objects; 6] = [
        Objects::Cube,
        Objects::Sphere,
        Objects::Torus,
        Objects::Bunny,
        Objects::Several,
        Objects::Collide,
    ];

    /// The name used in URLs and scene files.
    pub fn id(self) -> &'static str {
        match self {
            Objects::Cube => "cube",
            Objects::Sphere => "sphere",
            Objects::Torus => "torus",
            Objects::Bunny => "bunny",
            Objects::Several => "several",
            Objects::Collide => "collide",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.id() == id)
    }
}

/// Everything needed to build a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneDescription {
    pub objects: Objects,
    /// Phyxels across [`OBJECT_SIZE`]: the lattice spacing is OBJECT_SIZE / resolution, and each
    /// phyxel sits at the centre of its lattice cell (so the cells tile the cube exactly).
    pub resolution: u32,
    pub lattice: Lattice,
    pub material: Material,
    /// h = factor × spacing (2.2 gives ≈ 30 neighbours on a cubic lattice).
    pub support_factor: f64,
    /// Height of the objects' lowest point above the ground (m).
    pub drop_height: f64,
    /// A ball lying on the ground that the objects fall onto.
    pub obstacle: bool,
}

/// The edge of the cube (m); the other objects are about as large.
pub const OBJECT_SIZE: f64 = 0.4;

/// The fewest and the most phyxels across [`OBJECT_SIZE`] a scene is built with.
pub const MIN_RESOLUTION: u32 = 2;
pub const MAX_RESOLUTION: u32 = 200;

/// The sphere obstacle of [`SceneDescription::obstacle`]: centre and radius.
pub const OBSTACLE: (DVec3, f64) = (DVec3::new(0.12, 0.0, 0.1), 0.2);

impl Default for SceneDescription {
    fn default() -> Self {
        Self {
            objects: Objects::Cube,
            resolution: 10,
            lattice: Lattice::Cubic,
            material: Material::JELLY,
            support_factor: 2.2,
            drop_height: 0.3,
            obstacle: false,
        }
    }
}

/// A scene that cannot be built, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError(pub String);

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SceneError {}

/// A built scene: the simulation, and which phyxels belong to which object.
#[derive(Clone, Debug)]
pub struct Scene {
    pub simulation: Simulation,
    /// Object k owns phyxels `object_start[k]..object_start[k + 1]` (and surface k).
    pub object_start: Vec<usize>,
}

impl Scene {
    /// The object each phyxel belongs to.
    pub fn object_of_phyxels(&self) -> Vec<u32> {
        self.object_start
            .windows(2)
            .enumerate()
            .flat_map(|(k, w)| std::iter::repeat_n(k as u32, w[1] - w[0]))
            .collect()
    }
}

/// One solid of a scene: its interior and its surface.
enum Solid {
    Shape(Shape),
    Mesh(TriangleMesh),
}

/// A solid moved up by `lift` (where the scene puts it above the ground), as a region to integrate:
/// a primitive exactly, a mesh by its ray-counted winding number.
struct Lifted {
    region: LiftedRegion,
    lift: DVec3,
}

enum LiftedRegion {
    Shape(Shape),
    Mesh(IndexedMesh),
}

impl Lifted {
    fn new(solid: Solid, lift: DVec3) -> Self {
        let region = match solid {
            Solid::Shape(shape) => LiftedRegion::Shape(shape),
            Solid::Mesh(mesh) => LiftedRegion::Mesh(IndexedMesh::new(mesh)),
        };
        Self { region, lift }
    }
}

impl Region for Lifted {
    fn contains(&self, p: DVec3) -> bool {
        let p = p - self.lift;
        match &self.region {
            LiftedRegion::Shape(shape) => shape.contains(p),
            LiftedRegion::Mesh(mesh) => mesh.contains(p),
        }
    }

    fn bounds(&self) -> (DVec3, DVec3) {
        let (lo, hi) = match &self.region {
            LiftedRegion::Shape(shape) => shape.bounds(),
            LiftedRegion::Mesh(mesh) => mesh.mesh().bounds(),
        };
        (lo + self.lift, hi + self.lift)
    }
}

impl SceneDescription {
    /// The lattice spacing (m).
    pub fn spacing(&self) -> f64 {
        OBJECT_SIZE / self.resolution.max(1) as f64
    }

    /// The phyxels the objects would get, from their volumes (the mesh's by the divergence theorem)
    /// over the lattice's cell volume: known before any sampling, within a few per cent of the count.
    pub fn estimated_phyxels(&self) -> f64 {
        estimated_phyxels(&self.solids(), self.lattice.cell_volume(self.spacing()))
    }

    fn solids(&self) -> Vec<Solid> {
        let s = OBJECT_SIZE;
        let cube = |x: f64, edge: f64| {
            Solid::Shape(Shape::Box {
                min: DVec3::new(x - 0.5 * edge, 0.0, -0.5 * edge),
                max: DVec3::new(x + 0.5 * edge, edge, 0.5 * edge),
            })
        };
        let sphere = |x: f64, radius: f64| {
            Solid::Shape(Shape::Sphere {
                center: DVec3::new(x, radius, 0.0),
                radius,
            })
        };
        let torus = |x: f64, ring: f64, tube: f64| {
            Solid::Shape(Shape::Torus {
                center: DVec3::new(x, tube, 0.0),
                ring,
                tube,
            })
        };
        match self.objects {
            Objects::Cube => vec![cube(0.0, s)],
            Objects::Sphere => vec![sphere(0.0, 0.5 * s)],
            Objects::Torus => vec![torus(0.0, 0.55 * s, 0.2 * s)],
            Objects::Bunny => {
                // The shipped mesh is ≈ 0.7 m tall: scale it to the cube's size, feet at y = 0.
                let mut mesh = bunny();
                let (lo, hi) = mesh.bounds();
                let scale = 1.1 * s / (hi - lo).max_element();
                let centre = 0.5 * (lo + hi);
                for v in &mut mesh.vertices {
                    *v = scale * (*v - DVec3::new(centre.x, lo.y, centre.z));
                }
                vec![Solid::Mesh(mesh)]
            }
            Objects::Several => vec![
                cube(-1.7 * s, 0.8 * s),
                sphere(-0.3 * s, 0.45 * s),
                torus(1.5 * s, 0.5 * s, 0.18 * s),
            ],
            Objects::Collide => {
                // A cube 0.8 s on the ground's side, a ball of radius 0.4 s half an object above it,
                // a little off its centre (measured: it bounces, lands off-centre and rolls off).
                let (edge, radius, gap) = (0.8 * s, 0.4 * s, 0.5 * s);
                vec![
                    cube(0.0, edge),
                    Solid::Shape(Shape::Sphere {
                        center: DVec3::new(0.1 * s, edge + gap + radius, 0.05 * s),
                        radius,
                    }),
                ]
            }
        }
    }

    /// The volume of each object (m³): exact for the primitives, the mesh's enclosed volume for the
    /// bunny.
    pub fn volumes(&self) -> Vec<f64> {
        self.solids()
            .iter()
            .map(|solid| match solid {
                Solid::Shape(shape) => shape.volume(),
                Solid::Mesh(mesh) => mesh.volume(),
            })
            .collect()
    }

    /// Integrate `simulation` (built from this description; object k owns the phyxels
    /// `objects[k]`) by background quadrature (seed 003 §3.3): Gauss points over each object's own
    /// shape — exact for the primitives, the bunny by its mesh's winding number — with shape
    /// functions from its own phyxels. Once a reference update has moved the rest shape
    /// ([`Simulation::update_reference`]), the regions are the surfaces where they were last bound,
    /// which must be closed. Refused with the reason (the body then keeps its integration).
    pub fn set_quadrature(
        &self,
        simulation: &mut Simulation,
        objects: &[std::ops::Range<usize>],
    ) -> Result<(), SceneError> {
        let regions: Vec<Box<dyn Region>> = if simulation.reference_updates == 0 {
            let lift = DVec3::new(0.0, self.drop_height, 0.0);
            self.solids()
                .into_iter()
                .map(|solid| Box::new(Lifted::new(solid, lift)) as Box<dyn Region>)
                .collect()
        } else {
            simulation
                .surfaces
                .iter()
                .map(|surface| Box::new(IndexedMesh::new(surface.rest_mesh())) as Box<dyn Region>)
                .collect()
        };
        if regions.len() != objects.len() {
            return Err(SceneError(format!(
                "{} objects but {} phyxel ranges",
                regions.len(),
                objects.len()
            )));
        }
        for (k, surface) in simulation.surfaces.iter().enumerate() {
            if !surface.rest_mesh().welded().is_closed() {
                return Err(SceneError(format!(
                    "the surface of object {} is not closed (an edge without its opposite twin): \
                     its inside is undefined, so it cannot be integrated by quadrature",
                    k + 1
                )));
            }
        }
        let objects: Vec<(&dyn Region, std::ops::Range<usize>)> = regions
            .iter()
            .zip(objects)
            .map(|(region, range)| (region.as_ref(), range.clone()))
            .collect();
        simulation
            .body
            .set_quadrature_of_objects(&objects, self.spacing(), QuadratureSettings::default())
            .map_err(|e| SceneError(format!("background quadrature: {e}")))
    }

    /// Sample the objects, bind their surfaces and set up the environment. Fails with an explanation
    /// when the scene would have more than `max_phyxels` phyxels or a parameter is out of range.
    pub fn build(&self, max_phyxels: usize) -> Result<Scene, SceneError> {
        if !(MIN_RESOLUTION..=MAX_RESOLUTION).contains(&self.resolution) {
            return Err(SceneError(format!(
                "the resolution must be between {MIN_RESOLUTION} and {MAX_RESOLUTION} phyxels across (got {})",
                self.resolution
            )));
        }
        if !(1.2..=4.0).contains(&self.support_factor) {
            return Err(SceneError(format!(
                "the support radius must be between 1.2 and 4 spacings (got {})",
                self.support_factor
            )));
        }
        let spacing = self.spacing();
        let solids = self.solids();
        // The count from the objects' volumes first, so that a scene over the cap is refused before
        // it is sampled (the bunny's sampling is the costly part). The estimate is within
        // ESTIMATE_MARGIN of the sampled count: a scene near the cap is sampled and counted exactly.
        let estimate = estimated_phyxels(&solids, self.lattice.cell_volume(spacing));
        if estimate > (1.0 + ESTIMATE_MARGIN) * max_phyxels as f64 {
            return Err(too_many(estimate.round() as usize, max_phyxels));
        }
        let lift = DVec3::new(0.0, self.drop_height, 0.0);
        let mut points = Vec::new();
        let mut meshes = Vec::new();
        let mut object_start = vec![0];
        for solid in solids {
            let (interior, mut surface) = match solid {
                Solid::Shape(shape) => (
                    sample_cell_centred(&shape, spacing, self.lattice),
                    shape.surface_mesh(24),
                ),
                Solid::Mesh(mesh) => (sample_mesh(&mesh, spacing, self.lattice), mesh),
            };
            surface.vertices.iter_mut().for_each(|v| *v += lift);
            points.extend(interior.into_iter().map(|p| p + lift));
            meshes.push(surface);
            object_start.push(points.len());
        }
        if points.len() > max_phyxels {
            return Err(too_many(points.len(), max_phyxels));
        }
        if points.is_empty() {
            return Err(SceneError(
                "no phyxel fits inside the objects at this resolution".into(),
            ));
        }
        let body = Body::new(
            points,
            self.lattice.cell_volume(spacing),
            spacing,
            self.material,
            SupportRadius::SpacingMultiple {
                factor: self.support_factor,
            },
        );
        let surfaces = meshes
            .iter()
            .map(|mesh| EmbeddedSurface::bind(mesh, &body))
            .collect();
        let mut environment = Environment::default();
        if self.obstacle {
            let (center, radius) = OBSTACLE;
            environment
                .colliders
                .push(Collider::Sphere { center, radius });
        }
        let mut simulation = Simulation::new(body, environment);
        simulation.surfaces = surfaces;
        if self.objects == Objects::Collide {
            simulation.surface_contact = Some(SurfaceContact::default());
        }
        Ok(Scene {
            simulation,
            object_start,
        })
    }
}

/// Lattice points inside `shape` on a lattice that starts half a spacing inside its bounding box: the
/// phyxels are the centres of the cells that tile it.
fn sample_cell_centred(shape: &Shape, spacing: f64, lattice: Lattice) -> Vec<DVec3> {
    let (min, max) = shape.bounds();
    let inset = Shape::Box {
        min: min + 0.5 * spacing,
        max,
    };
    sample(&inset, spacing, lattice)
        .into_iter()
        .filter(|p| shape.contains(*p))
        .collect()
}

/// How far (as a fraction) the volume estimate of a scene's phyxel count may lie from the sampled
/// count (a test checks it for every scene): a scene is refused before sampling only beyond it.
pub const ESTIMATE_MARGIN: f64 = 0.05;

/// Σ volume / cell volume over `solids`.
fn estimated_phyxels(solids: &[Solid], cell_volume: f64) -> f64 {
    let volume = |solid: &Solid| match solid {
        Solid::Shape(shape) => shape.volume(),
        Solid::Mesh(mesh) => mesh.volume().abs(),
    };
    solids.iter().map(volume).sum::<f64>() / cell_volume
}

fn too_many(count: usize, max: usize) -> SceneError {
    SceneError(format!(
        "about {count} phyxels are more than this backend handles ({max}): lower the resolution"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surface_that_is_not_closed_is_refused_for_quadrature_with_the_reason() {
        // After a reference update the regions are the surfaces where they were last bound: one
        // with a triangle missing has no inside, so the quadrature is refused and the body keeps its
        // nodal integration.
        let description = SceneDescription {
            objects: Objects::Bunny,
            resolution: 8,
            ..SceneDescription::default()
        };
        let scene = description.build(100_000).unwrap();
        let objects: Vec<_> = scene.object_start.windows(2).map(|w| w[0]..w[1]).collect();
        let mut open = scene.simulation.clone();
        open.surfaces[0].triangles.pop();
        let refused = description.set_quadrature(&mut open, &objects).unwrap_err();
        assert!(refused.0.contains("object 1 is not closed"), "{refused}");
        assert!(open.body.quadrature().is_none());
        let mut closed = scene.simulation;
        description.set_quadrature(&mut closed, &objects).unwrap();
        assert!(closed.body.quadrature().is_some());
    }

    #[test]
    fn every_scene_builds_with_the_expected_volume_and_mass() {
        for objects in Objects::ALL {
            assert_eq!(Objects::from_id(objects.id()), Some(objects));
            let description = SceneDescription {
                objects,
                resolution: 9,
                ..SceneDescription::default()
            };
            let scene = description.build(100_000).unwrap();
            let sim = &scene.simulation;
            let body = &sim.body;
            let objects_of = scene.object_of_phyxels();
            assert_eq!(objects_of.len(), body.len());
            assert_eq!(sim.surfaces.len(), *objects_of.last().unwrap() as usize + 1);
            assert!(body.len() > 50, "{objects:?}: {} phyxels", body.len());
            assert!(
                body.reference
                    .iter()
                    .all(|p| p.y >= description.drop_height - 1e-9),
                "{objects:?} starts above the drop height"
            );
            // Mass = ρ × sampled volume, and the sampled volume is close to the surface's volume.
            let mass: f64 = body.mass.iter().sum();
            let enclosed: f64 = sim
                .surfaces
                .iter()
                .map(|s| {
                    let mesh = TriangleMesh {
                        vertices: s.deformed_vertices(body, &body.displacement_gradients()),
                        triangles: s.triangles.clone(),
                    };
                    mesh.volume()
                })
                .sum();
            let ratio = mass / (body.material.density * enclosed);
            assert!(
                (0.93..1.07).contains(&ratio),
                "{objects:?}: phyxel mass / (ρ × surface volume) = {ratio}"
            );
            // The neighbourhoods are those of a cubic lattice with h = 2.2 spacings (32 inside, fewer at
            // the surface).
            let mean = body.neighbours.mean_count();
            assert!(
                (15.0..40.0).contains(&mean),
                "{objects:?}: {mean} neighbours"
            );
        }
    }

    #[test]
    fn oversized_and_invalid_scenes_are_refused_with_a_reason() {
        let big = SceneDescription {
            resolution: 120,
            ..SceneDescription::default()
        };
        let error = big.build(10_000).unwrap_err();
        assert!(
            error.to_string().contains("lower the resolution"),
            "{error}"
        );
        let coarse = SceneDescription {
            resolution: 1,
            ..SceneDescription::default()
        };
        assert!(coarse
            .build(10_000)
            .unwrap_err()
            .to_string()
            .contains("resolution"));
        let obstacle = SceneDescription {
            obstacle: true,
            ..SceneDescription::default()
        };
        assert_eq!(
            obstacle
                .build(10_000)
                .unwrap()
                .simulation
                .environment
                .colliders
                .len(),
            2
        );
    }
}
