//! The 3D view of the phyxel demo: [`PhyxelDemo`] drawn on a canvas with wgpu; also the 3D fluid
//! page's particles ([`PhyxelView::draw_particles`]).

use crate::camera::OrbitCamera;
use crate::demo::PhyxelDemo;
use crate::frame::{Colouring, FrameData};
use crate::gpu::GpuDevice;
use crate::render::{FromSolver, Renderer};
use wasm_bindgen::prelude::*;

/// The 3D view of a [`PhyxelDemo`] on a canvas, drawn with wgpu (WebGPU or WebGL2).
#[wasm_bindgen]
pub struct PhyxelView {
    renderer: Renderer,
    /// Whether the last frame drew from the GPU solver's buffers (no read-back needed).
    drew_from_solver: bool,
}

#[wasm_bindgen]
impl PhyxelView {
    /// Open `canvas` with WebGPU if `allow_webgpu` and the browser grants an adapter, else WebGL2.
    /// Fails with a reason if neither works (the page then explains instead of drawing).
    pub async fn create(
        canvas: web_sys::HtmlCanvasElement,
        allow_webgpu: bool,
    ) -> Result<PhyxelView, JsError> {
        Renderer::new(canvas, allow_webgpu)
            .await
            .map(|renderer| PhyxelView {
                renderer,
                drew_from_solver: false,
            })
            .map_err(|e| JsError::new(&e))
    }

    /// "WebGPU" or "WebGL2".
    pub fn backend(&self) -> String {
        self.renderer.backend().into()
    }

    pub fn adapter(&self) -> String {
        self.renderer.adapter_name().into()
    }

    /// Match the drawing buffer to the canvas size in device pixels (whole numbers from 1 to 16384).
    pub fn resize(&mut self, width: f64, height: f64) -> Result<(), JsError> {
        let width = phyxel_bindings::whole("the width", width, 1.0, 16384.0)? as u32;
        let height = phyxel_bindings::whole("the height", height, 1.0, 16384.0)? as u32;
        self.renderer.resize(width, height);
        Ok(())
    }

    /// A device for the GPU solver: this view's own (WebGPU only). A solver on it writes the buffers
    /// the view draws phyxels and surfaces from, so no frame waits for a read-back.
    pub fn solver_device(&mut self) -> Option<GpuDevice> {
        self.renderer.solver_context().map(GpuDevice::from_context)
    }

    /// Draw the demo's current state: phyxels and surfaces from the GPU solver's buffers when it
    /// steps on this view's device, else from the page's copy. An error (GPU failure or device loss)
    /// means this view is unusable: the page opens another.
    pub fn draw(
        &mut self,
        demo: &mut PhyxelDemo,
        camera: &OrbitCamera,
        colour_by: &str,
        show_phyxels: bool,
        show_surface: bool,
    ) -> Result<(), JsError> {
        let context = self.renderer.solver_context();
        // What the GPU solver can draw from its own buffers, when it steps on this view's device.
        let (solver_phyxels, solver_surfaces) = match context
            .as_ref()
            .and_then(|c| demo.gpu_drawing(c, colour_by))
        {
            Some(drawing) => (show_phyxels, show_surface && drawing.surfaces.is_some()),
            None => (false, false),
        };
        self.drew_from_solver = solver_phyxels || solver_surfaces;
        // The rest comes from the page's copy.
        let mut frame = demo
            .frame(
                colour_by,
                show_phyxels && !solver_phyxels,
                show_surface && !solver_surfaces,
            )
            .map_err(|e| JsError::new(&e))?;
        if show_surface {
            // Drawn with the surface, the phyxels inside it are smaller: they mark the lattice.
            frame.phyxel_radius *= 0.25;
        }
        let from_solver = context
            .as_ref()
            .filter(|_| self.drew_from_solver)
            .and_then(|c| demo.gpu_drawing(c, colour_by))
            .map(|drawing| FromSolver {
                drawing,
                phyxels: solver_phyxels,
                surfaces: solver_surfaces,
            });
        self.renderer
            .draw(camera, &frame, from_solver, None)
            .map_err(|e| JsError::new(&e))
    }

    /// Draw particles handed over as x, y, z and a colour value in [0, 1] each (4 floats per particle,
    /// as the 3D fluid page's solver packs them: `SphFluids3d.particles` of phyxel-worker) as shaded
    /// spheres of `radius` (m) over the ground, coloured by value, and the walls' `outline` (4 floats
    /// per point, the fourth unused) as grey spheres of half that radius. An error (GPU failure or
    /// device loss) means this view is unusable: the page opens another.
    pub fn draw_particles(
        &mut self,
        camera: &OrbitCamera,
        data: &[f32],
        radius: f64,
        outline: &[f32],
    ) -> Result<(), JsError> {
        if !data.len().is_multiple_of(4) || !outline.len().is_multiple_of(4) {
            return Err(JsError::new(
                "particles come as x, y, z and a value each: the length must be a multiple of 4",
            ));
        }
        if !(radius.is_finite() && radius > 0.0) {
            return Err(JsError::new(
                "the particles' radius must be a positive number",
            ));
        }
        let frame = FrameData {
            phyxels: data
                .chunks_exact(4)
                .map(|p| [p[0], p[1], p[2], p[3]])
                .collect(),
            phyxel_radius: radius as f32,
            surface_vertices: Vec::new(),
            surface_indices: Vec::new(),
            colouring: Colouring::ByValue,
            obstacles: Vec::new(),
        };
        let outline: Vec<[f32; 4]> = outline
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect();
        self.drew_from_solver = false;
        self.renderer
            .draw(camera, &frame, None, Some((&outline, 0.5 * radius as f32)))
            .map_err(|e| JsError::new(&e))
    }

    /// Whether the last frame drew straight from the GPU solver's buffers (what it showed of the
    /// phyxels and surfaces; obstacles and readouts come from the page's copy).
    pub fn draws_from_solver(&self) -> bool {
        self.drew_from_solver
    }

    /// The GPU failure that stopped this view, if any.
    pub fn failure(&self) -> Option<String> {
        self.renderer.failure()
    }

    /// Destroy the GPU device, as a driver reset would: for testing the fallback.
    pub fn lose_device(&self) {
        self.renderer.lose_device();
    }
}
