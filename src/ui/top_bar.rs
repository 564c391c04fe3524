//! The top bar: the app's name, navigation (Search, Library, Duplicates, Upload, Jobs,
//! Settings) and who is logged in
//! where (service, user, company).

use super::app_command::{AppCommand, CommandQueue};
use super::place::Place;
use partlens_tasks::SessionInfo;

/// What the top bar shows on its right side.
pub struct TopBarStatus<'a> {
    /// The service in use (its label).
    pub service: &'a str,
    /// The session, when logged in.
    pub session: Option<&'a SessionInfo>,
    /// Jobs still running.
    pub running_jobs: usize,
    /// What the connection is doing while it opens ("Adding the sample library (2 of 22)…"):
    /// shown instead of "Not logged in", which it is not yet.
    pub connecting: Option<&'a str>,
    /// What the logged-in local workspace is doing ("Adding the sample library (2 of 22)…"),
    /// shown beside who is logged in.
    pub activity: Option<&'a str>,
}

/// Draws the bar inside a top panel.
pub fn top_bar_ui(
    ui: &mut egui::Ui,
    current: Place,
    status: &TopBarStatus<'_>,
    commands: &mut CommandQueue,
) {
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new("partlens").heading().strong());
        ui.add_space(12.0);
        for place in Place::TOP_BAR {
            let response = ui
                .add(egui::Button::selectable(current == place, place.label()))
                .on_hover_text(match place {
                    Place::Search => "Find parts by views, text and attributes (Ctrl+F).",
                    Place::Library => "Every file of your company, newest first (Ctrl+L).",
                    Place::Duplicates => {
                        "Files of your company that are the same part (Ctrl+Shift+D)."
                    }
                    Place::Upload => "Upload files (Ctrl+O).",
                    Place::Jobs => "Uploads and their indexing.",
                    Place::Settings => "Service, polling, cache, theme and library sync.",
                });
            if response.clicked() {
                commands.push(AppCommand::Navigate(place));
            }
            if place == Place::Jobs && status.running_jobs > 0 {
                ui.label(
                    egui::RichText::new(format!("{} running", status.running_jobs))
                        .small()
                        .weak(),
                );
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            match status.session {
                Some(session) => {
                    if let Some(activity) = status.activity {
                        // A spinner only (the sentence is in the banner under the bar, and would
                        // push the bar's tabs under this side): it says it to hover and to screen
                        // readers.
                        let spinner = ui.add(egui::Spinner::new()).on_hover_text(activity);
                        spinner.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::ProgressIndicator, true, activity)
                        });
                        ui.add_space(6.0);
                    }
                    if let Some(company) = &session.company {
                        status_pair_ui(ui, "Company", company);
                    }
                    status_pair_ui(ui, "User", &session.user);
                }
                None => match status.connecting {
                    Some(detail) => {
                        ui.label(egui::RichText::new(detail).weak());
                        ui.spinner();
                    }
                    None => {
                        ui.label(egui::RichText::new("Not logged in").weak());
                    }
                },
            }
            let service = status_pair_ui(ui, "Service", status.service);
            if let Some(session) = status.session {
                service.on_hover_text(&session.address);
            }
        });
    });
}

/// "Service: Local workspace" (drawn right to left, so the value goes first); returns the value's
/// response.
fn status_pair_ui(ui: &mut egui::Ui, name: &str, value: &str) -> egui::Response {
    let response = ui.label(egui::RichText::new(value).strong());
    ui.label(egui::RichText::new(format!("{name}:")).weak());
    ui.add_space(6.0);
    response
}
