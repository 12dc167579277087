//! The GPU: adapter, device and queue, with the adapter's own limits requested.

use std::fmt;

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
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("phyxel solver"),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError(format!("the GPU device was refused: {e}")))?;
        Ok(Self {
            device,
            queue,
            adapter: adapter.get_info(),
            limits,
            _instance: instance,
            _adapter: adapter,
        })
    }
}
