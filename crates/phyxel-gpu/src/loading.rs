//! What loads a fracture scene's body on the device besides its forces, the GPU twins of the CPU's
//! drivers around `Simulation::step` (`phyxel::meshless::fracture`): the **grips** — `Grips::step`
//! (the notched bar) and `PullingGrips::step` (the ductile bar) move the held phyxels to
//! u_i = s(t + Δt) a_i before each step; here `hold_grips` does, with s_k for each step of a batch
//! written by the host, and `next_grip_step` counts the steps (shaders/grips.wgsl) — and the **ball**
//! that strikes the slab — `Ball::step` moves it by Δt V after each step's motion and `Ball::strike`
//! resolves the phyxels inside it in its frame and gives it the opposite of the momentum they gained
//! (`Simulation::step_with_contacts`: before the step's heat, plastic flow and fracture); here
//! `move_ball`, `strike` and `ball_recoil` (shaders/ball.wgsl), the ball's state on the device, read
//! back with the phyxels' ([`BallReadBack`]).

use crate::body::BodyBuffers;
use crate::context::GpuError;
use crate::layout::{GpuBall, Grip, GripParams};
use crate::passes::{storage_buffer, zeroed, Pass};
use crate::wgsl::{source, workgroups, WORKGROUP_SIZE};
use glam::DVec3;
use phyxel::meshless::fracture::scenes::GripPath;
use phyxel::meshless::fracture::slab::Ball;

/// The most values of the grips' law one batch takes (`GripPasses::write_scales`); a longer batch
/// holds the grips at the last value.
pub const MAX_GRIP_SCALES: usize = 4096;

/// The grips on the device: the held phyxels with their directions, the batch's values s_k and the
/// step counter, and the passes.
pub struct GripPasses {
    grips: u32,
    params: wgpu::Buffer,
    scales: wgpu::Buffer,
    hold: Pass,
    count: Pass,
}

impl GripPasses {
    /// The grips of `path` on the body `b`; refused for a phyxel the body does not have or a path
    /// whose lists differ in length.
    pub fn new(device: &wgpu::Device, b: &BodyBuffers, path: &GripPath) -> Result<Self, GpuError> {
        if path.phyxels.len() != path.direction.len() {
            return Err(GpuError(format!(
                "the grips hold {} phyxels but have {} directions",
                path.phyxels.len(),
                path.direction.len()
            )));
        }
        if let Some(&i) = path.phyxels.iter().find(|&&i| i >= b.phyxels as usize) {
            return Err(GpuError(format!(
                "the grips hold phyxel {i}, but the body has {} phyxels",
                b.phyxels
            )));
        }
        if path.direction.iter().any(|a| !a.is_finite()) {
            return Err(GpuError("the grips' directions must be finite".into()));
        }
        let grips: Vec<Grip> = path
            .phyxels
            .iter()
            .zip(&path.direction)
            .map(|(&i, a)| Grip {
                direction: [a.x as f32, a.y as f32, a.z as f32],
                phyxel: i as u32,
            })
            .collect();
        let count = grips.len() as u32;
        let grips_buffer = storage_buffer(device, "grips", bytemuck::cast_slice(&grips));
        let params = storage_buffer(
            device,
            "grip params",
            bytemuck::bytes_of(&GripParams {
                grips: count,
                ..GripParams::default()
            }),
        );
        let scales = zeroed(device, "grip scales", MAX_GRIP_SCALES * 4);
        let sources = [source::GRIPS];
        let hold = Pass::whole(
            device,
            &sources,
            "hold_grips",
            &[
                (0, &grips_buffer),
                (1, &scales),
                (2, &params),
                (3, &b.displacement),
            ],
            workgroups(count, WORKGROUP_SIZE),
        );
        let next = Pass::whole(device, &sources, "next_grip_step", &[(2, &params)], 1);
        Ok(Self {
            grips: count,
            params,
            scales,
            hold,
            count: next,
        })
    }

    /// s_k for the steps of the next batch (in order; at most [`MAX_GRIP_SCALES`], the rest dropped),
    /// its step counter back at 0.
    pub fn write_scales(&self, queue: &wgpu::Queue, scales: &[f64]) {
        let scales: Vec<f32> = scales
            .iter()
            .take(MAX_GRIP_SCALES)
            .map(|&s| s as f32)
            .collect();
        if !scales.is_empty() {
            queue.write_buffer(&self.scales, 0, bytemuck::cast_slice(&scales));
        }
        let params = GripParams {
            grips: self.grips,
            scales: scales.len() as u32,
            ..GripParams::default()
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// Before a step: the held phyxels to their place at its end, and the step counted.
    pub fn before_step(&self, compute: &mut wgpu::ComputePass) {
        self.hold.dispatch(compute);
        self.count.dispatch(compute);
    }
}

/// The ball on the device: its state ([`GpuBall`]), the momentum each phyxel gained, and the passes.
pub struct BallPasses {
    ball: wgpu::Buffer,
    radius: f64,
    mass: f64,
    move_ball: Pass,
    strike: Pass,
    recoil: Pass,
}

impl BallPasses {
    /// `ball` striking the body `b`; refused for a ball that is not finite or has no mass or size.
    pub fn new(device: &wgpu::Device, b: &BodyBuffers, ball: &Ball) -> Result<Self, GpuError> {
        let finite = ball.centre.is_finite() && ball.velocity.is_finite();
        if !(finite && ball.radius > 0.0 && ball.mass > 0.0 && ball.mass.is_finite()) {
            return Err(GpuError(format!(
                "the ball must be finite with a positive radius and mass (got {ball:?})"
            )));
        }
        let vector = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32];
        let state = GpuBall {
            centre: vector(ball.centre),
            radius: ball.radius as f32,
            velocity: vector(ball.velocity),
            mass: ball.mass as f32,
        };
        let ball_buffer = storage_buffer(device, "ball", bytemuck::bytes_of(&state));
        let gained = zeroed(device, "momentum gained", b.phyxels as usize * 16);
        let sources = [source::COMMON, source::COLLISION, source::BALL];
        let pass = |entry, buffers: &[(u32, &wgpu::Buffer)], groups| {
            Pass::whole(device, &sources, entry, buffers, groups)
        };
        Ok(Self {
            move_ball: pass("move_ball", &[(0, &b.params), (5, &ball_buffer)], 1),
            strike: pass(
                "strike",
                &[
                    (0, &b.params),
                    (1, &b.reference),
                    (2, &b.displacement),
                    (3, &b.velocity),
                    (4, &b.phyxel),
                    (5, &ball_buffer),
                    (6, &gained),
                ],
                b.workgroups(),
            ),
            recoil: pass(
                "ball_recoil",
                &[(0, &b.params), (5, &ball_buffer), (6, &gained)],
                1,
            ),
            ball: ball_buffer,
            radius: ball.radius,
            mass: ball.mass,
        })
    }

    /// After a step: the ball moved, the phyxels it holds struck, and its recoil.
    pub fn after_motion(&self, compute: &mut wgpu::ComputePass) {
        self.move_ball.dispatch(compute);
        self.strike.dispatch(compute);
        self.recoil.dispatch(compute);
    }

    /// What a read-back of the ball needs: its buffer, and its radius and mass as uploaded.
    pub fn read_back(&self) -> BallReadBack {
        BallReadBack {
            buffer: self.ball.clone(),
            radius: self.radius,
            mass: self.mass,
        }
    }
}

/// The ball's buffer and what the device does not change of it.
pub struct BallReadBack {
    pub buffer: wgpu::Buffer,
    pub radius: f64,
    pub mass: f64,
}

impl BallReadBack {
    /// Bytes of the buffer.
    pub const BYTES: u64 = size_of::<GpuBall>() as u64;

    /// The ball from the buffer's bytes: its centre and velocity as the device holds them.
    pub fn ball(&self, raw: &[u8]) -> Ball {
        let state: GpuBall = bytemuck::pod_read_unaligned(&raw[..size_of::<GpuBall>()]);
        let vector = |v: [f32; 3]| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64);
        Ball {
            centre: vector(state.centre),
            velocity: vector(state.velocity),
            radius: self.radius,
            mass: self.mass,
        }
    }
}

/// A fracture scene's loads on the device.
pub enum Loading {
    Grips(GripPasses),
    Ball(BallPasses),
}

impl Loading {
    /// Before each step (the grips).
    pub fn before_step(&self, compute: &mut wgpu::ComputePass) {
        if let Loading::Grips(grips) = self {
            grips.before_step(compute);
        }
    }

    /// After each step's motion, before its heat and plastic flow (the ball).
    pub fn after_motion(&self, compute: &mut wgpu::ComputePass) {
        if let Loading::Ball(ball) = self {
            ball.after_motion(compute);
        }
    }
}
