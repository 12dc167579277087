//! The 3D view of the phyxel demo: [`PhyxelDemo`] drawn on a canvas with wgpu.

use crate::camera::OrbitCamera;
use crate::demo::PhyxelDemo;
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
            .draw(camera, &frame, from_solver)
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
