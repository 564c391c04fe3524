//! Drawing the 3D preview with the GPU eframe renders with (wgpu): the model is drawn into a texture
//! of the viewport's size with a depth buffer and 4× multisampling (when the adapter offers it),
//! flat-shaded by a headlight with its crease edges, and egui shows that texture like any picture.
//! A depth buffer hides what is behind exactly, whatever the model (intersecting shells included),
//! which egui's own painter cannot.
//!
//! The pipelines are made once, the first time a model is shown (not at start: compiling them
//! took time before the app's first frame); [`install`] only keeps the GPU where the preview finds
//! it. Each viewport keeps its
//! model's vertices on the GPU and redraws its texture only when the camera, the size or the style
//! changed. Without wgpu (the glow renderer, the test harness) the preview falls back to
//! [`super::shading`].
//!
//! While a component of an assembly is lit, its triangles (and edges) are put first in the
//! buffers and drawn opaque in the accent colour; the rest follow, drawn blended (see-through)
//! without writing depth, so the lit component shows through whatever is in front of it.

use std::sync::{Arc, OnceLock};

use eframe::egui_wgpu::RenderState;
use eframe::wgpu;
use eframe::wgpu::util::DeviceExt as _;
use egui::Color32;

use super::camera::Camera;
use super::shading::ModelStyle;
use partlens_geometry::edges::NO_FACE;
use partlens_tasks::models::ModelPreview;

/// Colour format of the drawn texture. egui shows a native texture's values as they are (sRGB-encoded
/// colours, like `Color32`), so the texture is plain `Unorm` and the shader writes encoded colours
/// (an sRGB view would encode them a second time).
const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Format of the depth buffer.
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Light that reaches a triangle seen edge-on.
const AMBIENT: f32 = 0.28;

/// Size of the uniform block: a 4×4 matrix and seven vectors.
const UNIFORM_BYTES: u64 = (16 + 7 * 4) * 4;

/// A vertex's mark: nothing is lit.
const MARK_PLAIN: f32 = 0.0;
/// A vertex's mark: of the lit component.
const MARK_LIT: f32 = 1.0;
/// A vertex's mark: faded while another component is lit.
const MARK_FADED: f32 = 2.0;

/// Where the renderer is kept in egui's memory.
fn renderer_id() -> egui::Id {
    egui::Id::unique("partlens.model_view.gpu")
}

/// Keeps the GPU where every viewport finds it when the app runs on wgpu; the renderer is made
/// when [`renderer`] is first asked for it.
pub fn install(cc: &eframe::CreationContext<'_>) {
    if let Some(render_state) = &cc.wgpu_render_state {
        install_on(&cc.egui_ctx, render_state.clone());
    }
}

/// Keeps `render_state` for the viewports drawn with `ctx` (the app at start; the benchmark with a
/// headless device), for a renderer made on first use.
pub fn install_on(ctx: &egui::Context, render_state: RenderState) {
    let lazy = Arc::new(LazyRenderer {
        render_state,
        made: OnceLock::new(),
    });
    ctx.data_mut(|data| data.insert_temp(renderer_id(), lazy));
}

/// The GPU renderer, when the app runs on wgpu; its pipelines are compiled on the first call.
pub fn renderer(ctx: &egui::Context) -> Option<Arc<GpuRenderer>> {
    let lazy = ctx.data(|data| data.get_temp::<Arc<LazyRenderer>>(renderer_id()))?;
    Some(
        lazy.made
            .get_or_init(|| Arc::new(GpuRenderer::new(lazy.render_state.clone())))
            .clone(),
    )
}

/// The GPU, and the renderer once it is made.
struct LazyRenderer {
    render_state: RenderState,
    made: OnceLock<Arc<GpuRenderer>>,
}

/// The pipelines and the device they run on.
pub struct GpuRenderer {
    render_state: RenderState,
    layout: wgpu::BindGroupLayout,
    surface_pipeline: wgpu::RenderPipeline,
    edge_pipeline: wgpu::RenderPipeline,
    /// The same two, blended and not writing depth: what is faded while a component is lit.
    faded_surface_pipeline: wgpu::RenderPipeline,
    faded_edge_pipeline: wgpu::RenderPipeline,
    sample_count: u32,
}

impl std::fmt::Debug for GpuRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuRenderer")
            .field("sample_count", &self.sample_count)
            .finish_non_exhaustive()
    }
}

impl GpuRenderer {
    /// Waits until the GPU has finished what was submitted (the benchmark times whole frames).
    pub fn wait_idle(&self) {
        if let Err(error) = self
            .render_state
            .device
            .poll(wgpu::PollType::wait_indefinitely())
        {
            tracing::warn!("waiting for the GPU failed: {error}");
        }
    }

    /// The adapter in words ("llvmpipe (LLVM 15.0.6, 256 bits), Gl"), for logs and the benchmark.
    pub fn adapter_name(&self) -> String {
        let info = self.render_state.adapter.get_info();
        format!("{}, {:?}", info.name, info.backend)
    }

    /// Multisamples per pixel of the drawn texture.
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    fn new(render_state: RenderState) -> Self {
        let device = &render_state.device;
        let features = render_state
            .adapter
            .get_texture_format_features(COLOR_FORMAT);
        let sample_count = if features.flags.sample_count_supported(4) {
            4
        } else {
            1
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("partlens model"),
            source: wgpu::ShaderSource::Wgsl(include_str!("model.wgsl").into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("partlens model uniforms"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: std::num::NonZeroU64::new(UNIFORM_BYTES),
                },
                count: None,
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("partlens model"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let base = PipelineBase {
            device,
            module: &module,
            layout: &pipeline_layout,
            sample_count,
        };
        let surface_layout = || wgpu::VertexBufferLayout {
            array_stride: 7 * 4,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &SURFACE_ATTRIBUTES,
        };
        let edge_layout = || wgpu::VertexBufferLayout {
            array_stride: 4 * 4,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &EDGE_ATTRIBUTES,
        };
        let surface_shaders = ("vs_surface", "fs_surface");
        let edge_shaders = ("vs_edge", "fs_edge");
        let triangles = wgpu::PrimitiveTopology::TriangleList;
        let lines = wgpu::PrimitiveTopology::LineList;
        let surface_pipeline = base.build(
            "partlens model surface",
            surface_shaders,
            surface_layout(),
            triangles,
            false,
        );
        let edge_pipeline = base.build(
            "partlens model edges",
            edge_shaders,
            edge_layout(),
            lines,
            false,
        );
        let faded_surface_pipeline = base.build(
            "partlens model faded surface",
            surface_shaders,
            surface_layout(),
            triangles,
            true,
        );
        let faded_edge_pipeline = base.build(
            "partlens model faded edges",
            edge_shaders,
            edge_layout(),
            lines,
            true,
        );
        Self {
            render_state,
            layout,
            surface_pipeline,
            edge_pipeline,
            faded_surface_pipeline,
            faded_edge_pipeline,
            sample_count,
        }
    }
}

/// What every pipeline of the model view shares: the device, the shader module, the uniforms'
/// layout and the multisampling.
struct PipelineBase<'a> {
    device: &'a wgpu::Device,
    module: &'a wgpu::ShaderModule,
    layout: &'a wgpu::PipelineLayout,
    sample_count: u32,
}

impl PipelineBase<'_> {
    /// A pipeline drawing `topology` from `buffer` with the `(vertex, fragment)` shaders; a
    /// `faded` one blends over what is drawn and writes no depth.
    fn build(
        &self,
        label: &str,
        (vertex, fragment): (&str, &str),
        buffer: wgpu::VertexBufferLayout<'_>,
        topology: wgpu::PrimitiveTopology,
        faded: bool,
    ) -> wgpu::RenderPipeline {
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(self.layout),
                vertex: wgpu::VertexState {
                    module: self.module,
                    entry_point: Some(vertex),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[Some(buffer)],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    cull_mode: None,
                    ..wgpu::PrimitiveState::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(!faded),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: self.sample_count,
                    mask: !0,
                    alpha_to_coverage_enabled: false,
                },
                fragment: Some(wgpu::FragmentState {
                    module: self.module,
                    entry_point: Some(fragment),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        // Faded colours come premultiplied; over the opaque clear the alpha stays 1.
                        blend: faded.then_some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

/// A surface vertex: position, face normal, mark.
const SURFACE_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32];

/// An edge's end: position, mark.
const EDGE_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32];

/// A model's vertices on the GPU: three corners with the face normal and mark per triangle, two
/// ends per edge; what is drawn opaque first, what is faded after it.
struct GpuModel {
    /// The preview they were made from (by address), and the lit flags (by address, 0: none).
    model: (usize, usize),
    surface: wgpu::Buffer,
    surface_vertices: u32,
    /// The surface vertices drawn opaque (the rest are faded).
    opaque_surface_vertices: u32,
    edges: wgpu::Buffer,
    edge_vertices: u32,
    /// The edge vertices drawn opaque (the rest are faded).
    opaque_edge_vertices: u32,
}

/// The texture a viewport is drawn into, with its depth (and multisampled) buffers.
struct Target {
    size: [u32; 2],
    resolved: wgpu::TextureView,
    multisampled: Option<wgpu::TextureView>,
    depth: wgpu::TextureView,
    texture_id: egui::TextureId,
}

/// One viewport's GPU state: its model's buffers, its uniforms and its texture.
pub struct GpuView {
    renderer: Arc<GpuRenderer>,
    model: Option<GpuModel>,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    target: Option<Target>,
}

impl std::fmt::Debug for GpuView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuView")
            .field("size", &self.target.as_ref().map(|target| target.size))
            .finish_non_exhaustive()
    }
}

impl Drop for GpuView {
    fn drop(&mut self) {
        if let Some(target) = self.target.take() {
            self.renderer
                .render_state
                .renderer
                .write()
                .free_texture(&target.texture_id);
        }
    }
}

impl GpuView {
    /// A viewport's state on `renderer`.
    pub fn new(renderer: Arc<GpuRenderer>) -> Self {
        let device = &renderer.render_state.device;
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("partlens model uniforms"),
            size: UNIFORM_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("partlens model uniforms"),
            layout: &renderer.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            }],
        });
        Self {
            renderer,
            model: None,
            uniforms,
            bind_group,
            target: None,
        }
    }

    /// Draws `preview` seen by `camera` into a texture of `size` pixels and returns it for egui;
    /// the triangles `lit` marks (one flag a triangle) lit, the rest faded.
    pub fn draw(
        &mut self,
        preview: &Arc<ModelPreview>,
        camera: &Camera,
        size: [u32; 2],
        style: &ModelStyle,
        lit: Option<&[bool]>,
        background: Color32,
    ) -> egui::TextureId {
        let lit = lit.filter(|lit| lit.len() == preview.mesh.triangles.len());
        let model_address = (
            Arc::as_ptr(preview) as usize,
            lit.map_or(0, |lit| lit.as_ptr() as usize),
        );
        if self.model.as_ref().map(|model| model.model) != Some(model_address) {
            self.model = Some(self.upload(preview, model_address, lit));
        }
        let max_side = self
            .renderer
            .render_state
            .device
            .limits()
            .max_texture_dimension_2d;
        let size = size.map(|side| side.clamp(1, max_side));
        if self.target.as_ref().map(|target| target.size) != Some(size) {
            self.resize(size);
        }
        let aspect = size[0] as f32 / size[1] as f32;
        let bytes = uniform_bytes(camera, aspect, style);
        let render_state = &self.renderer.render_state;
        render_state.queue.write_buffer(&self.uniforms, 0, &bytes);
        let (Some(target), Some(model)) = (&self.target, &self.model) else {
            return egui::TextureId::default();
        };
        let mut encoder =
            render_state
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("partlens model"),
                });
        {
            let clear = background
                .to_array()
                .map(|channel| f64::from(channel) / 255.0);
            let (view, resolve_target) = match &target.multisampled {
                Some(multisampled) => (multisampled, Some(&target.resolved)),
                None => (&target.resolved, None),
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("partlens model"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: clear[0],
                            g: clear[1],
                            b: clear[2],
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &target.depth,
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
            pass.set_bind_group(0, &self.bind_group, &[]);
            let renderer = &self.renderer;
            pass.set_vertex_buffer(0, model.surface.slice(..));
            pass.set_pipeline(&renderer.surface_pipeline);
            pass.draw(0..model.opaque_surface_vertices, 0..1);
            let draw_edges = style.edges && model.edge_vertices > 0;
            if draw_edges {
                pass.set_vertex_buffer(0, model.edges.slice(..));
                pass.set_pipeline(&renderer.edge_pipeline);
                pass.draw(0..model.opaque_edge_vertices, 0..1);
            }
            // What is faded, blended over what is drawn, after it.
            if model.opaque_surface_vertices < model.surface_vertices {
                pass.set_vertex_buffer(0, model.surface.slice(..));
                pass.set_pipeline(&renderer.faded_surface_pipeline);
                pass.draw(model.opaque_surface_vertices..model.surface_vertices, 0..1);
            }
            if draw_edges && model.opaque_edge_vertices < model.edge_vertices {
                pass.set_vertex_buffer(0, model.edges.slice(..));
                pass.set_pipeline(&renderer.faded_edge_pipeline);
                pass.draw(model.opaque_edge_vertices..model.edge_vertices, 0..1);
            }
        }
        render_state.queue.submit([encoder.finish()]);
        target.texture_id
    }

    /// Puts the preview's triangles (with their face normals and marks) and edges on the GPU:
    /// while `lit` marks triangles, the lit ones (and their edges) first.
    fn upload(
        &self,
        preview: &ModelPreview,
        model_address: (usize, usize),
        lit: Option<&[bool]>,
    ) -> GpuModel {
        let mesh = &preview.mesh;
        let is_lit =
            |face: u32| lit.is_none_or(|lit| lit.get(face as usize).copied().unwrap_or(false));
        let (opaque_mark, faded_mark) = match lit {
            Some(_) => (MARK_LIT, MARK_FADED),
            None => (MARK_PLAIN, MARK_PLAIN),
        };
        let mut surface = Vec::with_capacity(mesh.triangles.len() * 3 * 7 * 4);
        let mut opaque_surface_vertices = 0;
        for opaque in [true, false] {
            let mark = if opaque { opaque_mark } else { faded_mark };
            for (face, (triangle, normal)) in
                mesh.triangles.iter().zip(&preview.normals).enumerate()
            {
                if is_lit(face as u32) != opaque {
                    continue;
                }
                for &corner in triangle {
                    let values = mesh.vertices[corner as usize].iter().chain(normal);
                    for value in values.chain([&mark]) {
                        surface.extend_from_slice(&value.to_le_bytes());
                    }
                }
            }
            if opaque {
                opaque_surface_vertices = (surface.len() / (7 * 4)) as u32;
            }
        }
        let mut edges = Vec::with_capacity(preview.edges.len() * 2 * 4 * 4);
        let mut opaque_edge_vertices = 0;
        for opaque in [true, false] {
            let mark = if opaque { opaque_mark } else { faded_mark };
            for edge in &preview.edges {
                let edge_lit = edge
                    .faces
                    .iter()
                    .any(|&face| face != NO_FACE && is_lit(face));
                if edge_lit != opaque {
                    continue;
                }
                for &end in &edge.vertices {
                    for value in mesh.vertices[end as usize].iter().chain([&mark]) {
                        edges.extend_from_slice(&value.to_le_bytes());
                    }
                }
            }
            if opaque {
                opaque_edge_vertices = (edges.len() / (4 * 4)) as u32;
            }
        }
        // Buffers may not be empty.
        for bytes in [&mut surface, &mut edges] {
            if bytes.is_empty() {
                bytes.resize(12, 0);
            }
        }
        let device = &self.renderer.render_state.device;
        let buffer = |label: &str, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::VERTEX,
            })
        };
        GpuModel {
            model: model_address,
            surface: buffer("partlens model surface", &surface),
            surface_vertices: (mesh.triangles.len() * 3) as u32,
            opaque_surface_vertices,
            edges: buffer("partlens model edges", &edges),
            edge_vertices: (preview.edges.len() * 2) as u32,
            opaque_edge_vertices,
        }
    }

    /// Makes the texture (and depth and multisampled buffers) for a viewport of `size` pixels.
    fn resize(&mut self, size: [u32; 2]) {
        let render_state = &self.renderer.render_state;
        let device = &render_state.device;
        let texture = |label: &str, format, sample_count, usage| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: size[0],
                        height: size[1],
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        let samples = self.renderer.sample_count;
        let resolved = texture(
            "partlens model picture",
            COLOR_FORMAT,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let multisampled = (samples > 1).then(|| {
            texture(
                "partlens model samples",
                COLOR_FORMAT,
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
        });
        let depth = texture(
            "partlens model depth",
            DEPTH_FORMAT,
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let mut egui_renderer = render_state.renderer.write();
        let texture_id = match &self.target {
            Some(old) => {
                egui_renderer.update_egui_texture_from_wgpu_texture(
                    device,
                    &resolved,
                    wgpu::FilterMode::Linear,
                    old.texture_id,
                );
                old.texture_id
            }
            None => {
                egui_renderer.register_native_texture(device, &resolved, wgpu::FilterMode::Linear)
            }
        };
        drop(egui_renderer);
        self.target = Some(Target {
            size,
            resolved,
            multisampled,
            depth,
            texture_id,
        });
    }
}

/// The uniform block: the orthographic clip transform of `camera` for a viewport of this width /
/// height, the light direction, the colours and the edge pull.
fn uniform_bytes(camera: &Camera, aspect: f32, style: &ModelStyle) -> Vec<u8> {
    let basis = camera.basis();
    let half_height = camera.half_height.max(f32::MIN_POSITIVE);
    let half_width = half_height * aspect.max(f32::MIN_POSITIVE);
    // Depth covers a generous slab around the target, so panning and zooming never clip the model.
    let depth_range = camera.fitted_half_height * 8.0;
    let target = camera.target;
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let rows = [
        basis.right.map(|value| value / half_width),
        basis.up.map(|value| value / half_height),
        basis
            .toward_viewer
            .map(|value| -value / (2.0 * depth_range)),
    ];
    let offsets = [
        -dot(target, basis.right) / half_width,
        -dot(target, basis.up) / half_height,
        0.5 + dot(target, basis.toward_viewer) / (2.0 * depth_range),
    ];
    // Column-major, as WGSL reads a mat4x4.
    let mut matrix = [[0.0_f32; 4]; 4];
    for (row, (direction, offset)) in rows.iter().zip(offsets).enumerate() {
        for column in 0..3 {
            matrix[column][row] = direction[column];
        }
        matrix[3][row] = offset;
    }
    matrix[3][3] = 1.0;
    let gamma = |color: Color32| color.to_array().map(|channel| f32::from(channel) / 255.0);
    let surface = gamma(style.surface);
    let edge = gamma(style.edge);
    let accent = gamma(style.accent);
    let values: Vec<f32> = matrix
        .iter()
        .flatten()
        .copied()
        .chain([
            basis.toward_viewer[0],
            basis.toward_viewer[1],
            basis.toward_viewer[2],
            0.0,
        ])
        .chain([surface[0], surface[1], surface[2], 1.0])
        .chain([edge[0], edge[1], edge[2], 1.0])
        // Edges are pulled toward the viewer by a small part of the depth slab.
        .chain([AMBIENT, 2e-4, 0.0, 0.0])
        .chain([accent[0], accent[1], accent[2], 1.0])
        // Color32 is premultiplied already, as the blending takes it.
        .chain(gamma(style.faded))
        .chain(gamma(style.faded_edge))
        .collect();
    values
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}
