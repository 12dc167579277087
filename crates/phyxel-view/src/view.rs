//! The 3D view of the phyxel demo: [`PhyxelDemo`] drawn on a canvas with wgpu.

use crate::camera::OrbitCamera;
use crate::demo::PhyxelDemo;
use crate::render::Renderer;
use wasm_bindgen::prelude::*;

/// The 3D view of a [`PhyxelDemo`] on a canvas, drawn with wgpu (WebGPU or WebGL2).
#[wasm_bindgen]
pub struct PhyxelView {
    renderer: Renderer,
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
            .map(|renderer| PhyxelView { renderer })
            .map_err(|e| JsError::new(&e))
    }

    /// "WebGPU" or "WebGL2".
    pub fn backend(&self) -> String {
        self.renderer.backend().into()
    }

    pub fn adapter(&self) -> String {
        self.renderer.adapter_name().into()
    }

    /// Match the drawing buffer to the canvas size in device pixels.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.renderer.resize(width, height);
    }

    /// Draw the demo's current state. An error (GPU failure or device loss) means this view is
    /// unusable: the page opens another.
    pub fn draw(
        &mut self,
        demo: &PhyxelDemo,
        camera: &OrbitCamera,
        colour_by: &str,
        show_phyxels: bool,
        show_surface: bool,
    ) -> Result<(), JsError> {
        let mut frame = demo.frame_data(colour_by).map_err(|e| JsError::new(&e))?;
        if !show_phyxels {
            frame.phyxels.clear();
        }
        if show_surface {
            // Drawn with the surface, the phyxels inside it are smaller: they mark the lattice.
            frame.phyxel_radius *= 0.25;
        } else {
            frame.surface_vertices.clear();
            frame.surface_indices.clear();
        }
        self.renderer
            .draw(camera, &frame)
            .map_err(|e| JsError::new(&e))
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
