//! The GPU: adapter, device and queue, with the adapter's own limits requested.

use std::fmt;
use std::sync::{Arc, Mutex};

/// Why the GPU backend cannot run (the caller continues on the CPU and says why).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuError(pub String);

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GpuError {}

/// A device and its queue, with what the adapter said about itself.
pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    /// The limits granted: the adapter's own (the largest storage binding decides how many phyxels fit).
    pub limits: wgpu::Limits,
    /// Whether the device writes timestamps (per-pass GPU times: [`crate::GpuSolver::profile_step`]).
    pub timestamps: bool,
    /// The first validation error, out-of-memory or device loss: results after it are not trusted.
    failure: Arc<Mutex<Option<String>>>,
    // Kept alive with the device (in browsers a device is lost once its adapter is collected).
    _instance: wgpu::Instance,
    _adapter: wgpu::Adapter,
}

impl GpuContext {
    /// The first adapter the platform offers (natively Vulkan: a discrete GPU, else Mesa lavapipe;
    /// in the browser WebGPU), with all of its limits requested.
    pub async fn new() -> Result<Self, GpuError> {
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        descriptor.backends = if cfg!(target_arch = "wasm32") {
            wgpu::Backends::BROWSER_WEBGPU
        } else {
            wgpu::Backends::VULKAN
        };
        let instance = wgpu::Instance::new(descriptor);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| GpuError(format!("no GPU adapter: {e}")))?;
        let limits = adapter.limits();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("phyxel solver"),
                required_limits: limits.clone(),
                required_features: if timestamps {
                    wgpu::Features::TIMESTAMP_QUERY
                } else {
                    wgpu::Features::empty()
                },
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError(format!("the GPU device was refused: {e}")))?;
        let failure = watch_failures(&device);
        Ok(Self {
            failure,
            device,
            queue,
            adapter: adapter.get_info(),
            limits,
            timestamps,
            _instance: instance,
            _adapter: adapter,
        })
    }

    /// A context on a device someone else opened — the 3D view's, so that the renderer draws from the
    /// solver's buffers — sharing its failure slot (a device reports uncaptured errors to one handler).
    pub fn shared(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        failure: Arc<Mutex<Option<String>>>,
    ) -> Self {
        Self {
            limits: device.limits(),
            timestamps: device.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            adapter: adapter.get_info(),
            failure,
            device,
            queue,
            _instance: instance,
            _adapter: adapter,
        }
    }

    /// The slot the first failure is written to (for futures that outlive a borrow of the context).
    pub fn failure_slot(&self) -> Arc<Mutex<Option<String>>> {
        self.failure.clone()
    }

    /// Destroy the device, as a driver reset would (for testing the fallback to the CPU).
    pub fn lose_device(&self) {
        self.device.destroy();
    }

    /// Err with the first GPU failure (a pipeline or shader error, out of memory, a lost device), if
    /// one happened: the caller then continues on the CPU and says why.
    pub fn check(&self) -> Result<(), GpuError> {
        match self.failure.lock().unwrap().clone() {
            Some(failure) => Err(GpuError(failure)),
            None => Ok(()),
        }
    }
}

/// A slot that the device fills with its first uncaptured error (validation, out of memory) or with
/// the reason it was lost; shared by the solver and the renderer.
pub fn watch_failures(device: &wgpu::Device) -> Arc<Mutex<Option<String>>> {
    let failure = Arc::new(Mutex::new(None));
    let on_error = failure.clone();
    device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
        on_error
            .lock()
            .unwrap()
            .get_or_insert_with(|| format!("GPU error: {error}"));
    }));
    let on_loss = failure.clone();
    device.set_device_lost_callback(move |reason, message| {
        on_loss
            .lock()
            .unwrap()
            .get_or_insert_with(|| format!("the GPU device was lost ({reason:?}): {message}"));
    });
    failure
}

/// `bytes` as B, KiB, MiB or GiB, one decimal.
pub(crate) fn bytes_in_words(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
