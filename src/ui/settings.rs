//! Settings: the service (local workspace or a remote address with its client id), the local
//! workspace's sample library (removed in one click), the indexing status polling interval, the
//! thumbnail cache size, the theme, the company's callback for its admins (drawn by
//! [`super::callbacks_card`]), and the library sync being set up (drawn by
//! [`super::library_sync`]). Persisted with eframe's storage.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::app_command::{AppCommand, CommandQueue};
use super::callbacks_card::CallbacksCard;
use super::library_sync::LibrarySync;
use super::theme::ThemeChoice;
use partlens_tasks::jobs::poll::PollPolicy;
use partlens_tasks::samples::record::SampleLibraryStatus;
use partlens_tasks::service_choice::DEFAULT_CLIENT_ID;
use partlens_tasks::sync::SyncSetup;
use partlens_tasks::{Command, ServiceChoice};

/// The key under which eframe's storage keeps the settings.
pub const STORAGE_KEY: &str = "partlens.settings";

/// The shortest polling interval Settings accepts.
pub const MIN_POLL_INTERVAL_SECS: f64 = 0.05;

/// The user's preferences. New fields take their default when an older file is read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The service in use.
    pub service: ServiceChoice,
    /// The last remote address typed (kept while the local workspace is in use).
    pub remote_address: String,
    /// The last remote client id typed.
    pub remote_client_id: String,
    /// The user of the last remote login (prefills the form; finds the remembered token).
    pub last_user: Option<String>,
    /// The first wait between two indexing status polls, in seconds; it backs off to 2.5 times this.
    pub poll_interval_secs: f64,
    /// The most memory thumbnails may take, in MiB.
    pub thumbnail_cache_mib: u32,
    /// The theme.
    pub theme: ThemeChoice,
    /// The library sync being set up in Settings (folder, prefix, CSV and its columns).
    pub library_sync: SyncSetup,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            service: ServiceChoice::LocalWorkspace,
            remote_address: String::new(),
            remote_client_id: DEFAULT_CLIENT_ID.to_owned(),
            last_user: None,
            poll_interval_secs: 2.0,
            thumbnail_cache_mib: 256,
            theme: ThemeChoice::System,
            library_sync: SyncSetup::default(),
        }
    }
}

impl Settings {
    /// The polling policy: the interval, backing off to 2.5 times it (2 s → 5 s by default), with
    /// the deadline that grows with the file size.
    pub fn poll_policy(&self) -> PollPolicy {
        let first = Duration::from_secs_f64(self.poll_interval_secs.max(MIN_POLL_INTERVAL_SECS));
        PollPolicy {
            first_interval: first,
            max_interval: first.mul_f64(2.5),
            ..PollPolicy::default()
        }
    }

    /// The thumbnail cache budget in bytes.
    pub fn thumbnail_cache_bytes(&self) -> u64 {
        u64::from(self.thumbnail_cache_mib) * 1024 * 1024
    }
}

/// Which kind of service the form shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ServiceKind {
    Local,
    Remote,
}

/// The settings view. Service changes are a draft until "Connect"; the rest applies at once.
#[derive(Debug)]
pub struct SettingsView {
    kind: ServiceKind,
    address: String,
    client_id: String,
    problem: Option<String>,
    /// Where the local workspace's sample library is, once the task layer said.
    samples: Option<SampleLibraryStatus>,
    /// The company's callback (for its admins).
    callbacks: CallbacksCard,
}

impl SettingsView {
    /// Shows where the local workspace's sample library is.
    pub fn set_sample_library(&mut self, status: SampleLibraryStatus) {
        self.samples = Some(status);
    }

    /// Where the local workspace's sample library is, as last told.
    pub fn sample_library(&self) -> Option<&SampleLibraryStatus> {
        self.samples.as_ref()
    }

    /// The Callbacks card (its events are routed to it).
    pub fn callbacks_mut(&mut self) -> &mut CallbacksCard {
        &mut self.callbacks
    }

    /// A view showing `settings`.
    pub fn new(settings: &Settings) -> Self {
        let mut view = Self {
            kind: ServiceKind::Local,
            address: String::new(),
            client_id: String::new(),
            problem: None,
            samples: None,
            callbacks: CallbacksCard::default(),
        };
        view.reset(settings);
        view
    }

    /// Shows `settings` again (after the service changed elsewhere, e.g. in the login form).
    pub fn reset(&mut self, settings: &Settings) {
        self.kind = if settings.service.is_local() {
            ServiceKind::Local
        } else {
            ServiceKind::Remote
        };
        match &settings.service {
            ServiceChoice::Remote { address, client_id } => {
                self.address = address.clone();
                self.client_id = client_id.clone();
            }
            ServiceChoice::LocalWorkspace => {
                self.address = settings.remote_address.clone();
                self.client_id = settings.remote_client_id.clone();
            }
        }
        self.problem = None;
    }

    /// Draws the view; changes go straight into `settings`, service changes through "Connect";
    /// `logged_in` offers "Log out"; `library_sync` draws its card; `file_dialogs` says which file
    /// dialog is used.
    #[allow(clippy::too_many_arguments)]
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        settings: &mut Settings,
        logged_in: bool,
        data_dir: &std::path::Path,
        file_dialogs: &str,
        library_sync: &mut LibrarySync,
        commands: &mut CommandQueue,
    ) {
        ui.heading("Settings");
        ui.add_space(8.0);
        egui::ScrollArea::vertical().show(ui, |ui| {
            self.service_ui(ui, settings, logged_in, commands);
            ui.add_space(12.0);
            if settings.service.is_local() {
                self.samples_ui(ui, commands);
            }
            Self::indexing_ui(ui, settings, commands);
            ui.add_space(12.0);
            Self::appearance_ui(ui, settings);
            ui.add_space(12.0);
            library_sync.settings_ui(ui, &mut settings.library_sync, commands);
            ui.add_space(12.0);
            // Last: an admin's card, whose content arrives from the service after the page is
            // drawn, so the cards above it never move when it does.
            if logged_in {
                self.callbacks.ui(ui, commands);
                ui.add_space(12.0);
            }
            ui.label(egui::RichText::new(format!("Data folder: {}", data_dir.display())).weak());
            ui.label(egui::RichText::new(format!("File dialogs: {file_dialogs}")).weak());
        });
    }

    fn service_ui(
        &mut self,
        ui: &mut egui::Ui,
        settings: &mut Settings,
        logged_in: bool,
        commands: &mut CommandQueue,
    ) {
        super::theme::card_ui(ui, "Service", |ui| {
            ui.radio_value(
                &mut self.kind,
                ServiceKind::Local,
                "Local workspace (on this computer, no login)",
            );
            ui.radio_value(&mut self.kind, ServiceKind::Remote, "Remote service");
            if self.kind == ServiceKind::Remote {
                egui::Grid::new("remote_service_grid")
                    .num_columns(2)
                    .spacing([8.0, 6.0])
                    .show(ui, |ui| {
                        remote_service_rows_ui(ui, &mut self.address, &mut self.client_id);
                    });
            }
            let wanted = match self.kind {
                ServiceKind::Local => Ok(ServiceChoice::LocalWorkspace),
                ServiceKind::Remote => {
                    ServiceChoice::checked_remote(&self.address, &self.client_id)
                }
            };
            let changed = wanted.as_ref().ok() != Some(&settings.service);
            ui.horizontal(|ui| {
                if ui
                    .add_enabled(changed, egui::Button::new("Connect"))
                    .on_hover_text("Use this service from now on; the choice is remembered.")
                    .clicked()
                {
                    match wanted.clone() {
                        Ok(service) => {
                            if let ServiceChoice::Remote { address, client_id } = &service {
                                settings.remote_address = address.clone();
                                settings.remote_client_id = client_id.clone();
                            }
                            settings.service = service.clone();
                            self.problem = None;
                            commands.backend(Command::Connect {
                                service,
                                user: settings.last_user.clone(),
                            });
                        }
                        Err(problem) => self.problem = Some(problem),
                    }
                }
                if logged_in
                    && !settings.service.is_local()
                    && ui
                        .button("Log out")
                        .on_hover_text("End the session and forget the remembered login.")
                        .clicked()
                {
                    commands.backend(Command::LogOut);
                }
                if settings.service.is_local() && !changed {
                    ui.label(egui::RichText::new("In use").weak());
                }
            });
            if let Some(problem) = &self.problem {
                ui.colored_label(super::theme::error_color(ui), problem);
            }
        });
    }

    /// The sample library of the local workspace: what it is and *Remove the sample library*.
    fn samples_ui(&self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        let Some(status) = &self.samples else {
            return;
        };
        super::theme::card_ui(ui, "Sample library", |ui| {
            let (text, removable) = match status {
                SampleLibraryStatus::Adding { added, total, .. } => (
                    format!(
                        "{added} of {total} sample parts are in; the rest go up in the background."
                    ),
                    true,
                ),
                SampleLibraryStatus::Added { parts } => (
                    format!("{parts} sample parts to try searches on, stored under Samples/."),
                    true,
                ),
                SampleLibraryStatus::Removing => ("Removing the sample parts…".to_owned(), false),
                SampleLibraryStatus::Removed => (
                    "Removed. It is not added again in this workspace.".to_owned(),
                    false,
                ),
            };
            ui.add(egui::Label::new(text).wrap());
            if removable
                && ui
                    .button("Remove the sample library")
                    .on_hover_text(
                        "Delete every sample part from the workspace; it is not added again.",
                    )
                    .clicked()
            {
                commands.backend(Command::RemoveSampleLibrary);
            }
        });
        ui.add_space(12.0);
    }

    fn indexing_ui(ui: &mut egui::Ui, settings: &mut Settings, commands: &mut CommandQueue) {
        super::theme::card_ui(ui, "Indexing and thumbnails", |ui| {
            egui::Grid::new("indexing_grid")
                .num_columns(2)
                .spacing([8.0, 6.0])
                .show(ui, |ui| {
                    let label = ui.label("Status polling interval (seconds)");
                    let response = ui
                        .add(
                            egui::DragValue::new(&mut settings.poll_interval_secs)
                                .range(MIN_POLL_INTERVAL_SECS..=60.0)
                                .speed(0.1)
                                .max_decimals(2),
                        )
                        .labelled_by(label.id)
                        .on_hover_text("The first wait between two status checks; it backs off to 2.5 times this.");
                    if response.changed() {
                        commands.push(AppCommand::Backend(Command::SetPollPolicy(
                            settings.poll_policy(),
                        )));
                    }
                    ui.end_row();
                    let label = ui.label("Thumbnail cache size (MiB)");
                    ui.add(
                        egui::DragValue::new(&mut settings.thumbnail_cache_mib)
                            .range(16..=8192)
                            .speed(4.0),
                    )
                    .labelled_by(label.id);
                    ui.end_row();
                });
        });
    }

    fn appearance_ui(ui: &mut egui::Ui, settings: &mut Settings) {
        super::theme::card_ui(ui, "Theme", |ui| {
            ui.horizontal(|ui| {
                for theme in ThemeChoice::ALL {
                    if ui
                        .radio_value(&mut settings.theme, theme, theme.label())
                        .changed()
                    {
                        super::theme::apply(ui.ctx(), theme);
                    }
                }
            });
        });
    }
}

/// The "Service address" and "Client id" rows of a two-column grid (Settings and the login form).
pub fn remote_service_rows_ui(ui: &mut egui::Ui, address: &mut String, client_id: &mut String) {
    let label = ui.label("Service address");
    ui.add(egui::TextEdit::singleline(address).hint_text("https://search.example.com"))
        .labelled_by(label.id);
    ui.end_row();
    let label = ui.label("Client id");
    ui.text_edit_singleline(client_id).labelled_by(label.id);
    ui.end_row();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_policy_backs_off_to_two_and_a_half_times_the_interval() {
        let settings = Settings::default();
        let policy = settings.poll_policy();
        assert_eq!(policy.first_interval, Duration::from_secs(2));
        assert_eq!(policy.max_interval, Duration::from_secs(5));
        let fast = Settings {
            poll_interval_secs: 0.0,
            ..Settings::default()
        };
        assert_eq!(fast.poll_policy().first_interval, Duration::from_millis(50));
    }

    #[test]
    fn old_settings_files_load_with_defaults_for_new_fields() {
        let settings: Settings = serde_json::from_str(r#"{"poll_interval_secs": 3.0}"#).unwrap();
        assert_eq!(settings.poll_interval_secs, 3.0);
        assert_eq!(settings.service, ServiceChoice::LocalWorkspace);
        assert_eq!(settings.remote_client_id, DEFAULT_CLIENT_ID);
    }
}
