//! The Duplicates place at a working day's library: 4,609 groups of two or three files (what
//! `GET /api/Duplicates` answers at the default minimum score over the 99,543-file library of
//! docs/PERFORMANCE.md "Duplicates at 100k files"), scrolled headless as a user does (the wheel,
//! then End and Home through the keyboard's cursor across every group); against, in the same run, a
//! frame of the results grid at 10,000 results (the `results_frame` bench's case).
//!
//! The groups are made here and given to the place as the task layer's answer (without their
//! files' records, as it answers); every command the place sends is answered at once in the next
//! frame (the records asked for, each with a thumbnail link; a thumbnail as a texture of its size), so a frame's time is the place's layout and tessellation
//! (what the UI thread does), not the service's. Also counted: the records and thumbnails the place
//! asked for. Run with `cargo test -p partlens --bench duplicates_frame` (dependencies optimised;
//! `-- 1000` for fewer groups); it prints a markdown table.

use std::time::{Duration, Instant};

#[path = "support/frames.rs"]
mod frames;

use frames::{
    SCROLL_FRAMES, WARM_UP_FRAMES, fake_texture, finish_frame, percentile, raw_input,
    results_frames, wheel_down,
};
use partlens::ui::app_command::{AppCommand, CommandQueue};
use partlens::ui::duplicates::{DuplicatesStatus, DuplicatesView};
use partlens::ui::results::ResultsLayout;
use partlens::ui::texture_cache::{DEFAULT_BUDGET_BYTES, TextureCache};
use partlens_api::FileMap;
use partlens_api::duplicates::DuplicateFile;
use partlens_tasks::duplicates::{
    DuplicatePartFile, DuplicatePartGroup, DuplicateParts, DuplicateRecord,
};
use partlens_tasks::{Command, Event};

/// Groups unless the command line says (the service's answer at 0.885 over 99,543 files).
const DEFAULT_GROUPS: usize = 4_609;

/// A file's record as the service gives it, its thumbnail link standing in for a picture.
fn record_of(uid: &str) -> FileMap {
    FileMap {
        uid: uid.to_owned(),
        thumbnail_url: format!("bench://thumbnail/{uid}"),
        attributes: vec!["material=steel".into()],
        ..FileMap::default()
    }
}

/// `groups` groups, one in eight of three files, the others of two, without their records (the
/// place asks for them).
fn synthetic_parts(groups: usize) -> DuplicateParts {
    let mut number = 0;
    let groups = (0..groups)
        .map(|group| {
            let files = if group % 8 == 0 { 3 } else { 2 };
            DuplicatePartGroup {
                score: 1.0 - group as f64 / (groups as f64 * 10.0),
                files: (0..files)
                    .map(|copy| {
                        number += 1;
                        let uid = format!("00000000-0000-4000-8000-{number:012}");
                        let extension = ["step", "stl", "igs"][copy];
                        DuplicatePartFile {
                            record: None,
                            file: DuplicateFile {
                                uid,
                                file_name: format!("Parts/part-{group:05}.{extension}"),
                                display_name: String::new(),
                                size_mm: vec![6.8, 13.0, 40.0 + (group % 50) as f64],
                            },
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    DuplicateParts {
        min_score: 0.885,
        files_compared: 49_543,
        groups,
    }
}

/// A key pressed and let go.
fn key(key: egui::Key) -> [egui::Event; 2] {
    [true, false].map(|pressed| egui::Event::Key {
        key,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers: egui::Modifiers::NONE,
    })
}

/// What scrolling the place measured.
struct DuplicatesRun {
    times: Vec<Duration>,
    record_commands: usize,
    records_asked: usize,
    textures_made: usize,
    cards_opened: usize,
}

/// Scrolls a new Duplicates place through `groups` groups.
fn scroll_duplicates(ctx: &egui::Context, groups: usize) -> DuplicatesRun {
    let mut view = DuplicatesView::default();
    let mut cache = TextureCache::new(DEFAULT_BUDGET_BYTES);
    let mut run = DuplicatesRun {
        times: Vec::new(),
        record_commands: 0,
        records_asked: 0,
        textures_made: 0,
        cards_opened: 0,
    };
    let mut answers: Vec<Event> = Vec::new();
    for frame in 0..(SCROLL_FRAMES + WARM_UP_FRAMES) {
        for event in answers.drain(..) {
            std::hint::black_box(view.handle_event(event));
        }
        // The wheel most frames; End and Home through the cursor now and then (the first arrow
        // puts the cursor on the first file).
        let mut input = vec![egui::Event::PointerMoved(egui::pos2(640.0, 500.0))];
        match frame % 200 {
            1 => input.extend(key(egui::Key::ArrowRight)),
            100 => input.extend(key(egui::Key::End)),
            199 => input.extend(key(egui::Key::Home)),
            _ => input.push(wheel_down(300.0)),
        }
        let frame_started = Instant::now();
        cache.begin_frame();
        let mut asked = Vec::new();
        let output = ctx.run_ui(raw_input(input), |ui| {
            let mut commands = CommandQueue::default();
            let intents = view.ui(ui, true, &mut cache, &mut commands);
            run.cards_opened += intents.len();
            asked = commands.drain();
        });
        finish_frame(ctx, output);
        let elapsed = frame_started.elapsed();
        for command in asked {
            match command {
                AppCommand::Backend(Command::FindDuplicates { request, .. }) => {
                    answers.push(Event::DuplicatesFound {
                        request,
                        parts: synthetic_parts(groups),
                    });
                }
                AppCommand::Backend(Command::LoadDuplicateRecords { request, uids }) => {
                    run.record_commands += 1;
                    run.records_asked += uids.len();
                    let records = uids
                        .into_iter()
                        .map(|uid| DuplicateRecord {
                            record: Some(record_of(uid.as_str())),
                            uid,
                        })
                        .collect();
                    answers.push(Event::DuplicateRecordsLoaded { request, records });
                }
                // Every thumbnail asked for comes in at once, at its full size.
                AppCommand::Backend(Command::LoadImage(request)) => {
                    let texture = fake_texture(ctx, &request.key);
                    cache.insert(request.key, texture);
                    run.textures_made += 1;
                }
                _ => {}
            }
        }
        if frame >= WARM_UP_FRAMES && view.status() == &DuplicatesStatus::Ready {
            run.times.push(elapsed);
        }
    }
    run
}

fn main() {
    let groups = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse::<usize>().ok())
        .unwrap_or(DEFAULT_GROUPS);
    let ctx = egui::Context::default();
    let mut baseline = results_frames(&ctx, ResultsLayout::Grid);
    let mut run = scroll_duplicates(&ctx, groups);
    let files: usize = synthetic_parts(groups)
        .groups
        .iter()
        .map(|group| group.files.len())
        .sum();
    println!(
        "Duplicates place at {}×{} points over {groups} groups ({files} files), scrolled with the \
         wheel and End/Home for {SCROLL_FRAMES} frames, next to the results grid at 10,000 \
         scrolled alike (the results_frame bench's case); CPU time of a frame (layout and \
         tessellation):\n",
        frames::SCREEN[0],
        frames::SCREEN[1],
    );
    println!("| view | groups | median ms | p95 ms | × results at 10,000 |");
    println!("|---|---|---|---|---|");
    let baseline_median = percentile(&mut baseline, 0.5);
    println!(
        "| results grid (baseline) | – | {baseline_median:.3} | {:.3} | 1.0× |",
        percentile(&mut baseline, 0.95)
    );
    let median = percentile(&mut run.times, 0.5);
    println!(
        "| Duplicates, scrolled | {} | {median:.3} | {:.3} | {:.2}× |",
        partlens::ui::results::thousands(groups as u64),
        percentile(&mut run.times, 0.95),
        median / baseline_median.max(1e-9)
    );
    println!(
        "\nAsked for: {} records in {} commands, {} thumbnails; {} cards opened (none expected).",
        run.records_asked, run.record_commands, run.textures_made, run.cards_opened
    );
}
