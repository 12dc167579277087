//! WebAssembly glue for the 3D phyxel demo ("Elastic, plastic and melting objects"): the renderer,
//! the GPU backend and the page's bindings. Physics lives in the `phyxel` crate and what the demo does
//! with it in `phyxel-app`; this crate only moves data and draws it.
//!
//! Start reading at [`demo`] (the class `PhyxelDemo`: phyxel-app's demo with the GPU backend of
//! [`demo::gpu_backend`] as its accelerator), then `view` (the wgpu view: `render`, [`camera`]) and
//! `gpu` (the GPU device and read-backs as the page drives them); `fluid` is the 3D fluid page's
//! WebGPU solver (`GpuFluid3d`). The renderer exists in the browser only; natively the GPU backend
//! runs on lavapipe in the tests.

pub mod camera;
pub mod demo;
#[cfg(target_arch = "wasm32")]
pub mod fluid;
#[cfg(target_arch = "wasm32")]
pub mod gpu;
#[cfg(target_arch = "wasm32")]
mod render;
#[cfg(target_arch = "wasm32")]
pub mod view;

pub use camera::OrbitCamera;
/// What one frame shows (phyxel-app fills it, `render` draws it).
pub use phyxel_app::frame;
