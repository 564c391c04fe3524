//! What the app's frame benches share: a headless frame of a fixed window, its tessellation, the
//! percentiles of the frames' times, a thumbnail-size texture standing in for a picture that came
//! in, and the baseline every place is measured against: the results at 10,000 scrolled with the
//! wheel (the `results_frame` bench's case). Included by `#[path]` from each bench.

// Each bench uses part of it.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use partlens::ui::app_command::CommandQueue;
use partlens::ui::results::calibration::QueryKind;
use partlens::ui::results::{ResultRow, ResultsLayout, ResultsView};
use partlens::ui::texture_cache::{DEFAULT_BUDGET_BYTES, TextureCache};
use partlens_api::{Attribute, FileUid};

/// Window size of the measured frames (the results_frame bench's).
pub const SCREEN: [f32; 2] = [1280.0, 800.0];

/// Thumbnail size of the fake textures (the decoder's longest side, 4:3).
pub const THUMBNAIL: [usize; 2] = [256, 192];

/// Frames measured while scrolling.
pub const SCROLL_FRAMES: usize = 600;

/// Frames run before the measured ones (the view settles, its first answers come in).
pub const WARM_UP_FRAMES: usize = 30;

/// The input of one frame of the window, with `events`.
pub fn raw_input(events: Vec<egui::Event>) -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SCREEN[0], SCREEN[1]),
        )),
        events,
        ..Default::default()
    }
}

/// The mouse wheel turned down by `points`.
pub fn wheel_down(points: f32) -> egui::Event {
    egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -points),
        phase: egui::TouchPhase::Move,
        modifiers: egui::Modifiers::NONE,
        source: egui::MouseWheelSource::Wheel,
    }
}

/// What an integration does with a frame's output on the CPU: tessellate the shapes.
pub fn finish_frame(ctx: &egui::Context, mut output: egui::FullOutput) {
    let shapes = std::mem::take(&mut output.shapes);
    std::hint::black_box(ctx.tessellate(shapes, output.pixels_per_point));
    output.drop_without_applying_deltas();
}

/// The time below which `share` of `times` lie, in milliseconds.
pub fn percentile(times: &mut [Duration], share: f64) -> f64 {
    times.sort();
    let index = ((times.len() as f64 - 1.0) * share).round() as usize;
    times[index].as_secs_f64() * 1000.0
}

/// A thumbnail-size texture, as a picture that came in.
pub fn fake_texture(ctx: &egui::Context, key: &str) -> egui::TextureHandle {
    ctx.load_texture(
        key,
        egui::ColorImage::filled(THUMBNAIL, egui::Color32::from_gray(128)),
        egui::TextureOptions::LINEAR,
    )
}

/// The results at 10,000 in `layout`, every card's thumbnail cached: the baseline.
pub fn results_frames(ctx: &egui::Context, layout: ResultsLayout) -> Vec<Duration> {
    let rows: Vec<ResultRow> = (1..=10_000)
        .map(|rank| ResultRow {
            rank,
            uid: FileUid::from_reply(&format!("00000000-0000-4000-8000-{rank:012}")),
            name: format!("Bracket variant {rank:05}"),
            file_name: format!("Parts/Brackets/bracket-{rank:05}.stl"),
            score: Some(1.0 - rank as f64 / 15_000.0),
            query_kind: QueryKind::PictureToModel,
            below_best: 0.0,
            thumbnail_url: format!("http://127.0.0.1:8480/thumb/{rank}.png?token=t"),
            large_image_url: String::new(),
            attributes: vec![Attribute::new("material", None, ["steel"]).unwrap_or_default()],
            found_on_page: None,
            relations: Default::default(),
            mirrored: false,
        })
        .collect();
    let mut cache = TextureCache::new(DEFAULT_BUDGET_BYTES);
    for row in rows.iter().take(600) {
        cache.insert(
            row.thumbnail_url.clone(),
            fake_texture(ctx, &row.thumbnail_url),
        );
    }
    let mut view = ResultsView::new();
    view.set_results(rows, Some(10_000));
    view.set_layout(layout);
    let mut times = Vec::new();
    for frame in 0..(SCROLL_FRAMES + WARM_UP_FRAMES) {
        let events = vec![
            egui::Event::PointerMoved(egui::pos2(640.0, 500.0)),
            wheel_down(120.0),
        ];
        let started = Instant::now();
        cache.begin_frame();
        let output = ctx.run_ui(raw_input(events), |ui| {
            let mut commands = CommandQueue::default();
            std::hint::black_box(view.ui(ui, &mut cache, &mut commands));
            std::hint::black_box(commands.drain());
        });
        finish_frame(ctx, output);
        if frame >= WARM_UP_FRAMES {
            times.push(started.elapsed());
        }
    }
    times
}

/// Bytes in mebibytes.
pub fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
