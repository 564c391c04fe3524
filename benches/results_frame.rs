//! CPU time of one frame of the results view (grid and table) with 1,000 and 10,000 results, and of
//! the Library place over a listing of 10,000 files whose pages come in as it asks (grid and table),
//! next to an empty frame measured in the same run, and the texture memory the thumbnail cache holds
//! at its limit.
//!
//! Headless: an `egui::Context` without a window or GPU runs the frames; the thumbnails are fake
//! textures of thumbnail size allocated through that context and kept in the byte-bounded cache, so
//! every visible card paints a cached texture. Each frame includes the cache's sweep and the
//! tessellation of the frame's shapes (what the integration does on the CPU). Run with
//! `cargo bench -p partlens --bench results_frame`; it prints a markdown table.

use std::time::{Duration, Instant};

use partlens::ui::app_command::{AppCommand, CommandQueue};
use partlens::ui::library::LibraryView;
use partlens::ui::results::calibration::QueryKind;
use partlens::ui::results::{ResultRow, ResultsLayout, ResultsView};
use partlens::ui::texture_cache::{DEFAULT_BUDGET_BYTES, TextureCache};
use partlens_api::library::{FileKind, LibraryFile, LibraryPage};
use partlens_api::model::ResultAttribute;
use partlens_api::{Attribute, FileUid, SearchResultItem};
use partlens_tasks::{Command, Event};

/// Window size of the measured frames.
const SCREEN: [f32; 2] = [1280.0, 800.0];

/// Thumbnail size of the fake textures (the decoder's longest side, 4:3).
const THUMBNAIL: [usize; 2] = [256, 192];

/// Frames run before measuring (fonts, galley caches).
const WARM_UP_FRAMES: usize = 30;

/// Frames measured per case.
const MEASURED_FRAMES: usize = 300;

fn raw_input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SCREEN[0], SCREEN[1]),
        )),
        ..Default::default()
    }
}

fn rows(count: usize) -> Vec<ResultRow> {
    let materials = ["steel", "aluminium", "brass", "ABS", "stainless steel"];
    (1..=count)
        .map(|rank| ResultRow {
            rank,
            uid: FileUid::from_reply(&format!("00000000-0000-4000-8000-{rank:012}")),
            name: format!("Bracket variant {rank:05}"),
            file_name: format!("Parts/Brackets/bracket-{rank:05}.stl"),
            score: Some(1.0 - rank as f64 / (count as f64 * 1.5)),
            query_kind: QueryKind::PictureToModel,
            below_best: 0.0,
            thumbnail_url: format!("http://127.0.0.1:8480/thumb/{rank}.png?token=t"),
            large_image_url: format!("http://127.0.0.1:8480/large/{rank}.png?token=t"),
            attributes: vec![
                Attribute::new("material", None, [materials[rank % materials.len()]])
                    .unwrap_or_default(),
                Attribute::new("weight", Some("kg".into()), [format!("{}", rank % 97)])
                    .unwrap_or_default(),
                Attribute::new("region", None, ["EU", "US"]).unwrap_or_default(),
            ],
            found_on_page: None,
            relations: Default::default(),
            mirrored: false,
        })
        .collect()
}

/// The Library's page of `rows` at `offset`, as the service would send it (10,000 files in all).
fn library_page(rows: &[ResultRow], offset: usize, limit: usize) -> LibraryPage {
    LibraryPage {
        total_files: rows.len() as u64,
        offset: offset as u64,
        files: rows
            .iter()
            .skip(offset)
            .take(limit)
            .map(|row| LibraryFile {
                item: SearchResultItem {
                    uid: row.uid.as_str().to_owned(),
                    file_name: row.file_name.clone(),
                    display_name: row.name.clone(),
                    thumbnail_url: row.thumbnail_url.clone(),
                    large_image_url: row.large_image_url.clone(),
                    attributes: row
                        .attributes
                        .iter()
                        .map(|attribute| ResultAttribute {
                            name: attribute.wire_name(),
                            value: attribute.joined_values(),
                            ..ResultAttribute::default()
                        })
                        .collect(),
                    ..SearchResultItem::default()
                },
                kind: FileKind::Model,
                folder: "Parts/Brackets".into(),
                size: 58_000,
                uploaded_at: "2026-11-28T06:41:07.123Z".into(),
                state: "completed".into(),
            })
            .collect(),
    }
}

/// Fills the cache with thumbnail-size textures in display order until it is at its limit, then
/// sweeps once. Returns the number of textures made.
fn fill_cache(
    ctx: &egui::Context,
    cache: &mut TextureCache<egui::TextureHandle>,
    rows: &[ResultRow],
) -> usize {
    let mut made = 0;
    for row in rows {
        if cache.held_bytes() >= cache.budget_bytes() {
            break;
        }
        let texture = ctx.load_texture(
            row.thumbnail_url.clone(),
            egui::ColorImage::filled(THUMBNAIL, egui::Color32::from_gray(128)),
            egui::TextureOptions::LINEAR,
        );
        cache.insert(row.thumbnail_url.clone(), texture);
        made += 1;
    }
    made
}

/// What an integration does with a frame's output on the CPU: tessellate the shapes. The texture
/// uploads are dropped (there is no GPU).
fn finish_frame(ctx: &egui::Context, mut output: egui::FullOutput) {
    let shapes = std::mem::take(&mut output.shapes);
    let primitives = ctx.tessellate(shapes, output.pixels_per_point);
    std::hint::black_box(primitives);
    output.drop_without_applying_deltas();
}

struct Timing {
    median: Duration,
    p95: Duration,
}

fn time_frames(mut frame: impl FnMut()) -> Timing {
    for _ in 0..WARM_UP_FRAMES {
        frame();
    }
    let mut times: Vec<Duration> = (0..MEASURED_FRAMES)
        .map(|_| {
            let start = Instant::now();
            frame();
            start.elapsed()
        })
        .collect();
    times.sort();
    Timing {
        median: times[times.len() / 2],
        p95: times[times.len() * 95 / 100],
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() {
    let ctx = egui::Context::default();

    let empty = time_frames(|| {
        let output = ctx.run_ui(raw_input(), |_ui| {});
        finish_frame(&ctx, output);
    });

    let mut lines = Vec::new();
    // The view itself with nothing found: its state message and button, no rows.
    let mut cache = TextureCache::new(DEFAULT_BUDGET_BYTES);
    let mut view = ResultsView::new();
    view.set_results(Vec::new(), Some(0));
    let no_results = time_frames(|| {
        cache.begin_frame();
        let output = ctx.run_ui(raw_input(), |ui| {
            let mut commands = CommandQueue::default();
            std::hint::black_box(view.ui(ui, &mut cache, &mut commands));
            std::hint::black_box(commands.drain());
        });
        finish_frame(&ctx, output);
    });
    lines.push(format!(
        "| results view, nothing found | 0 | {:.3} | {:.3} | {:.1}× |",
        ms(no_results.median),
        ms(no_results.p95),
        no_results.median.as_secs_f64() / empty.median.as_secs_f64().max(1e-9),
    ));
    let mut held = (0, 0, 0);
    for layout in [ResultsLayout::Grid, ResultsLayout::Table] {
        for count in [1_000usize, 10_000] {
            let rows = rows(count);
            let mut cache = TextureCache::new(DEFAULT_BUDGET_BYTES);
            let made = fill_cache(&ctx, &mut cache, &rows);
            let filled = cache.held_bytes();
            let mut view = ResultsView::new();
            view.set_results(rows, Some(count as i64));
            view.set_layout(layout);
            let timing = time_frames(|| {
                let report = cache.begin_frame();
                std::hint::black_box(report);
                let output = ctx.run_ui(raw_input(), |ui| {
                    let mut commands = CommandQueue::default();
                    let intents = view.ui(ui, &mut cache, &mut commands);
                    std::hint::black_box((intents, commands.drain()));
                });
                finish_frame(&ctx, output);
            });
            held = (filled, made, cache.held_bytes());
            lines.push(format!(
                "| {} | {} | {:.3} | {:.3} | {:.1}× |",
                match layout {
                    ResultsLayout::Grid => "grid",
                    ResultsLayout::Table => "table",
                },
                partlens::ui::results::thousands(count as u64),
                ms(timing.median),
                ms(timing.p95),
                timing.median.as_secs_f64() / empty.median.as_secs_f64().max(1e-9),
            ));
        }
    }

    // The Library: 10,000 files, each page answered the frame after it is asked for.
    for layout in [ResultsLayout::Grid, ResultsLayout::Table] {
        let count = 10_000;
        let all = rows(count);
        let mut cache = TextureCache::new(DEFAULT_BUDGET_BYTES);
        fill_cache(&ctx, &mut cache, &all);
        let mut view = LibraryView::default();
        view.set_layout(layout);
        let mut asked: Vec<Command> = Vec::new();
        let timing = time_frames(|| {
            for command in asked.drain(..) {
                if let Command::LoadLibraryPage { request, query } = command {
                    let page = library_page(&all, query.offset, query.limit);
                    view.handle_event(Event::LibraryPageLoaded { request, page });
                }
            }
            cache.begin_frame();
            let output = ctx.run_ui(raw_input(), |ui| {
                let mut commands = CommandQueue::default();
                let intents = view.ui(ui, true, &mut cache, &mut commands);
                std::hint::black_box(intents);
                for command in commands.drain() {
                    if let AppCommand::Backend(command) = command {
                        asked.push(command);
                    }
                }
            });
            finish_frame(&ctx, output);
        });
        lines.push(format!(
            "| library, {} | {} | {:.3} | {:.3} | {:.1}× |",
            match layout {
                ResultsLayout::Grid => "grid",
                ResultsLayout::Table => "table",
            },
            partlens::ui::results::thousands(count as u64),
            ms(timing.median),
            ms(timing.p95),
            timing.median.as_secs_f64() / empty.median.as_secs_f64().max(1e-9),
        ));
    }

    println!(
        "Results view, one frame at {}×{} points, CPU time ({} frames after {} warm-up):\n",
        SCREEN[0], SCREEN[1], MEASURED_FRAMES, WARM_UP_FRAMES
    );
    println!("| view | results | median ms | p95 ms | × empty frame |");
    println!("|---|---|---|---|---|");
    println!(
        "| empty frame | – | {:.3} | {:.3} | 1.0× |",
        ms(empty.median),
        ms(empty.p95)
    );
    for line in lines {
        println!("{line}");
    }
    let mib = |bytes: usize| bytes as f64 / (1024.0 * 1024.0);
    println!(
        "\nThumbnail cache (budget {:.0} MiB): filled to its limit with {} textures of {}×{} RGBA = \
         {:.1} MiB; after the per-frame sweeps {:.1} MiB stay held (evicted down to 7/8 of the \
         budget, the cards on screen kept).",
        mib(DEFAULT_BUDGET_BYTES),
        held.1,
        THUMBNAIL[0],
        THUMBNAIL[1],
        mib(held.0),
        mib(held.2),
    );
}
