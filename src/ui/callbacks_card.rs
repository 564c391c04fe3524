//! Settings → Callbacks, for a company's admins: where the service POSTs its events (URL, which
//! events, on or off), the signing secret (write-only; a secret the service makes is shown once,
//! with *Copy*), *Save*, *Send a test*, and the last deliveries. The company's callback is asked
//! for the first time the card is drawn after a login; a non-admin (403) sees one line saying
//! who sets it. A failed save keeps everything typed and says what to do.

use super::app_command::CommandQueue;
use partlens_api::callbacks::CALLBACK_EVENTS;
use partlens_api::{
    ApiError, CallbackDelivery, CallbackOverview, CallbackSettingsView, CallbackTestOutcome,
    CallbackUpdate,
};
use partlens_tasks::Command;
use partlens_tasks::wording::clause;

/// The words of each event's checkbox, in [`CALLBACK_EVENTS`]'s order.
const EVENT_LABELS: [&str; 3] = ["Indexing completed", "Indexing failed", "File deleted"];

/// The line a non-admin sees.
pub const ADMINS_ONLY: &str = "Callbacks are set by your company's admins.";

/// Where the company's callback is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Loaded {
    /// Not asked yet (asked when the card is drawn).
    #[default]
    Unasked,
    /// Being loaded.
    Loading,
    /// The caller is no admin.
    NotAdmin,
    /// Could not be loaded; the sentence says why and what to do.
    Failed(String),
    /// Loaded: the form shows it.
    Ready,
}

/// The form: what the admin edits, kept through failed saves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Form {
    url: String,
    events: [bool; 3],
    enabled: bool,
    /// A secret typed to use instead (write-only: never filled from the service).
    secret: String,
    /// A new secret is made on *Save*.
    new_secret: bool,
}

impl Form {
    /// The form showing saved `settings` (never set: every event, on).
    fn of(settings: &CallbackSettingsView) -> Self {
        let never_set = settings.updated_at.is_none();
        Self {
            url: settings.url.clone(),
            events: CALLBACK_EVENTS
                .map(|event| never_set || settings.events.iter().any(|on| on == event)),
            enabled: settings.enabled || never_set,
            secret: String::new(),
            new_secret: false,
        }
    }

    /// What *Save* sends.
    fn update(&self) -> CallbackUpdate {
        CallbackUpdate {
            url: self.url.trim().to_owned(),
            events: CALLBACK_EVENTS
                .iter()
                .zip(self.events)
                .filter(|(_, on)| *on)
                .map(|(event, _)| (*event).to_owned())
                .collect(),
            enabled: self.enabled,
            secret: Some(self.secret.trim().to_owned()).filter(|secret| !secret.is_empty()),
            new_secret: self.new_secret,
        }
    }
}

/// The Callbacks card's state.
#[derive(Debug, Default)]
pub struct CallbacksCard {
    loaded: Loaded,
    form: Form,
    /// Whether the saved settings have a secret.
    secret_set: bool,
    /// Whether the saved settings have a URL (a test needs one).
    url_saved: bool,
    deliveries: Vec<CallbackDelivery>,
    saving: bool,
    /// Why the last save failed, and what to do.
    save_problem: Option<String>,
    /// The secret the last save made, shown once.
    made_secret: Option<String>,
    testing: bool,
    /// What the last test ended in: delivered, and the sentence.
    test_result: Option<(bool, String)>,
}

impl CallbacksCard {
    /// Forgets everything (another user or service): asked again when the card is drawn.
    pub fn forget(&mut self) {
        *self = Self::default();
    }

    /// The company's callback loaded, or why not.
    pub fn on_loaded(&mut self, loaded: Result<CallbackOverview, ApiError>) {
        match loaded {
            Ok(overview) => {
                // A reload (after a test) keeps what is being typed.
                if self.loaded != Loaded::Ready {
                    self.form = Form::of(&overview.settings);
                }
                self.secret_set = overview.settings.secret_set;
                self.url_saved = !overview.settings.url.is_empty();
                self.deliveries = overview.deliveries;
                self.loaded = Loaded::Ready;
            }
            Err(ApiError::Forbidden { .. }) => self.loaded = Loaded::NotAdmin,
            Err(ApiError::NotFound { .. }) => {
                self.loaded = Loaded::Failed(
                    "This service offers no callbacks (it is not a partlens service).".into(),
                );
            }
            Err(error) => {
                self.loaded = Loaded::Failed(format!(
                    "The callback could not be loaded: {}. Check the connection, then press \
                     Retry.",
                    clause(&error.to_string())
                ));
            }
        }
    }

    /// A save ended; `commands` asks for the deliveries again after a success.
    pub fn on_saved(
        &mut self,
        saved: Result<CallbackSettingsView, ApiError>,
        commands: &mut CommandQueue,
    ) {
        self.saving = false;
        match saved {
            Ok(settings) => {
                self.made_secret = settings.secret.clone();
                self.form = Form::of(&settings);
                self.secret_set = settings.secret_set;
                self.url_saved = !settings.url.is_empty();
                self.save_problem = None;
                commands.backend(Command::LoadCallback);
            }
            Err(error) => {
                self.save_problem = Some(match error {
                    ApiError::BadRequest { message, .. } => {
                        format!(
                            "Not saved: {}. Correct it and press Save again.",
                            clause(&message)
                        )
                    }
                    ApiError::Forbidden { .. } => {
                        "Not saved: only an admin may set the callback.".to_owned()
                    }
                    other => format!(
                        "Not saved: {}. Nothing you typed is lost; press Save again.",
                        clause(&other.to_string())
                    ),
                });
            }
        }
    }

    /// A test ended.
    pub fn on_tested(&mut self, tested: Result<CallbackTestOutcome, ApiError>) {
        self.testing = false;
        self.test_result = Some(match tested {
            Ok(outcome) if outcome.delivered => (
                true,
                format!(
                    "The receiver answered {}: the test was delivered.",
                    outcome.status.unwrap_or_default()
                ),
            ),
            Ok(outcome) => (
                false,
                match (outcome.status, outcome.error) {
                    (Some(status), _) => format!(
                        "The receiver answered {status}: check that it takes POSTs at this URL."
                    ),
                    (None, Some(error)) => format!(
                        "No answer from the receiver: {}. Check the URL and that the receiver \
                         runs.",
                        clause(&error)
                    ),
                    (None, None) => "No answer from the receiver.".to_owned(),
                },
            ),
            Err(error) => (
                false,
                format!("The test was not sent: {}.", clause(&error.to_string())),
            ),
        });
    }

    /// Draws the card (when logged in); the first draw asks for the company's callback.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        if self.loaded == Loaded::Unasked {
            self.loaded = Loaded::Loading;
            commands.backend(Command::LoadCallback);
        }
        super::theme::card_ui(ui, "Callbacks", |ui| match &self.loaded {
            Loaded::Unasked | Loaded::Loading => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Loading the company's callback…");
                });
            }
            Loaded::NotAdmin => {
                ui.label(ADMINS_ONLY);
            }
            Loaded::Failed(message) => {
                ui.colored_label(super::theme::error_color(ui), message.clone());
                if ui.button("Retry").clicked() {
                    self.loaded = Loaded::Loading;
                    commands.backend(Command::LoadCallback);
                }
            }
            Loaded::Ready => self.form_ui(ui, commands),
        });
    }

    /// The form, its actions and the deliveries.
    fn form_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.add(
            egui::Label::new(
                "The service POSTs each event of the company's files to this URL, signed with the \
                 secret (Standard Webhooks).",
            )
            .wrap(),
        );
        egui::Grid::new("callback_grid")
            .num_columns(2)
            .spacing([8.0, 6.0])
            .show(ui, |ui| {
                let label = ui.label("Callback URL");
                ui.add(
                    egui::TextEdit::singleline(&mut self.form.url)
                        .hint_text("https://hooks.example.com/partlens (empty: off)")
                        .desired_width(420.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                ui.label("Events");
                ui.horizontal_wrapped(|ui| {
                    for (on, label) in self.form.events.iter_mut().zip(EVENT_LABELS) {
                        ui.checkbox(on, label);
                    }
                });
                ui.end_row();
                ui.label("");
                ui.checkbox(&mut self.form.enabled, "Send callbacks");
                ui.end_row();
                self.secret_row_ui(ui);
            });
        self.made_secret_ui(ui);
        self.actions_ui(ui, commands);
        ui.add_space(8.0);
        self.deliveries_ui(ui);
    }

    /// The write-only secret and *Make a new secret*.
    fn secret_row_ui(&mut self, ui: &mut egui::Ui) {
        let label = ui.label("Secret");
        ui.horizontal(|ui| {
            let hint = if self.secret_set {
                "set (type one to replace it)"
            } else {
                "none yet: one is made on Save"
            };
            ui.add_enabled(
                !self.form.new_secret,
                egui::TextEdit::singleline(&mut self.form.secret)
                    .password(true)
                    .hint_text(hint)
                    .desired_width(260.0),
            )
            .labelled_by(label.id);
            if self.form.new_secret {
                ui.label("A new secret is made on Save.");
                if ui.button("Keep the current secret").clicked() {
                    self.form.new_secret = false;
                }
            } else if self.secret_set
                && ui
                    .button("Make a new secret")
                    .on_hover_text("Save then makes a new secret and shows it once.")
                    .clicked()
            {
                self.form.new_secret = true;
                self.form.secret.clear();
            }
        });
        ui.end_row();
    }

    /// The secret a save made, once, with *Copy*.
    fn made_secret_ui(&mut self, ui: &mut egui::Ui) {
        let Some(secret) = self.made_secret.clone() else {
            return;
        };
        ui.add_space(4.0);
        ui.colored_label(
            super::theme::warning_color(ui),
            "The new secret, shown once: copy it to your receiver now.",
        );
        ui.horizontal(|ui| {
            ui.label(egui::RichText::new(&secret).monospace());
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(secret.clone());
            }
            if ui.button("Done").clicked() {
                self.made_secret = None;
            }
        });
    }

    /// *Save*, *Send a test* and what they ended in.
    fn actions_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let save = super::theme::primary_button(ui, "Save");
            if ui.add_enabled(!self.saving, save).clicked() {
                self.saving = true;
                self.save_problem = None;
                commands.backend(Command::SaveCallback(self.form.update()));
            }
            let test = ui
                .add_enabled(
                    self.url_saved && !self.testing,
                    egui::Button::new("Send a test"),
                )
                .on_hover_text("Send a callback.test event to the saved URL now.")
                .on_disabled_hover_text("Save a URL first.");
            if test.clicked() {
                self.testing = true;
                self.test_result = None;
                commands.backend(Command::TestCallback);
            }
            if self.saving || self.testing {
                ui.spinner();
            }
        });
        if let Some(problem) = &self.save_problem {
            ui.colored_label(super::theme::error_color(ui), problem.clone());
        }
        if let Some((delivered, text)) = &self.test_result {
            let color = if *delivered {
                super::theme::success_color(ui)
            } else {
                super::theme::error_color(ui)
            };
            ui.colored_label(color, text.clone());
        }
    }

    /// The last deliveries: event, file, state, attempts, last error.
    fn deliveries_ui(&self, ui: &mut egui::Ui) {
        ui.label(egui::RichText::new("Last deliveries").strong());
        if self.deliveries.is_empty() {
            ui.label(egui::RichText::new("None yet.").weak());
            return;
        }
        egui::Grid::new("callback_deliveries")
            .num_columns(5)
            .striped(true)
            .spacing([12.0, 4.0])
            .show(ui, |ui| {
                for heading in ["Event", "File", "State", "Attempts", "Last error"] {
                    ui.label(egui::RichText::new(heading).weak());
                }
                ui.end_row();
                for delivery in &self.deliveries {
                    ui.label(&delivery.event);
                    ui.label(
                        delivery
                            .stored_path
                            .as_deref()
                            .or(delivery.file_uid.as_deref())
                            .unwrap_or("—"),
                    );
                    ui.label(&delivery.state);
                    ui.label(delivery.attempts.to_string());
                    let error = delivery.last_error.as_deref().unwrap_or("");
                    if error.is_empty() {
                        ui.label("");
                    } else {
                        ui.add(egui::Label::new(error).truncate())
                            .on_hover_text(error);
                    }
                    ui.end_row();
                }
            });
    }
}
