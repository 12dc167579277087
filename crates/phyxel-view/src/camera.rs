//! The orbit camera of the 3D pages: yaw and pitch around a target, a distance, a perspective
//! projection; rays through the pointer for picking and dragging.

use glam::{DMat4, DVec3, DVec4};
use wasm_bindgen::prelude::*;

/// Vertical field of view (radians).
const FIELD_OF_VIEW: f64 = 0.8;
const NEAR: f64 = 0.02;
const FAR: f64 = 50.0;

/// A camera on a sphere around `target`, always upright.
#[wasm_bindgen]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Angle around the vertical axis (radians).
    yaw: f64,
    /// Angle above the horizon (radians), kept within ±85°.
    pitch: f64,
    distance: f64,
    target: DVec3,
    /// Width / height of the viewport.
    aspect: f64,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            yaw: 0.6,
            pitch: 0.45,
            distance: 2.2,
            target: DVec3::new(0.0, 0.3, 0.0),
            aspect: 1.5,
        }
    }
}

#[wasm_bindgen]
impl OrbitCamera {
    #[wasm_bindgen(constructor)]
    pub fn new() -> OrbitCamera {
        Self::default()
    }

    /// Look at the sphere (`x`, `y`, `z`, `radius`) from a distance that shows all of it.
    pub fn frame(&mut self, x: f64, y: f64, z: f64, radius: f64) {
        let centre = DVec3::new(x, y, z);
        if centre.is_finite() && radius.is_finite() && radius > 0.0 {
            self.target = centre;
            let half_angle = 0.5 * FIELD_OF_VIEW * self.aspect.min(1.0);
            self.distance = (1.3 * radius / half_angle.sin()).clamp(0.2, 20.0);
        }
    }

    /// Turn by `dyaw` around the vertical and tilt by `dpitch` (radians).
    pub fn orbit(&mut self, dyaw: f64, dpitch: f64) {
        if dyaw.is_finite() && dpitch.is_finite() {
            self.yaw = (self.yaw + dyaw).rem_euclid(std::f64::consts::TAU);
            self.pitch = (self.pitch + dpitch).clamp(-1.48, 1.48);
        }
    }

    /// Move closer (factor < 1) or farther (factor > 1).
    pub fn zoom(&mut self, factor: f64) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(0.2, 20.0);
        }
    }

    pub fn set_aspect(&mut self, aspect: f64) {
        if aspect.is_finite() && aspect > 0.0 {
            self.aspect = aspect;
        }
    }

    pub fn distance(&self) -> f64 {
        self.distance
    }

    /// The ray through the point (`ndc_x`, `ndc_y`) ∈ [−1, 1]² of the viewport (y up):
    /// [origin x, y, z, unit direction x, y, z].
    pub fn ray(&self, ndc_x: f64, ndc_y: f64) -> Vec<f64> {
        let (origin, direction) = self.ray_through(ndc_x, ndc_y);
        vec![
            origin.x,
            origin.y,
            origin.z,
            direction.x,
            direction.y,
            direction.z,
        ]
    }

    /// The viewport point (`ndc_x`, `ndc_y`) ∈ [−1, 1]² (y up) where the world point (x, y, z)
    /// appears.
    pub fn project(&self, x: f64, y: f64, z: f64) -> Vec<f64> {
        let clip = self.view_projection() * DVec4::new(x, y, z, 1.0);
        vec![clip.x / clip.w, clip.y / clip.w]
    }

    /// The point the pointer at (`ndc_x`, `ndc_y`) picks of `points` — x, y, z and `stride` − 3 more
    /// numbers each (a page's particle buffer) — the first along the ray through it within `radius`
    /// of the ray (`phyxel::picking::nearest_along_ray`, as the 3D demo picks a phyxel): its index,
    /// or −1 for none (or a stride below 3).
    pub fn pick(&self, ndc_x: f64, ndc_y: f64, points: &[f32], stride: usize, radius: f64) -> i32 {
        if stride < 3 {
            return -1;
        }
        let (origin, direction) = self.ray_through(ndc_x, ndc_y);
        let points = points
            .chunks_exact(stride)
            .map(|p| DVec3::new(p[0].into(), p[1].into(), p[2].into()));
        phyxel::picking::nearest_along_ray(points, origin, direction, radius)
            .map_or(-1, |i| i as i32)
    }

    /// Where the ray through (`ndc_x`, `ndc_y`) meets the plane through (`x`, `y`, `z`) facing the
    /// camera: the point a dragged phyxel is pulled to. [x, y, z], or the plane point itself if the ray
    /// runs parallel to the plane.
    pub fn drag_point(&self, ndc_x: f64, ndc_y: f64, x: f64, y: f64, z: f64) -> Vec<f64> {
        let anchor = DVec3::new(x, y, z);
        let (origin, direction) = self.ray_through(ndc_x, ndc_y);
        let normal = (self.eye() - self.target).normalize();
        let along = direction.dot(normal);
        let point = if along.abs() > 1e-9 {
            origin + direction * ((anchor - origin).dot(normal) / along)
        } else {
            anchor
        };
        vec![point.x, point.y, point.z]
    }
}

impl OrbitCamera {
    pub fn eye(&self) -> DVec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * DVec3::new(cp * sy, sp, cp * cy)
    }

    pub fn view(&self) -> DMat4 {
        glam::dcamera::rh::view::look_at_mat4(self.eye(), self.target, DVec3::Y)
    }

    /// Perspective with depth in [0, 1] (WebGPU's convention; wgpu converts for WebGL2).
    pub fn projection(&self) -> DMat4 {
        // NDC z ∈ [0, 1] and y up: glam's "directx" convention, which is also WebGPU's.
        glam::dcamera::rh::proj::directx::perspective(FIELD_OF_VIEW, self.aspect, NEAR, FAR)
    }

    pub fn view_projection(&self) -> DMat4 {
        self.projection() * self.view()
    }

    /// World-space right and up axes of the image.
    pub fn axes(&self) -> (DVec3, DVec3) {
        let view = self.view();
        (view.row(0).truncate(), view.row(1).truncate())
    }

    fn ray_through(&self, ndc_x: f64, ndc_y: f64) -> (DVec3, DVec3) {
        let inverse = self.view_projection().inverse();
        let unproject = |z: f64| {
            let p = inverse * DVec4::new(ndc_x, ndc_y, z, 1.0);
            p.truncate() / p.w
        };
        let origin = self.eye();
        let direction = (unproject(1.0) - unproject(0.0))
            .try_normalize()
            .unwrap_or((self.target - origin).normalize());
        (origin, direction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_centre_ray_hits_the_target_and_projects_back_to_the_pointer() {
        let mut camera = OrbitCamera::new();
        camera.orbit(1.0, -0.2);
        let ray = camera.ray(0.0, 0.0);
        let (origin, direction) = (
            DVec3::new(ray[0], ray[1], ray[2]),
            DVec3::new(ray[3], ray[4], ray[5]),
        );
        let to_target = camera.target - origin;
        assert!((to_target.normalize() - direction).length() < 1e-9);
        // A point on the ray through (0.3, −0.4) projects to (0.3, −0.4).
        let ray = camera.ray(0.3, -0.4);
        let p = DVec3::new(ray[0], ray[1], ray[2]) + 1.7 * DVec3::new(ray[3], ray[4], ray[5]);
        let ndc = camera.project(p.x, p.y, p.z);
        assert!((ndc[0] - 0.3).abs() < 1e-9 && (ndc[1] + 0.4).abs() < 1e-9);
        // The drag point lies in the plane through the target facing the camera.
        let q = camera.drag_point(0.3, -0.4, camera.target.x, camera.target.y, camera.target.z);
        let q = DVec3::new(q[0], q[1], q[2]);
        let normal = (camera.eye() - camera.target).normalize();
        assert!((q - camera.target).dot(normal).abs() < 1e-9);
    }
}
