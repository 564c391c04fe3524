//! When the first frame is on screen, for the cold-start bench (`benches/cold_start.rs`): with
//! `PARTLENS_REPORT_FIRST_FRAME=1` the app prints [`FIRST_FRAME_LINE`] and the milliseconds since
//! its `main` began on standard output as soon as its first frame has been painted, then closes.
//!
//! A frame is painted after [`eframe::App::ui`] returns; the first frame asks for a second one, and
//! the second's [`eframe::App::logic`] (which runs before anything of it is drawn) is when the
//! first is known to be on screen.

use std::io::Write as _;
use std::time::Instant;

/// The environment variable that asks for the report.
pub const REPORT_FIRST_FRAME_ENV: &str = "PARTLENS_REPORT_FIRST_FRAME";

/// What the report line starts with; the milliseconds since `main` follow it.
pub const FIRST_FRAME_LINE: &str = "first frame painted after";

/// True when the environment asks for the first frame to be reported.
pub fn first_frame_report_requested() -> bool {
    std::env::var_os(REPORT_FIRST_FRAME_ENV).is_some_and(|value| value == "1")
}

/// An app that reports its first painted frame and then closes the window; everything else is the
/// wrapped app's.
pub struct FirstFrameReport<A> {
    inner: A,
    started: Instant,
    frames: u32,
}

impl<A> FirstFrameReport<A> {
    /// Wraps `inner`; `started` is when the program's `main` began.
    pub fn new(inner: A, started: Instant) -> Self {
        Self {
            inner,
            started,
            frames: 0,
        }
    }
}

impl<A: eframe::App> eframe::App for FirstFrameReport<A> {
    fn logic(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        if self.frames == 1 {
            let mut out = std::io::stdout().lock();
            // Nobody reading the line is no reason to stop the app.
            let _ = writeln!(
                out,
                "{FIRST_FRAME_LINE} {:.1} ms",
                self.started.elapsed().as_secs_f64() * 1000.0
            );
            let _ = out.flush();
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        self.inner.logic(ctx, frame);
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.inner.ui(ui, frame);
        if self.frames == 0 {
            ui.ctx().request_repaint();
        }
        self.frames = self.frames.saturating_add(1);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.inner.save(storage);
    }

    fn on_exit(&mut self) {
        self.inner.on_exit();
    }

    fn auto_save_interval(&self) -> std::time::Duration {
        self.inner.auto_save_interval()
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        self.inner.clear_color(visuals)
    }

    fn persist_egui_memory(&self) -> bool {
        self.inner.persist_egui_memory()
    }

    fn raw_input_hook(&mut self, ctx: &egui::Context, raw_input: &mut egui::RawInput) {
        self.inner.raw_input_hook(ctx, raw_input);
    }
}
