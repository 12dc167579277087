//! A body integrated by background quadrature (`phyxel::meshless::quadrature`; Brunet et al. 2019,
//! seed 003 §3.3–3.4) in the corotated implicit step. Its static data — the integration points (v_I,
//! λ_I, μ_I, F_p,I⁻¹), the shape functions' rows and the particles' reverse lists, and a held surface's
//! points appended after the integration points — is built on the CPU by `Quadrature`, put in the
//! device's form here ([`PointData`]), checked against the device's limits and uploaded once; the
//! passes of `shaders/quadrature.wgsl` then take the place of the nodal model's in every step: the
//! point stresses and their gather into the particles' forces, the stiffness product (inside CG too,
//! with `cg_gathered_product`) and the stiffness diagonal of the block-Jacobi preconditioner.
//!
//! The per-point buffers (the frames, 96 bytes a point, the largest) are bound whole; the per-edge ones
//! — the rows, the reverse lists (16 bytes an edge) and the rows' values φ_i(x_I) — in edge windows
//! (`crate::edge_windows`) where they exceed one storage binding or the solver's window size
//! (`GpuSolver::with_edge_windows`): the point passes run once per window of the rows, each handling
//! the points whose rows start in it, the particle passes once per window of the reverse lists.

use crate::body::BodyBuffers;
use crate::context::{bytes_in_words, GpuError};
use crate::edge_windows::{EdgeWindowPlan, Lists, Windowed, Windows};
use crate::layout::{gpu_mat3, vec3, IntegrationPoint, PointFrame, ShapeEdge};
use crate::passes::{storage_buffer, zeroed, Pass};
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};
use glam::DMat3;
use phyxel::meshless::elasticity::plastic_inverse_of;
use phyxel::meshless::quadrature::Quadrature;

/// A quadrature in the device's form: its integration points, then its held surface's points (module
/// docs of shaders/quadrature.wgsl), with the rows and reverse lists over both.
#[derive(Clone, Debug, PartialEq)]
pub struct PointData {
    pub points: Vec<IntegrationPoint>,
    pub frames: Vec<PointFrame>,
    /// Point I's row: `rows[start[I]..start[I + 1]]`, ∇φ_i(x_I) with the particle i.
    pub start: Vec<u32>,
    pub rows: Vec<ShapeEdge>,
    /// Particle i's reverse list: `reverse[reverse_start[i]..reverse_start[i + 1]]`, ∇φ_i(x_I) with
    /// the point I, in the rows' order (the CPU's `ShapeFunctions::edges_into`, then the held points).
    pub reverse_start: Vec<u32>,
    pub reverse: Vec<ShapeEdge>,
    /// φ_i(x_I) of each row edge (0 on a held-surface point's row): what `soften` interpolates with.
    pub values: Vec<f32>,
    /// The cold λ_I, μ_I of each point (`Quadrature::lame`; 0 at a held-surface point), which `soften`
    /// scales by s_I.
    pub cold: Vec<[f32; 2]>,
}

impl PointData {
    pub fn of(q: &Quadrature) -> Self {
        let shape = &q.shape;
        let frame = |f_p: DMat3| PointFrame {
            rotation: gpu_mat3(DMat3::IDENTITY),
            plastic_inverse: gpu_mat3(plastic_inverse_of(f_p)),
        };
        // λ_I, μ_I as they act now (softened where warm: `Quadrature::point_lame`).
        let mut points: Vec<IntegrationPoint> = (0..q.len())
            .map(|k| q.point_lame(k))
            .zip(&q.points.volume)
            .map(|(lame, volume)| IntegrationPoint {
                volume: *volume as f32,
                lambda: lame.lambda as f32,
                mu: lame.mu as f32,
                held: 0,
            })
            .collect();
        let mut frames: Vec<PointFrame> = q.plastic_deformation.iter().map(|f| frame(*f)).collect();
        let mut values: Vec<f32> = shape.value.iter().map(|&v| v as f32).collect();
        let mut cold: Vec<[f32; 2]> = q
            .lame
            .iter()
            .map(|l| [l.lambda as f32, l.mu as f32])
            .collect();
        let mut start = shape.start.clone();
        let mut rows: Vec<ShapeEdge> = shape
            .particle
            .iter()
            .zip(&shape.gradient)
            .map(|(&i, gradient)| ShapeEdge {
                gradient: vec3(*gradient),
                index: i,
            })
            .collect();
        if let Some(held) = &q.held {
            for (s, area) in held.area.iter().enumerate() {
                points.push(IntegrationPoint {
                    volume: (held.penalty * area) as f32,
                    held: 1,
                    ..IntegrationPoint::default()
                });
                frames.push(frame(DMat3::IDENTITY));
                cold.push([0.0; 2]);
                for e in held.start[s] as usize..held.start[s + 1] as usize {
                    rows.push(ShapeEdge {
                        gradient: [held.value[e] as f32, 0.0, 0.0],
                        index: held.particle[e],
                    });
                    values.push(0.0);
                }
                start.push(rows.len() as u32);
            }
        }
        // The reverse lists: a counting sort of the edges on their particle, in edge order.
        let n = q.particle_count();
        let mut reverse_start = vec![0u32; n + 1];
        for edge in &rows {
            reverse_start[edge.index as usize + 1] += 1;
        }
        for i in 0..n {
            reverse_start[i + 1] += reverse_start[i];
        }
        let mut fill = reverse_start.clone();
        let mut reverse = vec![ShapeEdge::default(); rows.len()];
        for (point, ends) in start.windows(2).enumerate() {
            for edge in &rows[ends[0] as usize..ends[1] as usize] {
                let slot = &mut fill[edge.index as usize];
                reverse[*slot as usize] = ShapeEdge {
                    gradient: edge.gradient,
                    index: point as u32,
                };
                *slot += 1;
            }
        }
        Self {
            points,
            frames,
            start,
            rows,
            reverse_start,
            reverse,
            values,
            cold,
        }
    }

    /// Bytes of the largest buffer it binds whole: the frames (96 bytes per point; the per-edge
    /// buffers are bound in windows).
    pub fn largest_binding_bytes(&self) -> u64 {
        (self.points.len() * size_of::<PointFrame>()) as u64
    }

    /// Bytes of the rows (and of the reverse lists): 16 per edge.
    pub fn edge_bytes(&self) -> u64 {
        (self.rows.len() * size_of::<ShapeEdge>()) as u64
    }

    /// The longest row or reverse list, in edges: what consecutive windows overlap by.
    pub fn longest_list(&self) -> u32 {
        [&self.start, &self.reverse_start]
            .iter()
            .flat_map(|starts| starts.windows(2).map(|ends| ends[1] - ends[0]))
            .max()
            .unwrap_or(0)
    }

    /// Refuse a quadrature beyond `limits`, with the limit it passes; else the windows its per-edge
    /// buffers are bound in, of at most `window_bytes` (and the device's binding limit).
    fn check(&self, limits: &wgpu::Limits, window_bytes: u64) -> Result<EdgeWindowPlan, GpuError> {
        let (points, edges) = (self.points.len(), self.rows.len());
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let largest = self.largest_binding_bytes();
        if largest > binding {
            return Err(GpuError(format!(
                "{points} integration points need a {} buffer for their frames; this GPU binds at \
                 most {} (max_storage_buffer_binding_size): coarsen the quadrature or lower the \
                 resolution",
                bytes_in_words(largest),
                bytes_in_words(binding)
            )));
        }
        let edge_bytes = self.edge_bytes();
        if edge_bytes > limits.max_buffer_size || edges >= u32::MAX as usize {
            return Err(GpuError(format!(
                "{points} integration points with {edges} shape-function edges need a {} buffer; \
                 this GPU's largest buffer is {} (max_buffer_size): coarsen the quadrature or lower \
                 the resolution",
                bytes_in_words(edge_bytes),
                bytes_in_words(limits.max_buffer_size)
            )));
        }
        let groups = workgroups(points as u32, WORKGROUP_SIZE);
        if groups > limits.max_compute_workgroups_per_dimension {
            return Err(GpuError(format!(
                "{points} integration points need {groups} workgroups; this GPU dispatches at most \
                 {} (max_compute_workgroups_per_dimension): coarsen the quadrature",
                limits.max_compute_workgroups_per_dimension
            )));
        }
        EdgeWindowPlan::sized(
            size_of::<ShapeEdge>() as u32,
            edges as u32,
            window_bytes.min(binding),
            limits.min_storage_buffer_offset_alignment,
            self.longest_list(),
        )
        .map_err(GpuError)
    }
}

/// Bytes of the largest buffer the implicit step binds whole for the quadrature `q` (beside the
/// per-phyxel ones of [`crate::largest_binding_bytes`]): its points' frames, 96 bytes per point. A
/// quadrature needing more than one binding holds is refused with this number; its per-edge buffers
/// (16 bytes per shape-function edge) are bound in windows.
pub fn quadrature_binding_bytes(q: &Quadrature) -> u64 {
    PointData::of(q).largest_binding_bytes()
}

/// The quadrature's buffers and passes in the implicit step (shaders/quadrature.wgsl).
pub struct QuadratureStep {
    /// Integration points and held-surface points.
    pub points: u32,
    /// Integration points alone (they come first).
    pub integration_points: u32,
    /// The points' frames (R_I, F_p,I⁻¹), for reading F_p back.
    pub point_frame: wgpu::Buffer,
    /// The windows its rows and reverse lists are bound in.
    pub edge_windows: EdgeWindowPlan,
    soften: Pass,
    point_plastic_flow: Pass,
    point_stress: Pass,
    gather: Pass,
    stiffness_product: Pass,
    cg_stiffness_product: Pass,
    cg_gather: Pass,
    cg_gathered_product: Pass,
    stiffness_diagonal: Pass,
}

/// The implicit step's buffers the quadrature's passes share with it.
pub struct StepBuffers<'a> {
    /// The work buffer (implicit_work.wgsl).
    pub work: &'a wgpu::Buffer,
    /// The per-phyxel frames (the preconditioner blocks are written there).
    pub frames: &'a wgpu::Buffer,
    pub contact: &'a wgpu::Buffer,
}

impl QuadratureStep {
    /// Upload `q` for the body `b`; refused beyond the device's `limits`.
    pub fn new(
        device: &wgpu::Device,
        limits: &wgpu::Limits,
        b: &BodyBuffers,
        q: &Quadrature,
        step: StepBuffers,
    ) -> Result<Self, GpuError> {
        if q.particle_count() != b.phyxels as usize {
            return Err(GpuError(format!(
                "the quadrature was built for {} particles, the body has {}",
                q.particle_count(),
                b.phyxels
            )));
        }
        let data = PointData::of(q);
        let plan = data.check(limits, b.window_bytes)?;
        let windows = Windows::new(device, plan);
        let storage = |label: &str, bytes: &[u8]| storage_buffer(device, label, bytes);
        let points = data.points.len() as u32;
        let point = storage("integration points", bytemuck::cast_slice(&data.points));
        let point_frame = storage("point frames", bytemuck::cast_slice(&data.frames));
        let point_start = storage("point rows", bytemuck::cast_slice(&data.start));
        let point_edge = storage("point edges", bytemuck::cast_slice(&data.rows));
        let particle_start = storage(
            "particle reverse lists",
            bytemuck::cast_slice(&data.reverse_start),
        );
        let particle_edge = storage("particle edges", bytemuck::cast_slice(&data.reverse));
        let point_force = zeroed(device, "point force matrices", points as usize * 48);
        let point_value = storage("point shape values", bytemuck::cast_slice(&data.values));
        let point_cold = storage("cold point Lamé", bytemuck::cast_slice(&data.cold));
        let sources = [
            source::COMMON,
            source::SYMMETRIC_EIGEN,
            source::POLAR,
            source::ELASTICITY,
            source::PLASTICITY,
            source::IMPLICIT_WORK,
            source::QUADRATURE,
        ];
        let (per_point, per_particle) = (
            workgroups(points, WORKGROUP_SIZE),
            workgroups(b.phyxels, WORKGROUP_SIZE),
        );
        // The per-edge buffers, bound window by window (the points' rows and their values in the rows'
        // windows, the particles' reverse lists in theirs).
        let edge = size_of::<ShapeEdge>() as u64;
        let windowed: [Windowed; 3] = [
            (&point_edge, Lists::Rows, edge),
            (&point_value, Lists::Rows, size_of::<f32>() as u64),
            (&particle_edge, Lists::Reverse, edge),
        ];
        let pass = |entry: &str, buffers: &[(u32, &wgpu::Buffer)], groups: u32| {
            let bound: Vec<(u32, &wgpu::Buffer)> = std::iter::once((0, &b.params))
                .chain(buffers.iter().copied())
                .collect();
            windows.pass(device, &sources, entry, &bound, &windowed, groups)
        };
        let rows = [
            (1, &b.displacement),
            (2, &point_start),
            (3, &point_edge),
            (4, &point),
            (5, &b.phyxel),
            (6, &point_frame),
            (7, &point_force),
            (8, step.work),
            (12, step.contact),
        ];
        let gather = [
            (7, &point_force),
            (9, &particle_start),
            (10, &particle_edge),
            (11, &b.forces),
        ];
        let cg_gather: Vec<_> = gather.iter().copied().chain([(8, step.work)]).collect();
        // conjugate_gradient.wgsl reads the nodal reverse lists in cg_product: it is compiled with the
        // edge windows' helpers, which cg_gathered_product does not use.
        let cg_sources = [
            source::EDGE_WINDOW,
            source::COMMON,
            source::MLS_WEIGHT,
            source::IMPLICIT_WORK,
            source::CONJUGATE_GRADIENT,
        ];
        let cg_gathered_product = Pass::whole(
            device,
            &cg_sources,
            "cg_gathered_product",
            &[
                (0, &b.params),
                (1, &b.forces),
                (2, &b.phyxel),
                (3, step.work),
                (4, step.contact),
            ],
            per_particle,
        );
        Ok(Self {
            points,
            integration_points: q.len() as u32,
            soften: pass(
                "soften",
                &[
                    (2, &point_start),
                    (3, &point_edge),
                    (4, &point),
                    (5, &b.phyxel),
                    (14, &point_value),
                    (15, &point_cold),
                ],
                per_point,
            ),
            point_plastic_flow: pass(
                "point_plastic_flow",
                &[
                    (1, &b.displacement),
                    (2, &point_start),
                    (3, &point_edge),
                    (4, &point),
                    (6, &point_frame),
                    (15, &point_cold),
                ],
                per_point,
            ),
            point_frame: point_frame.clone(),
            edge_windows: plan,
            point_stress: pass("point_stress", &rows, per_point),
            gather: pass("gather", &gather, per_particle),
            stiffness_product: pass("stiffness_product", &rows, per_point),
            cg_stiffness_product: pass("cg_stiffness_product", &rows, per_point),
            cg_gather: pass("cg_gather", &cg_gather, per_particle),
            cg_gathered_product,
            stiffness_diagonal: pass(
                "stiffness_diagonal",
                &[
                    (4, &point),
                    (5, &b.phyxel),
                    (6, &point_frame),
                    (8, step.work),
                    (9, &particle_start),
                    (10, &particle_edge),
                    (12, step.contact),
                    (13, step.frames),
                ],
                per_particle,
            ),
        })
    }

    /// The elastic forces into `forces` (and the points' rotations R_I).
    pub fn forces(&self) -> [&Pass; 2] {
        [&self.point_stress, &self.gather]
    }

    /// K·Q into `forces`.
    pub fn stiffness(&self) -> [&Pass; 2] {
        [&self.stiffness_product, &self.gather]
    }

    /// The block-Jacobi preconditioner blocks.
    pub fn diagonal(&self) -> [&Pass; 1] {
        [&self.stiffness_diagonal]
    }

    /// The points' λ_I, μ_I softened from the particles' stiffness factors (after the melting passes).
    pub fn soften(&self) -> &Pass {
        &self.soften
    }

    /// The multiplicative plastic flow at the integration points (after the step and the melting).
    pub fn plastic_flow(&self) -> &Pass {
        &self.point_plastic_flow
    }

    /// A CG iteration's product K S p, A p and the partial sums of p·Ap (cg_product's place).
    pub fn cg_product(&self) -> [&Pass; 3] {
        [
            &self.cg_stiffness_product,
            &self.cg_gather,
            &self.cg_gathered_product,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;
    use phyxel::meshless::material::Material;
    use phyxel::meshless::quadrature::QuadratureSettings;
    use phyxel::meshless::sampling::{sample, Lattice, Shape};

    /// A 5 × 5 × 5 block of particles (spacing 0.25 over [0, 1]³) with its quadrature and a held
    /// face at x = 0.
    fn held_block() -> Quadrature {
        let a = 0.25;
        let shape = Shape::Box {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        };
        let particles = sample(&shape, a, Lattice::Cubic);
        let mut q = Quadrature::new(
            &shape,
            &particles,
            a,
            &Material {
                young: 1e6,
                poisson: 0.3,
                density: 1000.0,
                volume_stiffness: 0.0,
            },
            QuadratureSettings::default(),
        )
        .unwrap();
        let face: Vec<(DVec3, f64)> = (0..4)
            .flat_map(|y| (0..4).map(move |z| (y, z)))
            .map(|(y, z)| {
                (
                    DVec3::new(0.0, (y as f64 + 0.5) * a, (z as f64 + 0.5) * a),
                    a * a,
                )
            })
            .collect();
        q.hold_surface(&face, 100.0, a);
        q
    }

    #[test]
    fn the_reverse_lists_hold_every_edge_once_in_the_cpus_order_then_the_held_points() {
        let q = held_block();
        let data = PointData::of(&q);
        let held = q.held.as_ref().unwrap();
        assert_eq!(data.points.len(), q.len() + held.area.len());
        assert_eq!(
            data.rows.len(),
            q.shape.particle.len() + held.particle.len()
        );
        assert_eq!(data.reverse.len(), data.rows.len());
        for i in 0..q.particle_count() {
            let list =
                &data.reverse[data.reverse_start[i] as usize..data.reverse_start[i + 1] as usize];
            let cpu: Vec<u32> = q
                .shape
                .edges_into(i)
                .iter()
                .map(|&e| q.shape.owner[e as usize])
                .collect();
            let (integration, surface) = list.split_at(cpu.len());
            let points: Vec<u32> = integration.iter().map(|edge| edge.index).collect();
            assert_eq!(points, cpu, "particle {i}'s integration points");
            for (edge, &e) in integration.iter().zip(q.shape.edges_into(i)) {
                assert_eq!(edge.gradient, vec3(q.shape.gradient[e as usize]));
            }
            for edge in surface {
                let point = &data.points[edge.index as usize];
                assert_eq!(point.held, 1);
                assert!(edge.gradient[0] != 0.0 && edge.gradient[1] == 0.0);
            }
        }
        let penalty = (held.penalty * held.area[0]) as f32;
        assert_eq!(data.points[q.len()].volume, penalty);
        assert_eq!(data.largest_binding_bytes(), data.points.len() as u64 * 96);
        assert_eq!(data.edge_bytes(), data.rows.len() as u64 * 16);
        let longest = (0..q.particle_count())
            .map(|i| data.reverse_start[i + 1] - data.reverse_start[i])
            .chain(data.start.windows(2).map(|ends| ends[1] - ends[0]))
            .max()
            .unwrap();
        assert_eq!(data.longest_list(), longest);
    }
}
