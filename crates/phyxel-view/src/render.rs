//! The wgpu renderer of the 3D pages: WebGPU when the browser grants an adapter, WebGL2 otherwise.
//! It draws the ground, phyxels as shaded sphere sprites, the deformed surface meshes and obstacles,
//! and (the 3D fluid page) an outline of the walls as small grey spheres.
//! Shaders: `shaders/render/*.wgsl`.

use crate::camera::OrbitCamera;
use crate::demo::SolverDrawing;
use crate::frame::{FrameData, SURFACE_VERTEX_FLOATS};
use glam::Vec3;
use phyxel_gpu::GpuContext;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24Plus;
/// Bytes per phyxel instance: position and a colour value.
const PHYXEL_STRIDE: u64 = 16;
/// Bytes per surface vertex: position, normal, colour value.
const SURFACE_STRIDE: u64 = 4 * SURFACE_VERTEX_FLOATS as u64;
const CAMERA_BYTES: u64 = 128;

/// A GPU buffer that grows (doubling) when a frame needs more room.
struct GrowingBuffer {
    buffer: wgpu::Buffer,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

impl GrowingBuffer {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 1024,
            usage,
            mapped_at_creation: false,
        });
        Self {
            buffer,
            usage,
            label,
        }
    }

    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let needed = (bytes.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        if needed > self.buffer.size() {
            self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size: needed.next_power_of_two(),
                usage: self.usage,
                mapped_at_creation: false,
            });
        }
        if (bytes.len() as u64).is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT) {
            queue.write_buffer(&self.buffer, 0, bytes);
        } else {
            let mut padded = bytes.to_vec();
            padded.resize(needed as usize, 0);
            queue.write_buffer(&self.buffer, 0, &padded);
        }
    }
}

/// Everything on the GPU side of the 3D view.
pub struct Renderer {
    /// Kept alive with the device: in Chromium, once the adapter's JS object is garbage-collected
    /// the device is lost ("A valid external Instance reference no longer exists").
    instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    depth: wgpu::TextureView,
    backend: wgpu::Backend,
    adapter_name: String,
    ground: wgpu::RenderPipeline,
    surfels: wgpu::RenderPipeline,
    mesh: wgpu::RenderPipeline,
    camera_layout: wgpu::BindGroupLayout,
    /// One camera uniform per draw group: phyxels and surface, then one per obstacle.
    cameras: Vec<(wgpu::Buffer, wgpu::BindGroup)>,
    phyxels: GrowingBuffer,
    obstacles: GrowingBuffer,
    /// Points marking the walls' edges (the 3D fluid page), drawn grey.
    outline: GrowingBuffer,
    surface_vertices: GrowingBuffer,
    surface_indices: GrowingBuffer,
    /// The first uncaptured GPU error or the device-loss message, if any.
    failure: Arc<Mutex<Option<String>>>,
    /// The solver's context on this device (WebGPU only), once asked for.
    solver_context: Option<Rc<GpuContext>>,
}

/// What the solver writes on the renderer's device, and which of it to draw.
pub struct FromSolver<'a> {
    pub drawing: SolverDrawing<'a>,
    pub phyxels: bool,
    /// Draw the solver's surfaces (instead of the frame's).
    pub surfaces: bool,
}

impl Renderer {
    /// Open the canvas with WebGPU (if `allow_webgpu` and the browser grants an adapter) or WebGL2.
    pub async fn new(
        canvas: web_sys::HtmlCanvasElement,
        allow_webgpu: bool,
    ) -> Result<Renderer, String> {
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        // One backend per attempt: a canvas keeps the first kind of context it hands out, so the
        // page retries WebGL2 on a fresh canvas when WebGPU fails.
        descriptor.backends = if allow_webgpu {
            if !wgpu::util::is_browser_webgpu_supported().await {
                return Err("this browser grants no WebGPU adapter".into());
            }
            wgpu::Backends::BROWSER_WEBGPU
        } else {
            wgpu::Backends::GL
        };
        let instance = wgpu::Instance::new(descriptor);
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
            .map_err(|e| format!("the canvas cannot be drawn on: {e}"))?;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: Some(&surface),
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| format!("no graphics adapter: {e}"))?;
        let info = adapter.get_info();
        let limits = if info.backend == wgpu::Backend::Gl {
            wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits())
        } else {
            adapter.limits()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("phyxel renderer"),
                required_limits: limits,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("the graphics device was refused: {e}"))?;
        let failure = phyxel_gpu::watch_failures(&device);
        let mut config = surface
            .get_default_config(&adapter, width, height)
            .ok_or("the canvas and the adapter share no surface format")?;
        let capabilities = surface.get_capabilities(&adapter);
        if capabilities
            .alpha_modes
            .contains(&wgpu::CompositeAlphaMode::Opaque)
        {
            config.alpha_mode = wgpu::CompositeAlphaMode::Opaque;
        }
        surface.configure(&device, &config);
        let depth = depth_view(&device, width, height);
        let camera_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("camera"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(CAMERA_BYTES),
                },
                count: None,
            }],
        });
        let pipelines = Pipelines {
            device: &device,
            layout: device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("render"),
                bind_group_layouts: &[Some(&camera_layout)],
                immediate_size: 0,
            }),
            format: config.format,
        };
        let ground = pipelines.build(
            "ground",
            include_str!("../../../shaders/render/ground.wgsl"),
            &[],
            None,
        );
        let surfels = pipelines.build(
            "surfel",
            include_str!("../../../shaders/render/surfels.wgsl"),
            &[wgpu::VertexBufferLayout {
                array_stride: PHYXEL_STRIDE,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![0 => Float32x4],
            }],
            None,
        );
        let mesh = pipelines.build(
            "surface",
            include_str!("../../../shaders/render/surface.wgsl"),
            &[wgpu::VertexBufferLayout {
                array_stride: SURFACE_STRIDE,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32],
            }],
            None,
        );
        let vertex = wgpu::BufferUsages::VERTEX;
        Ok(Renderer {
            phyxels: GrowingBuffer::new(&device, "phyxels", vertex),
            obstacles: GrowingBuffer::new(&device, "obstacles", vertex),
            outline: GrowingBuffer::new(&device, "outline", vertex),
            surface_vertices: GrowingBuffer::new(&device, "surface vertices", vertex),
            surface_indices: GrowingBuffer::new(
                &device,
                "surface indices",
                wgpu::BufferUsages::INDEX,
            ),
            cameras: Vec::new(),
            backend: info.backend,
            adapter_name: info.name,
            instance,
            adapter,
            device,
            queue,
            surface,
            config,
            depth,
            ground,
            surfels,
            mesh,
            camera_layout,
            failure,
            solver_context: None,
        })
    }

    /// A context for the GPU solver on this renderer's device (WebGPU only; WebGL2 has no compute):
    /// a solver built on it writes buffers this renderer can draw from.
    pub fn solver_context(&mut self) -> Option<Rc<GpuContext>> {
        if self.backend != wgpu::Backend::BrowserWebGpu {
            return None;
        }
        let context = self.solver_context.get_or_insert_with(|| {
            Rc::new(GpuContext::shared(
                self.instance.clone(),
                self.adapter.clone(),
                self.device.clone(),
                self.queue.clone(),
                self.failure.clone(),
            ))
        });
        Some(context.clone())
    }

    /// "WebGPU" or "WebGL2".
    pub fn backend(&self) -> &'static str {
        match self.backend {
            wgpu::Backend::BrowserWebGpu => "WebGPU",
            wgpu::Backend::Gl => "WebGL2",
            _ => "native GPU",
        }
    }

    pub fn adapter_name(&self) -> &str {
        &self.adapter_name
    }

    /// The first GPU error or device loss, if one happened: the page then switches renderer.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().unwrap().clone()
    }

    /// Destroy the device, as a lost GPU would (for testing the fallback).
    pub fn lose_device(&self) {
        self.device.destroy();
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        let (width, height) = (width.clamp(1, 8192), height.clamp(1, 8192));
        if (width, height) != (self.config.width, self.config.height) {
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(&self.device, &self.config);
            self.depth = depth_view(&self.device, width, height);
        }
    }

    /// Draw one frame: what `frame` holds, what the solver wrote on this device (`from_solver`:
    /// no read-back), and an `outline` of points (x, y, z, unused) drawn as grey spheres of its
    /// radius. Skips the frame (without error) when the canvas is not ready.
    pub fn draw(
        &mut self,
        camera: &OrbitCamera,
        frame: &FrameData,
        from_solver: Option<FromSolver>,
        outline: Option<(&[[f32; 4]], f32)>,
    ) -> Result<(), String> {
        if let Some(failure) = self.failure() {
            return Err(failure);
        }
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(())
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(self
                    .failure()
                    .unwrap_or_else(|| "the canvas texture could not be acquired".into()))
            }
        };
        let srgb = self.config.format.is_srgb();
        let mode = frame.colouring as u32 as f32;
        let mut uniforms = vec![camera_uniform(camera, frame.phyxel_radius, mode, srgb)];
        for (_, radius) in &frame.obstacles {
            uniforms.push(camera_uniform(camera, *radius, 2.0, srgb));
        }
        let outline = outline.filter(|(points, _)| !points.is_empty());
        if let Some((_, radius)) = outline {
            uniforms.push(camera_uniform(camera, radius, 2.0, srgb));
        }
        while self.cameras.len() < uniforms.len() {
            let buffer = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("camera"),
                    contents: &[0; CAMERA_BYTES as usize],
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                });
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("camera"),
                layout: &self.camera_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                }],
            });
            self.cameras.push((buffer, group));
        }
        for (uniform, (buffer, _)) in uniforms.iter().zip(&self.cameras) {
            self.queue
                .write_buffer(buffer, 0, bytemuck::cast_slice(uniform));
        }
        let (device, queue) = (&self.device, &self.queue);
        self.phyxels
            .write(device, queue, bytemuck::cast_slice(&frame.phyxels));
        let obstacle_data: Vec<[f32; 4]> = frame
            .obstacles
            .iter()
            .map(|(c, _)| [c.x, c.y, c.z, 0.0])
            .collect();
        self.obstacles
            .write(device, queue, bytemuck::cast_slice(&obstacle_data));
        if let Some((points, _)) = outline {
            self.outline
                .write(device, queue, bytemuck::cast_slice(points));
        }
        self.surface_vertices
            .write(device, queue, bytemuck::cast_slice(&frame.surface_vertices));
        self.surface_indices
            .write(device, queue, bytemuck::cast_slice(&frame.surface_indices));

        let view = texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        let solver_surfaces = from_solver
            .as_ref()
            .filter(|solver| solver.surfaces)
            .and_then(|solver| solver.drawing.surfaces);
        if let Some(solver) = &from_solver {
            let drawing = &solver.drawing;
            drawing
                .instances
                .encode(drawing.context, &mut encoder, drawing.colouring);
            if let Some(surfaces) = solver_surfaces {
                let by_object = frame.colouring == crate::frame::Colouring::ByObject;
                surfaces.encode(drawing.context, &mut encoder, by_object);
            }
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(background(srgb)),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.cameras[0].1, &[]);
            pass.set_pipeline(&self.ground);
            pass.draw(0..6, 0..1);
            if let Some(surfaces) = solver_surfaces {
                pass.set_pipeline(&self.mesh);
                pass.set_vertex_buffer(0, surfaces.vertices.slice(..));
                pass.set_index_buffer(surfaces.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..surfaces.index_count, 0, 0..1);
            } else if !frame.surface_indices.is_empty() {
                pass.set_pipeline(&self.mesh);
                pass.set_vertex_buffer(0, self.surface_vertices.buffer.slice(..));
                pass.set_index_buffer(
                    self.surface_indices.buffer.slice(..),
                    wgpu::IndexFormat::Uint32,
                );
                pass.draw_indexed(0..frame.surface_indices.len() as u32, 0, 0..1);
            }
            pass.set_pipeline(&self.surfels);
            if let Some(solver) = from_solver.as_ref().filter(|solver| solver.phyxels) {
                let instances = solver.drawing.instances;
                pass.set_vertex_buffer(0, instances.buffer.slice(..));
                pass.draw(0..6, 0..instances.count);
            } else if !frame.phyxels.is_empty() {
                pass.set_vertex_buffer(0, self.phyxels.buffer.slice(..));
                pass.draw(0..6, 0..frame.phyxels.len() as u32);
            }
            for k in 0..frame.obstacles.len() {
                pass.set_bind_group(0, &self.cameras[k + 1].1, &[]);
                pass.set_vertex_buffer(0, self.obstacles.buffer.slice(..));
                pass.draw(0..6, k as u32..k as u32 + 1);
            }
            if let Some((points, _)) = outline {
                pass.set_bind_group(0, &self.cameras[frame.obstacles.len() + 1].1, &[]);
                pass.set_vertex_buffer(0, self.outline.buffer.slice(..));
                pass.draw(0..6, 0..points.len() as u32);
            }
        }
        queue.submit([encoder.finish()]);
        queue.present(texture);
        match self.failure() {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }
}

/// The page background, as the target stores it.
fn background(srgb: bool) -> wgpu::Color {
    let c = 0.94f64;
    let c = if srgb { c.powf(2.2) } else { c };
    wgpu::Color {
        r: c,
        g: c,
        b: c + if srgb { 0.02 } else { 0.01 },
        a: 1.0,
    }
}

/// The `Camera` uniform of `shaders/render/camera.wgsl`.
fn camera_uniform(camera: &OrbitCamera, radius: f32, mode: f32, srgb: bool) -> [f32; 32] {
    let mut data = [0f32; 32];
    data[..16].copy_from_slice(&camera.view_projection().as_mat4().to_cols_array());
    let (right, up) = camera.axes();
    let eye = camera.eye().as_vec3();
    let light = Vec3::new(0.4, 1.0, 0.6).normalize();
    data[16..20].copy_from_slice(&right.as_vec3().extend(radius).to_array());
    data[20..24].copy_from_slice(&up.as_vec3().extend(0.0).to_array());
    data[24..28].copy_from_slice(&eye.extend(if srgb { 1.0 } else { 0.0 }).to_array());
    data[28..32].copy_from_slice(&light.extend(mode).to_array());
    data
}

fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

/// What every render pipeline shares.
struct Pipelines<'a> {
    device: &'a wgpu::Device,
    layout: wgpu::PipelineLayout,
    format: wgpu::TextureFormat,
}

impl Pipelines<'_> {
    /// A pipeline from `shaders/render/camera.wgsl` + `source`, with entry points `<name>_vertex` and
    /// `<name>_fragment`.
    fn build(
        &self,
        name: &str,
        source: &str,
        buffers: &[wgpu::VertexBufferLayout],
        cull_mode: Option<wgpu::Face>,
    ) -> wgpu::RenderPipeline {
        let code = format!(
            "{}\n{}",
            include_str!("../../../shaders/render/camera.wgsl"),
            source
        );
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::Wgsl(code.into()),
            });
        let entry = |stage: &str| format!("{name}_{stage}");
        let (vertex_entry, fragment_entry) = (entry("vertex"), entry("fragment"));
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(name),
                layout: Some(&self.layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(&vertex_entry),
                    compilation_options: Default::default(),
                    buffers: &buffers.iter().cloned().map(Some).collect::<Vec<_>>(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(&fragment_entry),
                    compilation_options: Default::default(),
                    targets: &[Some(self.format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}
