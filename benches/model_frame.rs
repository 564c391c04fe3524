//! Frame time of the 3D preview at a million triangles, next to an empty frame measured in the same
//! run: the sample gear's STL subdivided to 1.2 M triangles (a closed part with creases, like a fine
//! CAD export), shown the way the app shows it (reduced to `DISPLAY_TRIANGLES` when it is read) while
//! the user turns it (the mesh is rebuilt every frame) and while it stands still (the painted mesh is
//! reused); and, for scale, the same model drawn without the reduction.
//!
//! Two renderers, as the app has them. GPU (what the app draws with on wgpu): a headless wgpu device
//! (on the build machine llvmpipe, a CPU rasteriser, so this is the slowest GPU there is); a frame is
//! `Context::run` with the viewport, its render pass submitted, the tessellation of the frame's
//! shapes, and the wait until the GPU has finished. CPU painter (the fallback without wgpu): a frame
//! is `Context::run` with the viewport (projection, shading, back-to-front sort, the egui mesh) and
//! the tessellation. 1280×800 points at one pixel a point. Also the one-time cost of reading:
//! reducing the mesh and finding its edges. Run with `cargo bench -p partlens --bench model_frame`; it prints
//! markdown tables.

use std::sync::Arc;
use std::time::{Duration, Instant};

use partlens::ui::model_view::ModelView;
use partlens::ui::model_view::gpu;
use partlens_geometry::{Mesh, read_mesh};
use partlens_tasks::models::{DISPLAY_TRIANGLES, ModelPreview};

/// Window size of the measured frames.
const SCREEN: [f32; 2] = [1280.0, 800.0];

/// Frames run before measuring.
const WARM_UP_FRAMES: usize = 10;

fn raw_input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SCREEN[0], SCREEN[1]),
        )),
        ..Default::default()
    }
}

/// Each triangle split into four through its edge midpoints (shared, so the surface stays closed).
fn subdivided(mesh: &Mesh) -> Mesh {
    let mut vertices = mesh.vertices.clone();
    let mut midpoints = std::collections::HashMap::new();
    let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<[f32; 3]>| -> u32 {
        *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
            let [p, q] = [vertices[a as usize], vertices[b as usize]];
            vertices.push([0, 1, 2].map(|k| (p[k] + q[k]) / 2.0));
            (vertices.len() - 1) as u32
        })
    };
    let mut triangles = Vec::with_capacity(mesh.triangles.len() * 4);
    for &[a, b, c] in &mesh.triangles {
        let ab = midpoint(a, b, &mut vertices);
        let bc = midpoint(b, c, &mut vertices);
        let ca = midpoint(c, a, &mut vertices);
        triangles.extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
    }
    Mesh {
        vertices,
        triangles,
    }
}

struct Timing {
    median: Duration,
    p95: Duration,
}

fn time_frames(frames: usize, mut frame: impl FnMut()) -> Timing {
    for _ in 0..WARM_UP_FRAMES.min(frames) {
        frame();
    }
    let mut times: Vec<Duration> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            frame();
            start.elapsed()
        })
        .collect();
    times.sort();
    Timing {
        median: times[times.len() / 2],
        p95: times[(times.len() * 95 / 100).min(times.len() - 1)],
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// One frame with the viewport filling the window; `turn` orbits the camera first.
fn frame(ctx: &egui::Context, view: &mut ModelView, preview: &Arc<ModelPreview>, turn: bool) {
    if turn {
        view.orbit(egui::vec2(3.0, 0.5));
    }
    let mut output = ctx.run_ui(raw_input(), |ui| {
        let size = ui.available_size();
        std::hint::black_box(view.viewport_ui(ui, preview, size));
    });
    let shapes = std::mem::take(&mut output.shapes);
    std::hint::black_box(ctx.tessellate(shapes, output.pixels_per_point));
    output.drop_without_applying_deltas();
}

/// A headless wgpu device like the one eframe renders with (`None` when this machine has none).
fn headless_render_state() -> Option<eframe::egui_wgpu::RenderState> {
    let setup = eframe::egui_wgpu::WgpuSetup::without_display_handle();
    let runtime = tokio::runtime::Builder::new_current_thread().build().ok()?;
    runtime.block_on(async {
        let instance = setup.new_instance().await;
        eframe::egui_wgpu::RenderState::create(
            &eframe::egui_wgpu::WgpuConfiguration {
                wgpu_setup: setup,
                ..Default::default()
            },
            &instance,
            None,
            eframe::egui_wgpu::RendererOptions::default(),
        )
        .await
        .ok()
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/samples/models/gear.stl");
    let bytes = std::fs::read(&path)?;
    let gear = read_mesh(".stl", &bytes)?;
    let mut large = gear.clone();
    while large.triangles.len() < 1_000_000 {
        large = subdivided(&large);
    }

    let ctx = egui::Context::default();
    let empty = time_frames(300, || {
        let output = ctx.run_ui(raw_input(), |_ui| {});
        std::hint::black_box(ctx.tessellate(output.shapes, output.pixels_per_point));
    });

    // The one-time preparation when a model is read (reduction, normals, edges, measurements).
    let mut prepare_times = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        std::hint::black_box(ModelPreview::prepare(
            "large",
            "bench",
            &large,
            DISPLAY_TRIANGLES,
        )?);
        prepare_times.push(start.elapsed());
    }
    prepare_times.sort();

    let small = Arc::new(ModelPreview::prepare(
        "gear",
        "bench",
        &gear,
        DISPLAY_TRIANGLES,
    )?);
    let reduced = Arc::new(ModelPreview::prepare(
        "large",
        "bench",
        &large,
        DISPLAY_TRIANGLES,
    )?);
    let full = Arc::new(ModelPreview::prepare("large", "bench", &large, usize::MAX)?);

    let mut gpu_rows = Vec::new();
    let mut adapter = "none".to_owned();
    if let Some(render_state) = headless_render_state() {
        let gpu_ctx = egui::Context::default();
        gpu::install_on(&gpu_ctx, render_state);
        if let Some(renderer) = gpu::renderer(&gpu_ctx) {
            adapter = format!(
                "{}, {}× multisampling",
                renderer.adapter_name(),
                renderer.sample_count()
            );
            let gpu_cases: [(&str, &Arc<ModelPreview>, usize); 3] = [
                ("sample gear, turning", &small, 100),
                ("1.2 M model reduced for display, turning", &reduced, 100),
                ("1.2 M model drawn whole, turning", &full, 20),
            ];
            for (name, preview, frames) in gpu_cases {
                let mut view = ModelView::new();
                frame(&gpu_ctx, &mut view, preview, false);
                renderer.wait_idle();
                let timing = time_frames(frames, || {
                    frame(&gpu_ctx, &mut view, preview, true);
                    renderer.wait_idle();
                });
                gpu_rows.push(format!(
                    "| {name} | {} | {} | {:.2} | {:.2} |",
                    partlens::ui::results::thousands(preview.measurements.triangles as u64),
                    partlens::ui::results::thousands(preview.mesh.triangles.len() as u64),
                    ms(timing.median),
                    ms(timing.p95),
                ));
            }
        }
    }

    let mut rows = Vec::new();
    let cases: [(&str, &Arc<ModelPreview>, bool, usize); 4] = [
        ("sample gear, turning", &small, true, 300),
        (
            "1.2 M model reduced for display, turning",
            &reduced,
            true,
            300,
        ),
        (
            "1.2 M model reduced for display, still",
            &reduced,
            false,
            300,
        ),
        ("1.2 M model drawn whole, turning", &full, true, 20),
    ];
    for (name, preview, turn, frames) in cases {
        let mut view = ModelView::new();
        // The first frame fits the camera.
        frame(&ctx, &mut view, preview, false);
        let timing = time_frames(frames, || frame(&ctx, &mut view, preview, turn));
        rows.push(format!(
            "| {name} | {} | {} | {:.2} | {:.2} | {:.0}× |",
            partlens::ui::results::thousands(preview.measurements.triangles as u64),
            partlens::ui::results::thousands(preview.mesh.triangles.len() as u64),
            ms(timing.median),
            ms(timing.p95),
            timing.median.as_secs_f64() / empty.median.as_secs_f64().max(1e-9),
        ));
    }

    println!(
        "3D preview on the GPU ({adapter}), one frame at {}×{} points until the GPU is done \
         (100 frames, 20 for the whole model):\n",
        SCREEN[0], SCREEN[1]
    );
    println!("| case | model triangles | drawn triangles | median ms | p95 ms |");
    println!("|---|---|---|---|---|");
    for row in gpu_rows {
        println!("{row}");
    }
    println!(
        "\nThe CPU painter (without wgpu), one frame at {}×{} points, CPU time (300 frames, 20 for \
         the whole model):\n",
        SCREEN[0], SCREEN[1]
    );
    println!("| case | model triangles | drawn triangles | median ms | p95 ms | × empty frame |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| empty frame | – | – | {:.3} | {:.3} | 1× |",
        ms(empty.median),
        ms(empty.p95)
    );
    for row in rows {
        println!("{row}");
    }
    println!(
        "\nPreparing the 1.2 M model once it is read (reduce to {}, normals, edges, measurements): \
         median {:.0} ms of 3 runs; it keeps {} triangles and {} edges.",
        partlens::ui::results::thousands(DISPLAY_TRIANGLES as u64),
        ms(prepare_times[1]),
        partlens::ui::results::thousands(reduced.mesh.triangles.len() as u64),
        partlens::ui::results::thousands(reduced.edges.len() as u64),
    );
    Ok(())
}
