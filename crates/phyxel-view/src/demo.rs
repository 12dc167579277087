//! The "Elastic, plastic and melting objects" demo as the page drives it: the class [`PhyxelDemo`]
//! (phyxel-bindings' class around [`phyxel_app::Demo`]) with this module's GPU backend
//! ([`gpu_backend`]) as its accelerator. The page's GPU methods are bound in `crate::gpu`.

pub mod gpu_backend;

use gpu_backend::GpuBackend;
pub use gpu_backend::SolverDrawing;
use phyxel_app::frame::FrameData;
use phyxel_gpu::{GpuContext, GpuError, GpuState};
use std::rc::Rc;

phyxel_bindings::phyxel_demo_class!(GpuBackend);

/// What the view and the page's GPU bindings use (Rust only).
impl PhyxelDemo {
    /// What the renderer draws ([`phyxel_app::Demo::frame_data`]).
    pub fn frame_data(&self, colour_by: &str) -> Result<FrameData, String> {
        self.demo.frame_data(colour_by)
    }

    /// Only the parts to be drawn ([`phyxel_app::Demo::frame`]).
    pub fn frame(
        &self,
        colour_by: &str,
        with_phyxels: bool,
        with_surfaces: bool,
    ) -> Result<FrameData, String> {
        self.demo.frame(colour_by, with_phyxels, with_surfaces)
    }

    /// Step on `context`'s device from the current state ([`gpu_backend::attach`]).
    pub fn attach_gpu(&mut self, context: Rc<GpuContext>) -> Result<(), String> {
        gpu_backend::attach(&mut self.demo, context)
    }

    /// The GPU solver's buffers for a view on `view_context`'s device ([`gpu_backend::drawing`]).
    pub fn gpu_drawing(
        &mut self,
        view_context: &Rc<GpuContext>,
        colour_by: &str,
    ) -> Option<SolverDrawing<'_>> {
        gpu_backend::drawing(&mut self.demo, view_context, colour_by)
    }

    /// The state on the GPU, read back ([`gpu_backend::read_state`]).
    pub fn gpu_state(
        &mut self,
    ) -> Option<impl std::future::Future<Output = Result<GpuState, GpuError>> + 'static> {
        gpu_backend::read_state(&mut self.demo)
    }

    /// Take a read-back into the simulation ([`gpu_backend::apply_state`]).
    pub fn apply_gpu_state(&mut self, state: Result<GpuState, GpuError>) -> Result<(), String> {
        gpu_backend::apply_state(&mut self.demo, state)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod gpu_tests;
