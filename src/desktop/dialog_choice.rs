//! Which file dialog the app uses: the platform's (xdg-desktop-portal or zenity on Linux, the system
//! dialog on macOS and Windows) or partlens's own file browser (`crate::ui::file_browser`).
//!
//! On Linux rfd needs a desktop portal on the session bus or `zenity` on the `PATH`; with neither,
//! its dialogs return nothing at once and only the log says why. So the app looks up front (no
//! session bus and no zenity: its own browser from the start), and [`FallbackFilePicker`] notices a
//! native dialog that answered "nothing" faster than a person can cancel one, and switches for the
//! rest of the run. The app reads the shared [`DialogChoice`] to route its pick commands.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use partlens_tasks::FilePicker;

/// A native dialog that answers "nothing" sooner than this did not open (nobody cancels that fast).
pub const FAILED_WITHIN: Duration = Duration::from_millis(300);

/// The file dialog in use, shared by the picker (which may find the native one broken) and the app.
#[derive(Clone, Debug)]
pub struct DialogChoice {
    inner: Arc<Mutex<ChoiceState>>,
}

#[derive(Debug)]
struct ChoiceState {
    /// Why the app's own browser is used; `None` while the native dialog is.
    in_app_reason: Option<String>,
    /// Woken when the choice changes, so that a waiting pick opens the browser at once.
    repaint: Option<egui::Context>,
}

impl DialogChoice {
    /// The platform's dialog.
    pub fn native() -> Self {
        Self::with_reason(None)
    }

    /// partlens's own browser, for `reason` (shown on screen).
    pub fn in_app(reason: impl Into<String>) -> Self {
        Self::with_reason(Some(reason.into()))
    }

    fn with_reason(in_app_reason: Option<String>) -> Self {
        Self {
            inner: Arc::new(Mutex::new(ChoiceState {
                in_app_reason,
                repaint: None,
            })),
        }
    }

    /// What this system offers: on Linux without a session bus (so no portal) and without zenity on
    /// the `PATH`, the app's own browser; otherwise the native dialog (whose failure is noticed later).
    pub fn detect() -> Self {
        if cfg!(target_os = "linux") && !has_session_bus() && !on_path("zenity") {
            return Self::in_app("this desktop has no file-dialog portal and no zenity");
        }
        Self::native()
    }

    /// True when pick commands go to the app's own browser.
    pub fn uses_in_app(&self) -> bool {
        self.lock().in_app_reason.is_some()
    }

    /// Why the app's own browser is used, when it is.
    pub fn in_app_reason(&self) -> Option<String> {
        self.lock().in_app_reason.clone()
    }

    /// The native dialog could not open: use the app's own browser from now on.
    pub fn native_failed(&self, reason: impl Into<String>) {
        let repaint = {
            let mut state = self.lock();
            if state.in_app_reason.is_none() {
                state.in_app_reason = Some(reason.into());
            }
            state.repaint.clone()
        };
        if let Some(repaint) = repaint {
            repaint.request_repaint();
        }
    }

    /// Wakes this context when the choice changes (the app sets it at start).
    pub fn set_repaint(&self, ctx: &egui::Context) {
        self.lock().repaint = Some(ctx.clone());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ChoiceState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// True when a D-Bus session bus is there to reach a portal on.
fn has_session_bus() -> bool {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|address| !address.is_empty()) {
        return true;
    }
    std::env::var_os("XDG_RUNTIME_DIR")
        .is_some_and(|runtime_dir| Path::new(&runtime_dir).join("bus").exists())
}

/// True when a program of this name is on the `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|folder| folder.join(program).is_file())
    })
}

/// A file picker that tells the [`DialogChoice`] when its dialog answered "nothing" too fast to have
/// been shown (the native dialog could not open).
pub struct FallbackFilePicker<P> {
    picker: P,
    choice: DialogChoice,
}

impl<P: FilePicker> FallbackFilePicker<P> {
    /// Watches `picker`'s answers for `choice`.
    pub fn new(picker: P, choice: DialogChoice) -> Self {
        Self { picker, choice }
    }

    /// Awaits `answer`; an empty one that came before [`FAILED_WITHIN`] switches to the app's browser.
    fn watched<T: Send + 'static>(
        &self,
        answer: BoxFuture<'static, T>,
        is_empty: fn(&T) -> bool,
    ) -> BoxFuture<'static, T> {
        let choice = self.choice.clone();
        let started = Instant::now();
        Box::pin(async move {
            let answer = answer.await;
            if is_empty(&answer) && started.elapsed() < FAILED_WITHIN {
                tracing::warn!("the system file dialog did not open; using partlens's own");
                choice
                    .native_failed("the system file dialog could not open (no portal, no zenity)");
            }
            answer
        })
    }
}

impl<P: FilePicker> FilePicker for FallbackFilePicker<P> {
    fn pick_files(&self) -> BoxFuture<'static, Vec<PathBuf>> {
        self.watched(self.picker.pick_files(), Vec::is_empty)
    }

    fn save_file(&self, suggested_name: String) -> BoxFuture<'static, Option<PathBuf>> {
        self.watched(self.picker.save_file(suggested_name), Option::is_none)
    }

    fn pick_model_file(&self) -> BoxFuture<'static, Option<PathBuf>> {
        self.watched(self.picker.pick_model_file(), Option::is_none)
    }

    fn pick_folder(&self) -> BoxFuture<'static, Option<PathBuf>> {
        self.watched(self.picker.pick_folder(), Option::is_none)
    }

    fn pick_csv(&self) -> BoxFuture<'static, Option<PathBuf>> {
        self.watched(self.picker.pick_csv(), Option::is_none)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialog_that_answers_nothing_at_once_switches_to_the_app_browser() {
        let choice = DialogChoice::native();
        let picker = FallbackFilePicker::new(
            partlens_tasks::PreparedFilePicker::default(),
            choice.clone(),
        );
        assert!(
            futures_util::FutureExt::now_or_never(picker.pick_files())
                .is_some_and(|files| files.is_empty())
        );
        assert!(choice.uses_in_app());
        assert!(
            choice
                .in_app_reason()
                .is_some_and(|reason| reason.contains("could not open"))
        );
    }

    #[test]
    fn a_dialog_that_answers_keeps_the_native_dialog() {
        let choice = DialogChoice::native();
        let picker = FallbackFilePicker::new(
            partlens_tasks::PreparedFilePicker::new([vec![PathBuf::from("/tmp/a.png")]]),
            choice.clone(),
        );
        let files = futures_util::FutureExt::now_or_never(picker.pick_files());
        assert_eq!(files, Some(vec![PathBuf::from("/tmp/a.png")]));
        assert!(!choice.uses_in_app());
    }
}
