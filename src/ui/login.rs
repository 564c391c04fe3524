//! The login form of a remote service, shown as a modal over whatever the user was doing (nothing
//! underneath is lost; the action a 401 stopped runs again after the login).
//!
//! The password is only held while the form is open and is cleared once sent; "Remember me" keeps the
//! token (never the password) in the OS keyring.

use super::app_command::{AppCommand, CommandQueue};
use super::settings::remote_service_rows_ui;
use partlens_tasks::service_choice::DEFAULT_CLIENT_ID;
use partlens_tasks::{Command, ServiceChoice};

/// The login form's state.
#[derive(Debug)]
pub struct LoginView {
    open: bool,
    address: String,
    client_id: String,
    user: String,
    password: String,
    remember: bool,
    reason: Option<String>,
    error: Option<String>,
    busy: bool,
    focus_pending: bool,
}

impl Default for LoginView {
    fn default() -> Self {
        Self {
            open: false,
            address: String::new(),
            client_id: DEFAULT_CLIENT_ID.to_owned(),
            user: String::new(),
            password: String::new(),
            remember: true,
            reason: None,
            error: None,
            busy: false,
            focus_pending: false,
        }
    }
}

impl LoginView {
    /// Opens the form for `service`, prefilled with `user`, saying `reason` when there is one.
    pub fn open_for(
        &mut self,
        service: &ServiceChoice,
        user: Option<String>,
        reason: Option<String>,
    ) {
        if let ServiceChoice::Remote { address, client_id } = service {
            self.address = address.clone();
            self.client_id = client_id.clone();
        }
        if let Some(user) = user {
            self.user = user;
        }
        self.reason = reason;
        self.error = None;
        self.busy = false;
        self.open = true;
        self.focus_pending = true;
    }

    /// Opens the form again as it was (the "Log in" button of the not-logged-in banner).
    pub fn reopen(&mut self) {
        self.open = true;
        self.focus_pending = true;
    }

    /// Closes the form after a successful login.
    pub fn close(&mut self) {
        self.open = false;
        self.busy = false;
        self.error = None;
        self.reason = None;
        self.password.clear();
    }

    /// Shows why the login failed; the form stays open.
    pub fn failed(&mut self, message: String) {
        self.busy = false;
        self.error = Some(message);
        self.focus_pending = true;
    }

    /// True while the form is shown.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Draws the modal when open. Esc or a click beside it closes it (the app then offers "Log in").
    pub fn ui(&mut self, ctx: &egui::Context, commands: &mut CommandQueue) {
        if !self.open {
            return;
        }
        let frame = egui::Frame::popup(&ctx.global_style()).inner_margin(egui::Margin::same(20));
        let modal = egui::Modal::new(egui::Id::unique("login_modal"))
            .frame(frame)
            .show(ctx, |ui| {
                ui.set_width(380.0);
                ui.heading("Log in");
                ui.label("Log in to the service to search and upload.");
                if let Some(reason) = &self.reason {
                    ui.add_space(4.0);
                    ui.colored_label(super::theme::warning_color(ui), reason);
                }
                ui.add_space(8.0);
                let mut submit = false;
                egui::Grid::new("login_grid")
                    .num_columns(2)
                    .spacing([8.0, 8.0])
                    .show(ui, |ui| {
                        remote_service_rows_ui(ui, &mut self.address, &mut self.client_id);

                        let label = ui.label("User");
                        let user = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.user)
                                    .hint_text("name@example.com"),
                            )
                            .labelled_by(label.id);
                        ui.end_row();

                        let label = ui.label("Password");
                        let password = ui
                            .add(egui::TextEdit::singleline(&mut self.password).password(true))
                            .labelled_by(label.id);
                        ui.end_row();

                        if self.focus_pending {
                            self.focus_pending = false;
                            if self.user.trim().is_empty() {
                                user.request_focus();
                            } else {
                                password.request_focus();
                            }
                        }
                        if password.lost_focus()
                            && ui.input(|input| input.key_pressed(egui::Key::Enter))
                        {
                            submit = true;
                        }
                    });
                ui.checkbox(&mut self.remember, "Remember me")
                    .on_hover_text(
                        "Keep the login token in the system keyring. The password is never stored.",
                    );
                if let Some(error) = &self.error {
                    ui.add_space(4.0);
                    ui.colored_label(super::theme::error_color(ui), error);
                }
                ui.add_space(8.0);
                ui.horizontal(|ui| {
                    let ready = !self.busy && !self.user.trim().is_empty();
                    if ui
                        .add_enabled(ready, super::theme::primary_button(ui, "Log in"))
                        .clicked()
                    {
                        submit = true;
                    }
                    if self.busy {
                        ui.spinner();
                        ui.label("Logging in…");
                    }
                    if ui
                        .button("Use the local workspace")
                        .on_hover_text("Work on this computer instead, without a login.")
                        .clicked()
                    {
                        commands.push(AppCommand::Backend(Command::Connect {
                            service: ServiceChoice::LocalWorkspace,
                            user: None,
                        }));
                        self.close();
                    }
                });
                submit
            });
        if modal.inner && !self.busy {
            self.submit(commands);
        }
        if modal.should_close() && !self.busy {
            self.open = false;
        }
    }

    fn submit(&mut self, commands: &mut CommandQueue) {
        if self.user.trim().is_empty() {
            self.error = Some("Enter your user name.".into());
            return;
        }
        match ServiceChoice::checked_remote(&self.address, &self.client_id) {
            Ok(service) => {
                self.error = None;
                self.busy = true;
                commands.backend(Command::LogIn {
                    service,
                    user: self.user.trim().to_owned(),
                    password: std::mem::take(&mut self.password),
                    remember: self.remember,
                });
            }
            Err(problem) => self.error = Some(problem),
        }
    }
}
