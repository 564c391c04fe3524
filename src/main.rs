//! `partlens`: the desktop app. Sets up logging and the panic hook, builds the tokio runtime the task
//! layer runs on, and runs the eframe window on the main thread. With no configuration it opens the
//! local workspace (the local service in-process on 127.0.0.1, data in the platform's data folder).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use partlens::desktop;
use partlens::ui::{App, AppOptions};
use partlens::workspace::{self, LocalServiceLauncher, WorkspaceConfig};
use partlens_tasks::{Backend, BackendParts, DEFAULT_UPLOAD_SLOTS};

/// How long closing the app waits for the local service to stop.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    // A reader worker (`partlens read-worker …`, started by the local workspace's service or the 3D
    // preview) does its one read and ends here.
    if let Some(code) = partlens_service::run_reader_worker_if_requested() {
        return code;
    }
    init_logging();
    install_panic_hook();
    match run(started) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("partlens: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("info,wgpu=warn,naga=warn,eframe=warn,egui_wgpu=warn")
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

/// Logs a panic with its place before the default hook prints it, and tells the user where to look.
fn install_panic_hook() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        tracing::error!("partlens crashed: {info}");
        default_hook(info);
        eprintln!(
            "partlens stopped because of a bug. Your uploads are kept and resume at the next start. \
             Please report the message above."
        );
    }));
}

/// On Linux and the BSDs a window needs an X11 or Wayland display.
fn check_display() -> anyhow::Result<()> {
    if cfg!(all(unix, not(target_os = "macos")))
        && ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
            .iter()
            .all(|name| std::env::var_os(name).is_none_or(|value| value.is_empty()))
    {
        return Err(anyhow!(
            "no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); run it \
             in a desktop session, or under Xvfb on a headless machine"
        ));
    }
    Ok(())
}

/// What the command line asks for.
enum Invocation {
    /// Open the window, with these files in the upload form (`files`) or as the views of a search
    /// that runs at start (`views`, after `--search`).
    Open {
        files: Vec<std::path::PathBuf>,
        views: Vec<std::path::PathBuf>,
    },
    /// Print this text and stop.
    Print(String),
}

fn parse_arguments() -> Invocation {
    let mut files = Vec::new();
    let mut views = Vec::new();
    let mut searching = false;
    for argument in std::env::args_os().skip(1) {
        match argument.to_str() {
            Some("-h" | "--help") => {
                return Invocation::Print(format!(
                    "partlens {version}: visual part search\n\n\
                     usage: partlens [FILE...] [--search VIEW...]\n\n\
                     Opens the app; FILEs start in the upload form, VIEWs (up to ten images or \
                     models of one part) are searched at start. With no service configured it opens \
                     a local workspace.\nEnvironment: {data} (data folder), {samples} \
                     (sample library), RUST_LOG (log filter).",
                    version = env!("CARGO_PKG_VERSION"),
                    data = workspace::DATA_DIR_ENV,
                    samples = workspace::SAMPLES_DIR_ENV,
                ));
            }
            Some("-V" | "--version") => {
                return Invocation::Print(format!("partlens {}", env!("CARGO_PKG_VERSION")));
            }
            Some("--search") => searching = true,
            _ => {
                let path = std::path::PathBuf::from(argument);
                let path = std::path::absolute(&path).unwrap_or(path);
                if searching {
                    views.push(path);
                } else {
                    files.push(path);
                }
            }
        }
    }
    Invocation::Open { files, views }
}

/// Opens the window; `started` is when `main` began (for the first-frame report).
fn run(started: std::time::Instant) -> anyhow::Result<()> {
    let (initial_files, initial_views) = match parse_arguments() {
        Invocation::Open { files, views } => (files, views),
        Invocation::Print(text) => {
            println!("{text}");
            return Ok(());
        }
    };
    check_display()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("partlens-task")
        .build()
        .context("cannot start the task runtime")?;
    let _runtime_context = runtime.enter();

    let data_dir = workspace::default_data_dir().ok_or_else(|| {
        anyhow!(
            "this system has no data folder for partlens; set {} to a folder",
            workspace::DATA_DIR_ENV
        )
    })?;
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("cannot create the data folder {}", data_dir.display()))?;
    tracing::info!("data folder: {}", data_dir.display());

    let dialogs = desktop::DialogChoice::detect();
    let (backend, events) = Backend::new(BackendParts {
        runtime: runtime.handle().clone(),
        data_dir: data_dir.clone(),
        secrets: Arc::new(desktop::KeyringStore),
        picker: Arc::new(desktop::FallbackFilePicker::new(
            desktop::NativeFilePicker,
            dialogs.clone(),
        )),
        launcher: Arc::new(LocalServiceLauncher::new(WorkspaceConfig::new(&data_dir))),
        upload_slots: DEFAULT_UPLOAD_SLOTS,
    });

    let mut viewport = egui::ViewportBuilder::default()
        .with_title("partlens")
        .with_app_id(desktop::APP_ID)
        .with_inner_size([1120.0, 720.0])
        .with_min_inner_size([720.0, 460.0])
        .with_drag_and_drop(true);
    match eframe::icon_data::from_png_bytes(desktop::WINDOW_ICON_PNG) {
        Ok(icon) => viewport = viewport.with_icon(icon),
        Err(error) => tracing::warn!("the window icon could not be read: {error}"),
    }
    let options = eframe::NativeOptions {
        viewport,
        persistence_path: Some(data_dir.join("app.ron")),
        ..Default::default()
    };

    let app_backend = backend.clone();
    let app_options = AppOptions {
        data_dir,
        settings: None,
        initial_files,
        initial_views,
        dialogs,
    };
    let outcome = eframe::run_native(
        "partlens",
        options,
        Box::new(move |cc| {
            let app = App::new(cc, app_backend, events, app_options);
            Ok(if desktop::first_frame_report_requested() {
                Box::new(desktop::FirstFrameReport::new(app, started))
            } else {
                Box::new(app)
            })
        }),
    );

    if runtime
        .block_on(tokio::time::timeout(SHUTDOWN_GRACE, backend.shutdown()))
        .is_err()
    {
        tracing::warn!("the local service did not stop within {SHUTDOWN_GRACE:?}");
    }
    outcome.map_err(|error| anyhow!("the window could not be opened: {error}"))
}
