//! The library syncs in the jobs panel: each with its folder and prefix, where it is (checking n of
//! m files with a progress bar, paused, interrupted with the reason, waiting for a login, done with
//! its counts, failed), the files that failed with their reasons, and Pause, Resume and Dismiss.

use super::LibrarySync;
use crate::ui::app_command::CommandQueue;
use crate::ui::theme;
use partlens_tasks::Command;
use partlens_tasks::sync::{SyncPhase, SyncRun, SyncStage, SyncSummary};

/// The folder's name as buttons name a sync ("Pause sync of parts").
fn folder_name(run: &SyncRun) -> String {
    run.setup
        .folder
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| run.setup.folder.display().to_string())
}

/// How a phase reads in the panel.
pub fn phase_text(phase: &SyncPhase) -> String {
    match phase {
        SyncPhase::WaitingForLogin => "Waiting for login".to_owned(),
        SyncPhase::Running(progress) => match progress.stage {
            SyncStage::Scanning => "Reading the folder…".to_owned(),
            SyncStage::Checking => format!(
                "Checking {} of {} files, {} uploaded",
                progress.checked, progress.files, progress.uploaded
            ),
            SyncStage::Removing => "Deleting files that left the folder…".to_owned(),
        },
        SyncPhase::Paused(Some(summary)) => format!("Paused ({} so far)", summary.counts_text()),
        SyncPhase::Paused(None) => "Paused".to_owned(),
        SyncPhase::Interrupted { .. } => "Interrupted".to_owned(),
        SyncPhase::Finished(summary) => format!("Done: {}", summary.counts_text()),
        SyncPhase::Failed(_) => "Could not run".to_owned(),
    }
}

impl LibrarySync {
    /// Draws the syncs above the job list (nothing when there are none).
    pub fn runs_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        if self.runs.is_empty() {
            return;
        }
        ui.label(egui::RichText::new("Library sync").strong());
        let mut dismissed = None;
        for run in &self.runs {
            egui::Frame::group(ui.style())
                .inner_margin(egui::Margin::same(8))
                .show(ui, |ui| {
                    ui.set_width(ui.available_width());
                    if run_ui(ui, run, commands) {
                        dismissed = Some(run.key.clone());
                    }
                });
        }
        if let Some(key) = dismissed {
            self.dismiss(&key);
        }
        if self.active_runs() > 0 {
            // Elapsed work shows as it comes; nothing ticks on its own.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs(1));
        }
        ui.add_space(10.0);
    }
}

/// One sync; true when the user dismissed it.
fn run_ui(ui: &mut egui::Ui, run: &SyncRun, commands: &mut CommandQueue) -> bool {
    let name = folder_name(run);
    let mut dismissed = false;
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new(run.setup.folder.display().to_string()).strong());
        ui.label("to");
        ui.label(egui::RichText::new(run.setup.prefix.trim().trim_matches('/')).strong());
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if run.phase.is_active() {
                if ui
                    .button("Pause")
                    .accessible_name(format!("Pause sync of {name}"))
                    .on_hover_text("Stop after the file under way; Resume carries on from there.")
                    .clicked()
                {
                    commands.backend(Command::PauseSync(run.key.clone()));
                }
            } else {
                if ui
                    .button("Dismiss")
                    .accessible_name(format!("Dismiss sync of {name}"))
                    .on_hover_text("Take it off this list (what went up stays recorded).")
                    .clicked()
                {
                    dismissed = true;
                }
                let again = if run.phase.can_resume() {
                    "Resume"
                } else {
                    "Sync again"
                };
                if ui
                    .button(again)
                    .accessible_name(format!("{again} sync of {name}"))
                    .on_hover_text("Run the sync; files already up are not sent again.")
                    .clicked()
                {
                    commands.backend(Command::StartSync(run.setup.clone()));
                }
            }
        });
    });
    let text = phase_text(&run.phase);
    match &run.phase {
        SyncPhase::Running(progress) => {
            let fraction = if progress.files == 0 {
                0.0
            } else {
                progress.checked as f32 / progress.files as f32
            };
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_width(360.0)
                    .text(text),
            );
            if let Some(current) = &progress.current {
                ui.label(egui::RichText::new(current).small().weak());
            }
        }
        SyncPhase::WaitingForLogin => {
            ui.colored_label(theme::warning_color(ui), text);
        }
        SyncPhase::Interrupted { reason, .. } => {
            ui.colored_label(theme::warning_color(ui), text);
            ui.add(egui::Label::new(egui::RichText::new(reason).small()).wrap());
        }
        SyncPhase::Failed(reason) => {
            ui.colored_label(theme::error_color(ui), text);
            ui.add(egui::Label::new(egui::RichText::new(reason).small()).wrap());
        }
        SyncPhase::Finished(summary) if summary.failed.is_empty() => {
            ui.colored_label(theme::success_color(ui), text);
        }
        _ => {
            ui.label(text);
        }
    }
    if let Some(summary) = run.phase.summary() {
        summary_details_ui(ui, run, summary);
    }
    dismissed
}

/// The files that failed and the warnings, folded.
fn summary_details_ui(ui: &mut egui::Ui, run: &SyncRun, summary: &SyncSummary) {
    if !summary.failed.is_empty() {
        egui::CollapsingHeader::new(
            egui::RichText::new(format!("{} failed", summary.failed.len()))
                .color(theme::error_color(ui)),
        )
        .id_salt(("sync_failed", &run.key))
        .show(ui, |ui| {
            for failure in summary.failed.iter().take(200) {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(format!("{}: {}", failure.path, failure.reason))
                            .small(),
                    )
                    .wrap(),
                );
            }
        });
    }
    if !summary.removed.is_empty() {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!(
                    "Left the folder, still on the service: {}",
                    summary.removed.join(", ")
                ))
                .small()
                .weak(),
            )
            .wrap(),
        );
    }
    for warning in summary.warnings.iter().take(5) {
        ui.add(egui::Label::new(egui::RichText::new(warning).small().weak()).wrap());
    }
}
