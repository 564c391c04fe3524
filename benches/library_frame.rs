//! A working day's library: the Library place over 100,000 files of a real service on 127.0.0.1,
//! scrolled through as a user does (the wheel, then End and Home across the whole listing), its
//! pages asked for and answered over HTTP by the task layer; against, in the same run, a frame of
//! the results grid at 10,000 results (the `results_frame` bench's case). Also the thumbnail
//! cache: every card shown gets a thumbnail-size texture (as if its picture came in), and the most
//! the cache held is printed against its budget.
//!
//! The library is written straight into the store by the test kit's writer (records without
//! pictures, as the service's `make_large_library` example writes them without views), in a
//! temporary folder. Headless: an `egui::Context` without a window or GPU runs the frames; a
//! frame's time is its layout and tessellation (what the UI thread does), not the service's.
//! Run with `cargo bench -p partlens --bench library_frame` (`-- 10000` for a smaller library);
//! it prints a markdown table.

// A bench: a failure to start its service or write its library ends it with the reason.
#![allow(clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/frames.rs"]
mod frames;

use frames::{
    SCREEN, SCROLL_FRAMES, THUMBNAIL, WARM_UP_FRAMES, fake_texture, finish_frame, mib, percentile,
    raw_input, results_frames, wheel_down,
};
use partlens::ui::app_command::{AppCommand, CommandQueue};
use partlens::ui::library::{LibraryStatus, LibraryView};
use partlens::ui::results::ResultsLayout;
use partlens::ui::texture_cache::{DEFAULT_BUDGET_BYTES, TextureCache};
use partlens_service::{RunningService, ServiceConfig, admin};
use partlens_tasks::{
    Backend, BackendParts, Command, Event, MemoryStore, NoLocalWorkspace, PreparedFilePicker,
    ServiceChoice,
};

/// Files in the library unless the command line says.
const DEFAULT_FILES: usize = 100_000;

/// A backend logged in to `service` as alice.
fn logged_in_backend(
    runtime: &tokio::runtime::Runtime,
    data: &std::path::Path,
    service: &RunningService,
) -> (Backend, std::sync::mpsc::Receiver<Event>) {
    let (backend, events) = Backend::new(BackendParts {
        runtime: runtime.handle().clone(),
        data_dir: data.to_path_buf(),
        secrets: Arc::new(MemoryStore::new()),
        picker: Arc::new(PreparedFilePicker::default()),
        launcher: Arc::new(NoLocalWorkspace("none".into())),
        upload_slots: 2,
    });
    let service = ServiceChoice::remote(&service.base_url(), "partlens");
    backend.send(Command::LogIn {
        service,
        user: "alice".into(),
        password: "alice password".into(),
        remember: false,
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(Event::LoggedIn(_)) = events.recv_timeout(Duration::from_millis(100)) {
            return (backend, events);
        }
    }
    panic!("the bench could not log in");
}

/// What scrolling the Library measured.
struct LibraryRun {
    times: Vec<Duration>,
    pages_in: usize,
    textures_made: usize,
    most_held: usize,
    held_at_end: usize,
}

fn layout_name(layout: ResultsLayout) -> &'static str {
    match layout {
        ResultsLayout::Grid => "grid",
        ResultsLayout::Table => "table",
    }
}

/// Scrolls a new Library place in `layout` through the listing, its pages asked of `backend`.
fn scroll_library(
    ctx: &egui::Context,
    backend: &Backend,
    events: &std::sync::mpsc::Receiver<Event>,
    layout: ResultsLayout,
    files: usize,
) -> LibraryRun {
    let mut view = LibraryView::default();
    view.set_layout(layout);
    let mut cache = TextureCache::new(DEFAULT_BUDGET_BYTES);
    let mut times = Vec::new();
    let mut most_held = 0;
    let mut textures_made = 0;
    let mut pages_in = 0;
    for frame in 0..(SCROLL_FRAMES + WARM_UP_FRAMES) {
        while let Ok(mut event) = events.try_recv() {
            if let Event::LibraryPageLoaded { page, .. } = &mut event {
                pages_in += 1;
                // The records have no pictures: the bench stands in for them, so every card
                // asks for its thumbnail as a real library's do.
                for file in &mut page.files {
                    file.item.thumbnail_url = format!("bench://thumbnail/{}", file.item.uid);
                }
            }
            view.handle_event(event);
        }
        // The wheel most frames; End and Home across the whole listing now and then.
        let mut input = vec![egui::Event::PointerMoved(egui::pos2(640.0, 500.0))];
        match frame % 200 {
            100 => view.scroll_to(files.saturating_sub(1)),
            199 => view.scroll_to(files / 2),
            _ => input.push(wheel_down(300.0)),
        }
        let frame_started = Instant::now();
        cache.begin_frame();
        let mut asked = Vec::new();
        let output = ctx.run_ui(raw_input(input), |ui| {
            let mut commands = CommandQueue::default();
            std::hint::black_box(view.ui(ui, true, &mut cache, &mut commands));
            asked = commands.drain();
        });
        finish_frame(ctx, output);
        let elapsed = frame_started.elapsed();
        for command in asked {
            match command {
                // Every thumbnail asked for comes in at once, at its full size.
                AppCommand::Backend(Command::LoadImage(request)) => {
                    let texture = fake_texture(ctx, &request.key);
                    cache.insert(request.key, texture);
                    textures_made += 1;
                }
                AppCommand::Backend(command) => backend.send(command),
                _ => {}
            }
        }
        most_held = most_held.max(cache.held_bytes());
        if frame >= WARM_UP_FRAMES && view.status() == &LibraryStatus::Ready {
            times.push(elapsed);
        }
        // Pages come in at the service's pace, not the bench's: a frame of a 60 Hz display.
        std::thread::sleep(Duration::from_millis(16));
    }

    LibraryRun {
        times,
        pages_in,
        textures_made,
        most_held,
        held_at_end: cache.held_bytes(),
    }
}

fn main() {
    let files = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse::<usize>().ok())
        .unwrap_or(DEFAULT_FILES);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let service_dir = dir.path().join("service");
    std::fs::create_dir_all(&service_dir).expect("the service folder");
    let written = Instant::now();
    partlens_testkit::library::write_library(&service_dir, "Acme", files);
    let written = written.elapsed();
    admin::add_user(&service_dir, "Acme", "alice", "alice password", false).expect("a user");
    let service = runtime.block_on(async {
        let mut config = ServiceConfig::new(&service_dir);
        config.addr = "127.0.0.1:0".parse().expect("an address");
        RunningService::start(config).await.expect("the service")
    });
    let (backend, events) = logged_in_backend(&runtime, &dir.path().join("app"), &service);

    let ctx = egui::Context::default();

    let mut rows = Vec::new();
    let mut held = Vec::new();
    for layout in [ResultsLayout::Grid, ResultsLayout::Table] {
        let baseline = results_frames(&ctx, layout);
        let run = scroll_library(&ctx, &backend, &events, layout, files);
        held.push(format!(
            "{}: {} textures made, at most {:.1} MiB held, {:.1} MiB at the end",
            layout_name(layout),
            run.textures_made,
            mib(run.most_held),
            mib(run.held_at_end)
        ));
        rows.push((layout, baseline, run));
    }
    println!(
        "Library place at {}×{} points over {files} files of a real service on 127.0.0.1 (written \
         into its store in {:.1} s), scrolled with the wheel and End/Home for {SCROLL_FRAMES} \
         frames, pages of 100 answered over HTTP, next to the results at 10,000 in the same \
         layout scrolled alike (the results_frame bench's case); CPU time of a frame (layout and \
         tessellation):\n",
        SCREEN[0],
        SCREEN[1],
        written.as_secs_f64(),
    );
    println!("| view | files | pages answered | median ms | p95 ms | × results at 10,000 |");
    println!("|---|---|---|---|---|---|");
    for (layout, mut baseline, mut run) in rows {
        let baseline_median = percentile(&mut baseline, 0.5);
        println!(
            "| results {} (baseline) | 10,000 | – | {baseline_median:.3} | {:.3} | 1.0× |",
            layout_name(layout),
            percentile(&mut baseline, 0.95)
        );
        let median = percentile(&mut run.times, 0.5);
        println!(
            "| Library {}, scrolled | {} | {} | {median:.3} | {:.3} | {:.2}× |",
            layout_name(layout),
            partlens::ui::results::thousands(files as u64),
            run.pages_in,
            percentile(&mut run.times, 0.95),
            median / baseline_median.max(1e-9)
        );
    }
    println!(
        "\nThumbnails (textures of {}×{} RGBA, budget {:.0} MiB), every card shown given one: {}.",
        THUMBNAIL[0],
        THUMBNAIL[1],
        mib(DEFAULT_BUDGET_BYTES),
        held.join("; ")
    );
    runtime.block_on(async {
        backend.shutdown().await;
        service.shutdown().await;
    });
}
