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
    shared: bool,
}

impl GpuDevice {
    /// The device's context, for a solver built on it.
    pub(crate) fn context(&self) -> Rc<GpuContext> {
        self.context.clone()
    }

    /// The 3D view's device, for the solver.
    pub(crate) fn from_context(context: Rc<GpuContext>) -> Self {
        Self {
            context,
            shared: true,
        }
    }
}

#[wasm_bindgen]
impl GpuDevice {
    /// The browser's WebGPU adapter and device, with the adapter's limits; fails with the reason.
    pub async fn create() -> Result<GpuDevice, JsError> {
        GpuContext::new()
            .await
            .map(|context| GpuDevice {
                context: Rc::new(context),
                shared: false,
            })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    pub fn adapter(&self) -> String {
        self.context.adapter.name.clone()
    }

    /// Whether this device is the 3D view's own (the solver's phyxels are then drawn from its buffers).
    pub fn shared_with_view(&self) -> bool {
        self.shared
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

/// The benchmark cube (`phyxel::meshless::scene::benchmark_cube`) on the GPU, for the bench page.
#[wasm_bindgen]
pub struct GpuBenchCube {
    context: Rc<GpuContext>,
    solver: phyxel_gpu::GpuSolver,
    phyxels: usize,
    interactions: usize,
    dt: f64,
}

#[wasm_bindgen]
impl GpuBenchCube {
    /// n × n × n phyxels on `device`, 2 ≤ n ≤ 100.
    #[wasm_bindgen(constructor)]
    pub fn new(device: &GpuDevice, n: f64) -> Result<GpuBenchCube, JsError> {
        let n = phyxel_bindings::whole("n (phyxels across the benchmark cube)", n, 2.0, 100.0)?;
        let sim = phyxel::meshless::scene::benchmark_cube(n as usize);
        let solver = phyxel_gpu::GpuSolver::new(&device.context, &sim)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(GpuBenchCube {
            context: device.context.clone(),
            solver,
            phyxels: sim.body.len(),
            interactions: sim.body.neighbours.neighbour.len(),
            dt: sim.recommended_time_step(),
        })
    }

    pub fn phyxels(&self) -> usize {
        self.phyxels
    }

    pub fn neighbour_interactions(&self) -> usize {
        self.interactions
    }

    /// Queue `steps` steps and wait until the GPU has done them (their state read back); resolves to
    /// the displacements as x, y, z triples, or rejects on a blow-up or a GPU failure.
    pub fn run(&mut self, steps: f64) -> js_sys::Promise {
        let steps = match phyxel_bindings::whole(
            "steps",
            steps,
            0.0,
            phyxel_bindings::MAX_STEPS_PER_CALL,
        ) {
            Ok(steps) => steps as u32,
            Err(error) => return js_sys::Promise::reject(&error.into()),
        };
        if !self.solver.step(&self.context, self.dt, steps) {
            return js_sys::Promise::reject(
                &JsError::new("the GPU is still busy with earlier steps").into(),
            );
        }
        let state = self.solver.read_state(&self.context);
        wasm_bindgen_futures::future_to_promise(async move {
            let state = state
                .await
                .map_err(|e| JsValue::from(JsError::new(&e.to_string())))?;
            if state.blown_up {
                return Err(JsError::new("the GPU run blew up").into());
            }
            Ok(JsValue::from(js_sys::Float64Array::from(
                state
                    .displacement
                    .iter()
                    .flat_map(|u| u.to_array())
                    .collect::<Vec<_>>()
                    .as_slice(),
            )))
        })
    }
}
