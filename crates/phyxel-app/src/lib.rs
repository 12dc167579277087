//! # phyxel-app
//!
//! The 3D demo "Elastic, plastic and melting objects" as an application, with no WebAssembly in it:
//! it builds and tests natively. Physics lives in the `phyxel` crate; this crate decides what the
//! demo does with it — which scene, which settings, what a drag or the heat tool does, what a frame
//! shows.
//!
//! Start reading at [`demo`] ([`Demo`]: the scene, its settings, stepping — on the CPU, or on an
//! [`Accelerator`] such as phyxel-view's GPU backend — the pointer's tools and the readouts), then
//! [`parameters`] (the numbers the page sets and the ranges the demo accepts, one table) and
//! [`frame`] (what one frame shows, for the renderer).
//!
//! The JavaScript classes are thin wrappers written once in `phyxel-bindings` and exported by
//! `phyxel-view` (the page's module, with the renderer and the GPU backend) and `phyxel-worker` (the
//! CPU solver's Web Worker).

pub mod demo;
pub mod frame;
pub mod parameters;

pub use demo::{Accelerator, BatchLoads, CpuOnly, CutChange, Demo, DemoError};
