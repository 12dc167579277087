//! The GPU backend as the page drives it: a device (created asynchronously), and read-backs that
//! resolve as promises while the page keeps drawing the last state it has.

use crate::demo::PhyxelDemo;
use phyxel_gpu::{GpuContext, GpuError, GpuState};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A WebGPU device for the solver.
#[wasm_bindgen]
pub struct GpuDevice {
    context: Rc<GpuContext>,
}

#[wasm_bindgen]
impl GpuDevice {
    /// The browser's WebGPU adapter and device, with the adapter's limits; fails with the reason.
    pub async fn create() -> Result<GpuDevice, JsError> {
        GpuContext::new()
            .await
            .map(|context| GpuDevice {
                context: Rc::new(context),
            })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    pub fn adapter(&self) -> String {
        self.context.adapter.name.clone()
    }

    /// Destroy the device, as a driver reset would: for testing the fallback to the CPU.
    pub fn lose(&self) {
        self.context.lose_device();
    }
}

/// One read-back of the GPU's state, to hand to [`PhyxelDemo::apply_gpu_readback`].
#[wasm_bindgen]
pub struct GpuReadback {
    state: Option<Result<GpuState, GpuError>>,
}

#[wasm_bindgen]
impl PhyxelDemo {
    /// Step on `device` from now on (refused, with the reason, for what the GPU does not mirror).
    pub fn use_gpu(&mut self, device: &GpuDevice) -> Result<(), JsError> {
        self.attach_gpu(device.context.clone())
            .map_err(|e| JsError::new(&e))
    }

    /// A promise of the GPU's current state, or undefined when one is already on its way (or the
    /// demo steps on the CPU).
    pub fn gpu_read_back(&mut self) -> Option<js_sys::Promise> {
        let future = self.gpu_state()?;
        Some(wasm_bindgen_futures::future_to_promise(async move {
            Ok(JsValue::from(GpuReadback {
                state: Some(future.await),
            }))
        }))
    }

    /// Take a read-back into the simulation; an error means the demo went back to the CPU (why).
    pub fn apply_gpu_readback(&mut self, readback: &mut GpuReadback) -> Result<(), JsError> {
        match readback.state.take() {
            Some(state) => self.apply_gpu_state(state).map_err(|e| JsError::new(&e)),
            None => Ok(()),
        }
    }
}
