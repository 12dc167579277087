//! The surface meshes as the 3D view draws them (position, normal, colour value per vertex), computed
//! on the device from the solver's buffers by `shaders/render/surface_vertices.wgsl` — mirrors of
//! `Body::displacement_gradients`, `EmbeddedSurface::deformed_vertices` + `interpolate` and
//! `vertex_normals` — so that a view sharing the solver's device draws them without a read-back.

use crate::context::GpuContext;
use crate::instances::PhyxelInstances;
use crate::layout::SurfaceSettings;
use crate::passes::{encode, storage_buffer, uniform, zeroed, Pass};
use crate::solver::GpuSolver;
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};
use glam::DVec3;
use phyxel::meshless::surface::EmbeddedSurface;
use wgpu::util::DeviceExt;

/// Floats per vertex of [`GpuSurfaces::vertices`]: position, normal, colour value.
pub const SURFACE_VERTEX_FLOATS: usize = 7;

/// All surfaces of a scene as one mesh on the device.
pub struct GpuSurfaces {
    /// Position, normal, colour value per vertex (STORAGE | VERTEX).
    pub vertices: wgpu::Buffer,
    /// The triangles, indices into `vertices` (INDEX).
    pub indices: wgpu::Buffer,
    pub index_count: u32,
    settings: wgpu::Buffer,
    phyxels: u32,
    vertex_count: u32,
    /// displacement_gradients, deformed_vertices, vertex_normals.
    passes: [Pass; 3],
    /// `rebase_rest`: the deformed shape becomes the rest shape (at the solver's reference updates).
    rebase: Pass,
}

impl GpuSurfaces {
    /// The passes for `surfaces` (bound to the body `solver` steps), colouring the vertices with
    /// `instances`' values. None when there is no surface.
    pub fn new(
        gpu: &GpuContext,
        solver: &GpuSolver,
        instances: &PhyxelInstances,
        surfaces: &[EmbeddedSurface],
    ) -> Option<Self> {
        let device = &gpu.device;
        let state = solver.body();
        // One vertex array: rest positions with the surface's index, bindings, triangles, and the
        // triangles around each vertex.
        let mut rest = Vec::new();
        let mut bound_start = vec![0u32];
        let mut bound: Vec<[u32; 2]> = Vec::new();
        let mut triangles: Vec<u32> = Vec::new();
        for (k, surface) in surfaces.iter().enumerate() {
            let offset = rest.len() as u32;
            let (start, phyxel, weight) = surface.binding();
            rest.extend(
                surface
                    .rest_vertices()
                    .iter()
                    .map(|x: &DVec3| [x.x as f32, x.y as f32, x.z as f32, k as f32]),
            );
            let first = *bound_start.last().unwrap();
            bound_start.extend(start[1..].iter().map(|s| first + s));
            bound.extend(
                phyxel
                    .iter()
                    .zip(weight)
                    .map(|(&j, &w)| [j, (w as f32).to_bits()]),
            );
            triangles.extend(surface.triangles.iter().flatten().map(|v| v + offset));
        }
        let vertex_count = rest.len() as u32;
        if vertex_count == 0 {
            return None;
        }
        let mut around_count = vec![0u32; rest.len() + 1];
        for v in &triangles {
            around_count[*v as usize + 1] += 1;
        }
        let around_start: Vec<u32> = around_count
            .iter()
            .scan(0, |sum, c| {
                *sum += c;
                Some(*sum)
            })
            .collect();
        let mut fill = around_start.clone();
        let mut around = vec![0u32; triangles.len()];
        for (k, v) in triangles.iter().enumerate() {
            around[fill[*v as usize] as usize] = (k / 3) as u32;
            fill[*v as usize] += 1;
        }
        let storage = |label: &str, bytes: &[u8]| storage_buffer(device, label, bytes);
        let rest = storage("surface rest", bytemuck::cast_slice(&rest));
        let bound_start = storage("surface binding rows", bytemuck::cast_slice(&bound_start));
        let bound = storage("surface binding", bytemuck::cast_slice(&bound));
        let around_start = storage("triangles around rows", bytemuck::cast_slice(&around_start));
        let around = storage("triangles around", bytemuck::cast_slice(&around));
        let triangle_vertices = storage("triangle vertices", bytemuck::cast_slice(&triangles));
        let gradient = zeroed(
            device,
            "displacement gradients",
            state.phyxels as usize * 48,
        );
        let deformed = zeroed(device, "deformed vertices", rest.size() as usize);
        let vertices = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("surface vertices"),
            size: u64::from(vertex_count) * SURFACE_VERTEX_FLOATS as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("surface indices"),
            contents: bytemuck::cast_slice(&triangles),
            usage: wgpu::BufferUsages::INDEX,
        });
        let settings = uniform(
            device,
            "surface settings",
            &SurfaceSettings {
                phyxels: state.phyxels,
                vertices: vertex_count,
                ..SurfaceSettings::default()
            },
        );
        let sources = [
            source::COMMON,
            source::MLS_WEIGHT,
            source::UNCUT_WEIGHTS,
            source::MLS,
            source::SURFACE_VERTICES,
        ];
        let stage = |entry: &str, buffers: &[(u32, &wgpu::Buffer)], items: u32| {
            let groups = workgroups(items, WORKGROUP_SIZE);
            state.edges.pass(device, &sources, entry, buffers, groups)
        };
        let passes = [
            stage(
                "displacement_gradients",
                &[
                    (0, &settings),
                    (1, &state.displacement),
                    (2, &state.start),
                    (3, &state.edges.neighbour),
                    (4, &state.mls_frame),
                    (5, &gradient),
                ],
                state.phyxels,
            ),
            stage(
                "deformed_vertices",
                &[
                    (0, &settings),
                    (1, &state.displacement),
                    (5, &gradient),
                    (6, &state.reference),
                    (7, &bound_start),
                    (8, &bound),
                    (10, &rest),
                    (11, &instances.buffer),
                    (12, &deformed),
                ],
                vertex_count,
            ),
            stage(
                "vertex_normals",
                &[
                    (0, &settings),
                    (12, &deformed),
                    (13, &around_start),
                    (14, &around),
                    (15, &triangle_vertices),
                    (16, &vertices),
                ],
                vertex_count,
            ),
        ];
        let rebase = stage(
            "rebase_rest",
            &[(0, &settings), (10, &rest), (12, &deformed)],
            vertex_count,
        );
        Some(Self {
            vertices,
            indices,
            index_count: triangles.len() as u32,
            settings,
            phyxels: state.phyxels,
            vertex_count,
            passes,
            rebase,
        })
    }

    /// Follow `solver`'s reference updates on the device: at each, before the rest shape moves, the
    /// surfaces' deformed vertices become their rest vertices (`Simulation::update_reference` rebinds
    /// them there), so that what is drawn does not snap back while the page catches up.
    pub fn follow_reference_updates(&self, gpu: &GpuContext, solver: &mut GpuSolver) {
        let [gradients, deformed, _] = &self.passes;
        solver.follow_rest_shape(
            gpu,
            vec![gradients.clone(), deformed.clone(), self.rebase.clone()],
        );
    }

    /// Queue the passes that fill [`GpuSurfaces::vertices`], after the instance pass that wrote the
    /// colour values (`by_object`: each surface takes its object's index instead).
    pub fn encode(&self, gpu: &GpuContext, encoder: &mut wgpu::CommandEncoder, by_object: bool) {
        let settings = SurfaceSettings {
            phyxels: self.phyxels,
            vertices: self.vertex_count,
            by_object: u32::from(by_object),
            ..SurfaceSettings::default()
        };
        gpu.queue
            .write_buffer(&self.settings, 0, bytemuck::bytes_of(&settings));
        encode(encoder, &self.passes);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::instances::InstanceColouring;
    use crate::readback::read_buffer;
    use phyxel::meshless::primitive_mesh::vertex_normals;
    use phyxel::meshless::scene::{Objects, SceneDescription};
    use pollster::block_on;

    #[test]
    fn the_gpu_surfaces_are_the_pages_deformed_vertices_normals_and_colours() {
        let gpu = block_on(GpuContext::new()).expect("lavapipe");
        let scene = SceneDescription {
            objects: Objects::Several,
            resolution: 5,
            ..SceneDescription::default()
        }
        .build(10_000)
        .unwrap();
        let object_of = scene.object_of_phyxels();
        let mut sim = scene.simulation;
        let mut solver = GpuSolver::new(&gpu, &sim).unwrap();
        // Dropped 0.3 m: after 0.25 s the objects are falling and those that landed are deformed.
        assert!(solver.step(&gpu, sim.recommended_time_step(), 300));
        let state = block_on(solver.read_state(&gpu)).unwrap();
        sim.body.displacement = state.displacement.clone();
        let instances = PhyxelInstances::new(&gpu, &solver, &object_of);
        let surfaces = GpuSurfaces::new(&gpu, &solver, &instances, &sim.surfaces).unwrap();
        let speed: Vec<f64> = state.velocity.iter().map(|v| v.length() / 2.0).collect();
        for by_object in [false, true] {
            let drawn = drawn_vertices(
                &gpu,
                &instances,
                &surfaces,
                InstanceColouring::Speed,
                by_object,
            );
            let mut v = 0;
            for (k, (surface, deformed)) in
                sim.surfaces.iter().zip(sim.surface_vertices()).enumerate()
            {
                let normals = vertex_normals(&deformed, &surface.triangles);
                let values = surface.interpolate(&speed);
                for ((x, n), value) in deformed.iter().zip(&normals).zip(&values) {
                    let [px, py, pz, nx, ny, nz, q] = drawn[v].map(f64::from);
                    assert!(
                        DVec3::new(px, py, pz).distance(*x) < 1e-5,
                        "vertex {v} at ({px}, {py}, {pz}), not {x}"
                    );
                    assert!(
                        DVec3::new(nx, ny, nz).distance(*n) < 1e-3,
                        "vertex {v}'s normal ({nx}, {ny}, {nz}), not {n}"
                    );
                    let expected = if by_object { k as f64 } else { *value };
                    assert!(
                        (q - expected).abs() < 1e-4,
                        "vertex {v}'s colour value {q}, not {expected}"
                    );
                    v += 1;
                }
            }
            assert_eq!(v, drawn.len());
        }
        let largest = state
            .displacement
            .iter()
            .map(|u| u.length())
            .fold(0.0, f64::max);
        assert!(largest > 0.1, "the objects fell ({largest} m)");
        assert_eq!(
            surfaces.index_count as usize,
            sim.surfaces
                .iter()
                .map(|s| 3 * s.triangles.len())
                .sum::<usize>()
        );
    }

    /// The vertices drawn with `colouring` (or `by_object`), read back.
    fn drawn_vertices(
        gpu: &GpuContext,
        instances: &PhyxelInstances,
        surfaces: &GpuSurfaces,
        colouring: InstanceColouring,
        by_object: bool,
    ) -> Vec<[f32; SURFACE_VERTEX_FLOATS]> {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        instances.encode(gpu, &mut encoder, colouring);
        surfaces.encode(gpu, &mut encoder, by_object);
        gpu.queue.submit([encoder.finish()]);
        let bytes = block_on(read_buffer(
            &gpu.device,
            &gpu.queue,
            &surfaces.vertices,
            surfaces.vertices.size(),
        ))
        .unwrap();
        bytemuck::pod_collect_to_vec(&bytes)
    }

    /// The drawn vertices' positions.
    fn drawn_positions(
        gpu: &GpuContext,
        instances: &PhyxelInstances,
        surfaces: &GpuSurfaces,
    ) -> Vec<DVec3> {
        drawn_vertices(gpu, instances, surfaces, InstanceColouring::Object, true)
            .iter()
            .map(|v| DVec3::new(v[0].into(), v[1].into(), v[2].into()))
            .collect()
    }

    #[test]
    fn drawn_surfaces_follow_the_reference_updates_on_the_device() {
        use phyxel::meshless::plasticity::Plasticity;
        let gpu = block_on(GpuContext::new()).expect("lavapipe");
        let scene = SceneDescription {
            objects: Objects::Bunny,
            resolution: 6,
            ..SceneDescription::default()
        }
        .build(10_000)
        .unwrap();
        let object_of = scene.object_of_phyxels();
        let mut sim = scene.simulation;
        sim.plasticity = Some(Plasticity {
            yield_strain: 0.0,
            creep: 20.0,
            max_strain: 0.5,
        });
        let gap = |a: &[DVec3], b: &[DVec3]| {
            a.iter()
                .zip(b)
                .map(|(a, b)| a.distance(*b))
                .fold(0.0, f64::max)
        };
        let dt = sim.recommended_time_step();
        let mut gaps = Vec::new();
        for follow in [true, false] {
            let mut cpu = sim.clone();
            let mut solver = GpuSolver::new(&gpu, &cpu).unwrap();
            let instances = PhyxelInstances::new(&gpu, &solver, &object_of);
            let surfaces = GpuSurfaces::new(&gpu, &solver, &instances, &cpu.surfaces).unwrap();
            if follow {
                surfaces.follow_reference_updates(&gpu, &mut solver);
            }
            // Dropped, the bunny lands and flattens: its rest shape moves (on the CPU at the same steps).
            for _ in 0..8 {
                assert!(solver.step(&gpu, dt, 50));
                for _ in 0..50 {
                    cpu.step(dt).unwrap();
                }
                block_on(solver.read_state(&gpu)).unwrap();
            }
            let state = block_on(solver.read_state(&gpu)).unwrap();
            assert!(
                cpu.reference_updates > 0,
                "the landing moved the rest shape"
            );
            assert_eq!(state.reference_updates as usize, cpu.reference_updates);
            let drawn = drawn_positions(&gpu, &instances, &surfaces);
            gaps.push(gap(&drawn, &cpu.surface_vertices()[0]));
        }
        let size = 0.4;
        eprintln!(
            "drawn surface vs the CPU's: following {:.2e} m, not following {:.2e} m",
            gaps[0], gaps[1]
        );
        // Rebased at each update but bound with the weights of the upload (the page binds anew at its
        // next read-back), the drawn surface stays on the CPU's; without following, it snaps back
        // towards the rest shape of the upload.
        assert!(gaps[0] <= 0.01 * size, "following: {} m", gaps[0]);
        assert!(gaps[1] > 0.05 * size, "not following: {} m", gaps[1]);
    }
}
