//! The eframe app: the shell around the views (top bar, notices, the current place, the login modal,
//! the drop overlay), the keyboard shortcuts, and the loop between the views and the task layer.
//!
//! `logic` drains the backend's events into the app's state (it runs even while the window is
//! hidden); `ui` draws and collects the views' commands, which are carried out at the end of the frame.
//! Keyboard: Ctrl+O add files, Ctrl+F search field, Ctrl+H search history, Ctrl+L the Library,
//! Ctrl+Shift+D Duplicates (Ctrl+D is the drawing data of a file's detail), Ctrl+V searches by the
//! picture or file path on the clipboard, F1 or `?` the shortcuts sheet ([`super::shortcuts`]);
//! the lists' keys are in [`super::keyboard`].
//! Nothing here awaits or touches the network.

use std::path::PathBuf;
use std::sync::{Arc, mpsc};

use super::app_command::{AppCommand, CommandQueue};
use super::attributes::AttributeDrafts;
use super::detail::OpenedFrom;
use super::drop_overlay;
use super::duplicates::{DuplicatesIntent, DuplicatesView};
use super::file_browser::{
    BrowseAnswer, BrowsePurpose, BrowserOutcome, FileBrowser, RecentFolders,
};
use super::jobs::{JobsIntent, jobs_ui};
use super::keyboard;
use super::library::{LibraryIntent, LibraryView};
use super::library_sync::LibrarySync;
use super::login::LoginView;
use super::notices::Notices;
use super::place::Place;
use super::pmi::feedback::FeedbackDrafts;
use super::search_bar::SEARCH_FIELD_ID;
use super::search_place::{SearchPage, SearchPlace};
use super::settings::{STORAGE_KEY, Settings, SettingsView};
use super::shortcuts::ShortcutsSheet;
use super::theme;
use super::top_bar::{TopBarStatus, top_bar_ui};
use super::upload::UploadView;
use crate::desktop::DialogChoice;
use partlens_tasks::{Backend, Command, Event, Job, NoticeLevel, SessionInfo};

/// The key under which eframe's storage keeps the place the user was at (its name from before places
/// were called places, so a stored place is still found).
const PLACE_STORAGE_KEY: &str = "partlens.view";

/// The key under which eframe's storage keeps unsaved attribute edits (offered again at the next
/// start).
const DRAFTS_STORAGE_KEY: &str = "partlens.attribute_drafts";

/// The key under which eframe's storage keeps unsent feedback on extracted attributes.
const FEEDBACK_DRAFTS_STORAGE_KEY: &str = "partlens.feedback_drafts";

/// The key under which eframe's storage keeps the folders files were last chosen from in the app's
/// own file browser.
const RECENT_FOLDERS_STORAGE_KEY: &str = "partlens.recent_folders";

/// What the app needs besides its backend.
#[derive(Clone, Debug)]
pub struct AppOptions {
    /// The app's data directory (shown in Settings).
    pub data_dir: PathBuf,
    /// Settings to start with instead of the stored ones (tests; eframe storage is not available
    /// there).
    pub settings: Option<Settings>,
    /// Files given on the command line ("Open with partlens"): they start in the upload form.
    pub initial_files: Vec<PathBuf>,
    /// Files given after `--search`: they start as the views of a search.
    pub initial_views: Vec<PathBuf>,
    /// Which file dialog is used: the platform's or the app's own browser (shared with the picker,
    /// which switches it when the platform's cannot open).
    pub dialogs: DialogChoice,
}

/// Where the connection to the service is, as the shell shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectionState {
    /// Opening the service.
    Connecting(String),
    /// Logged in.
    Ready,
    /// A login is needed.
    NeedsLogin,
    /// The service could not be opened.
    Failed(String),
}

/// The partlens desktop app.
pub struct App {
    backend: Backend,
    events: mpsc::Receiver<Event>,
    data_dir: PathBuf,
    settings: Settings,
    place: Place,
    connection: ConnectionState,
    session: Option<SessionInfo>,
    jobs: Vec<Job>,
    commands: CommandQueue,
    login: LoginView,
    upload: UploadView,
    settings_view: SettingsView,
    search: SearchPlace,
    library: LibraryView,
    duplicates: DuplicatesView,
    notices: Notices,
    library_sync: LibrarySync,
    dialogs: DialogChoice,
    /// The app's own file browser, while open.
    file_browser: Option<FileBrowser>,
    recent_folders: RecentFolders,
    /// What the native dialog was last opened for, until it answers: opened again in the app's own
    /// browser when the native one turns out not to open.
    native_pick: Option<BrowsePurpose>,
    /// The connection to open once the first frame is on screen (starting the local workspace's
    /// service, its login and a new workspace's sample library on the machine's cores delayed the
    /// first frame: docs/PERFORMANCE.md, "Cold start").
    connect_after_first_frame: Option<Command>,
    /// True once the first frame has been drawn.
    first_frame_drawn: bool,
    /// What the local workspace is doing after its login (adding its sample library), if anything.
    workspace_activity: Option<String>,
    /// The keyboard shortcuts sheet.
    shortcuts: ShortcutsSheet,
    /// Why the service does not answer, while it does not (one banner says so).
    service_away: Option<String>,
}

impl App {
    /// Builds the app: restores settings and the last place from eframe's storage (or takes
    /// `options.settings`), applies the theme, and connects to the chosen service.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        backend: Backend,
        events: mpsc::Receiver<Event>,
        options: AppOptions,
    ) -> Self {
        let stored_settings = cc
            .storage
            .and_then(|storage| eframe::get_value::<Settings>(storage, STORAGE_KEY));
        let settings = options.settings.or(stored_settings).unwrap_or_default();
        let mut place = cc
            .storage
            .and_then(|storage| eframe::get_value::<Place>(storage, PLACE_STORAGE_KEY))
            .unwrap_or_default();
        let drafts = cc
            .storage
            .and_then(|storage| eframe::get_value::<AttributeDrafts>(storage, DRAFTS_STORAGE_KEY))
            .unwrap_or_default();
        let feedback_drafts = cc
            .storage
            .and_then(|storage| {
                eframe::get_value::<FeedbackDrafts>(storage, FEEDBACK_DRAFTS_STORAGE_KEY)
            })
            .unwrap_or_default();
        let recent_folders = cc
            .storage
            .and_then(|storage| {
                eframe::get_value::<RecentFolders>(storage, RECENT_FOLDERS_STORAGE_KEY)
            })
            .unwrap_or_default();
        options.dialogs.set_repaint(&cc.egui_ctx);
        let mut search = SearchPlace::new(drafts, feedback_drafts);
        let mut commands = CommandQueue::default();
        if !options.initial_views.is_empty() {
            search.add_views(options.initial_views);
            // `partlens --search` runs the search at once; it waits for the login like any work.
            search.run_search(&mut commands);
            place = Place::Search;
        }
        let mut upload = UploadView::default();
        if !options.initial_files.is_empty() {
            upload.stage(options.initial_files);
            place = Place::Upload;
        }
        super::model_view::gpu::install(cc);
        let ctx = cc.egui_ctx.clone();
        backend.set_repaint(Arc::new(move || ctx.request_repaint()));
        theme::apply(&cc.egui_ctx, settings.theme);
        backend.send(Command::SetPollPolicy(settings.poll_policy()));
        let connect = Command::Connect {
            service: settings.service.clone(),
            user: settings.last_user.clone(),
        };
        Self {
            backend,
            events,
            data_dir: options.data_dir,
            settings_view: SettingsView::new(&settings),
            settings,
            place,
            connection: ConnectionState::Connecting("Connecting…".into()),
            session: None,
            jobs: Vec::new(),
            commands,
            login: LoginView::default(),
            upload,
            search,
            library: LibraryView::default(),
            duplicates: DuplicatesView::default(),
            notices: Notices::default(),
            library_sync: LibrarySync::default(),
            dialogs: options.dialogs,
            file_browser: None,
            recent_folders,
            native_pick: None,
            connect_after_first_frame: Some(connect),
            first_frame_drawn: false,
            workspace_activity: None,
            shortcuts: ShortcutsSheet::default(),
            service_away: None,
        }
    }

    /// The jobs as the app shows them.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Who is logged in where, when logged in.
    pub fn session(&self) -> Option<&SessionInfo> {
        self.session.as_ref()
    }

    /// What the local workspace is doing after its login ("Adding the sample library (3 of
    /// 22)…"), if anything.
    pub fn workspace_activity(&self) -> Option<&str> {
        self.workspace_activity.as_deref()
    }

    /// Where the connection is.
    pub fn connection(&self) -> &ConnectionState {
        &self.connection
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The place shown.
    pub fn place(&self) -> Place {
        self.place
    }

    /// The top bar's tab lit for what is shown: a detail or a comparison opened from the Library
    /// or Duplicates is drawn by the Search place but belongs to the place its back button leads to.
    pub fn highlighted_place(&self) -> Place {
        match self.place {
            Place::Search => self.search.opened_from_place().unwrap_or(Place::Search),
            place => place,
        }
    }

    /// The backend (tests and `main` shut it down).
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// The messages at the bottom of the window.
    pub fn notices(&self) -> &Notices {
        &self.notices
    }

    /// The Search place (query bar, results, detail, attribute editor).
    pub fn search(&self) -> &SearchPlace {
        &self.search
    }

    /// The Library place (every file of the company).
    pub fn library(&self) -> &LibraryView {
        &self.library
    }

    /// The Library place, to change (tests bring a file on screen with it, as Home and End do).
    pub fn library_mut(&mut self) -> &mut LibraryView {
        &mut self.library
    }

    /// The Duplicates place (files of the company that are the same part).
    pub fn duplicates(&self) -> &DuplicatesView {
        &self.duplicates
    }

    /// True while the login form is shown.
    pub fn login_open(&self) -> bool {
        self.login.is_open()
    }

    /// Library sync: the preview in Settings and the syncs in the jobs panel.
    pub fn library_sync(&self) -> &LibrarySync {
        &self.library_sync
    }

    /// The app's own file browser, while open (tests drive it by its labels).
    pub fn file_browser(&self) -> Option<&FileBrowser> {
        self.file_browser.as_ref()
    }

    /// Which file dialog is in use.
    pub fn dialogs(&self) -> &DialogChoice {
        &self.dialogs
    }

    fn handle_event(&mut self, ctx: &egui::Context, event: Event) {
        if is_pick_answer(&event) && !self.dialogs.uses_in_app() {
            self.native_pick = None;
        }
        if let Event::FileDeleted(uid) = &event {
            // Deleted from the detail of a duplicate: its group no longer shows it.
            self.duplicates.remove_file(uid);
        }
        let Some(event) = self.search.handle_event(ctx, event) else {
            return;
        };
        let Some(event) = self.library.handle_event(event) else {
            return;
        };
        let Some(event) = self.duplicates.handle_event(event) else {
            return;
        };
        let Some(event) = self
            .library_sync
            .handle_event(event, &mut self.settings.library_sync)
        else {
            return;
        };
        match event {
            Event::Connecting { detail } => self.connection = ConnectionState::Connecting(detail),
            Event::ServiceUnreachable { message } => self.service_away = Some(message),
            Event::ServiceReachable => {
                self.service_away = None;
                // What could not be listed meanwhile is listed again.
                self.library.reload_if_failed();
            }
            Event::SampleLibrary(status) => {
                if matches!(
                    status,
                    partlens_tasks::samples::record::SampleLibraryStatus::Removed
                ) {
                    self.library.invalidate();
                    self.duplicates.invalidate();
                }
                self.settings_view.set_sample_library(status);
            }
            Event::WorkspaceActivity { detail } => {
                if detail.is_none() {
                    // The samples are in: a Library listed meanwhile is missing some.
                    self.library.invalidate();
                    self.duplicates.invalidate();
                }
                self.workspace_activity = detail;
            }
            Event::LoggedIn(info) => {
                self.connection = ConnectionState::Ready;
                // Another user or service may see other files.
                self.library.invalidate();
                self.duplicates.invalidate();
                self.search.forget_completions();
                self.upload.forget_categories();
                self.settings_view.callbacks_mut().forget();
                self.search.set_reviewer(&info.user);
                self.login.close();
                if self.settings.service != info.service {
                    self.settings.service = info.service.clone();
                    self.settings_view.reset(&self.settings);
                }
                if let partlens_tasks::ServiceChoice::Remote { address, client_id } = &info.service
                {
                    self.settings.remote_address = address.clone();
                    self.settings.remote_client_id = client_id.clone();
                    self.settings.last_user = Some(info.user.clone());
                }
                self.session = Some(info);
            }
            Event::LoginRequired {
                service,
                user,
                reason,
            } => {
                self.connection = ConnectionState::NeedsLogin;
                self.session = None;
                self.login.open_for(&service, user, reason);
            }
            Event::LoginFailed { message } => self.login.failed(message),
            Event::ConnectFailed { message } => {
                self.connection = ConnectionState::Failed(message);
                self.session = None;
            }
            Event::LoggedOut => {
                self.session = None;
                self.settings_view.callbacks_mut().forget();
                self.library.invalidate();
                self.duplicates.invalidate();
            }
            Event::Notice { level, message } => self.notices.push(level, message),
            Event::JobsRestored(jobs) => self.jobs = jobs,
            Event::Categories(categories) => self.upload.set_categories(categories),
            Event::CallbackLoaded(loaded) => self.settings_view.callbacks_mut().on_loaded(loaded),
            Event::CallbackSaved(saved) => self
                .settings_view
                .callbacks_mut()
                .on_saved(saved, &mut self.commands),
            Event::CallbackTested(tested) => {
                self.settings_view.callbacks_mut().on_tested(tested);
            }
            Event::JobUpdated(job) => match self.jobs.iter_mut().find(|known| known.id == job.id) {
                Some(known) => *known = job,
                None => self.jobs.push(job),
            },
            Event::JobRemoved(id) => self.jobs.retain(|job| job.id != id),
            Event::FilesPicked(paths) if !paths.is_empty() => {
                self.upload.stage(paths);
                self.place = Place::Upload;
            }
            // A cancelled dialog; the search place's events were taken above.
            _ => {}
        }
    }

    fn run_commands(&mut self, ctx: &egui::Context) {
        for command in self.commands.drain() {
            match command {
                AppCommand::Backend(command) if BrowsePurpose::of_command(&command).is_some() => {
                    self.open_file_dialog(command);
                }
                AppCommand::Backend(command) => {
                    if let Command::Connect { service, .. } = &command {
                        self.settings.service = service.clone();
                        self.settings_view.reset(&self.settings);
                        self.session = None;
                        self.connection = ConnectionState::Connecting("Connecting…".into());
                    }
                    self.backend.send(command);
                }
                AppCommand::Navigate(place) => {
                    if place == Place::Search {
                        self.search.show_search_not_borrowed_page();
                    }
                    self.place = place;
                }
                AppCommand::StageFiles(paths) => {
                    self.upload.stage(paths);
                    self.place = Place::Upload;
                }
                AppCommand::ShowLogin => self.login.reopen(),
                AppCommand::FocusSearch => {
                    self.search.show_search_not_borrowed_page();
                    self.place = Place::Search;
                    ctx.memory_mut(|memory| {
                        memory.request_focus(egui::Id::unique(SEARCH_FIELD_ID))
                    });
                }
            }
        }
    }

    /// Opens the file dialog a pick or export command asks for: the app's own browser when it is
    /// the one in use, else the native dialog through the task layer.
    fn open_file_dialog(&mut self, command: Command) {
        let Some(purpose) = BrowsePurpose::of_command(&command) else {
            return;
        };
        match self.dialogs.in_app_reason() {
            Some(reason) => self.open_browser(purpose, reason),
            None => {
                self.native_pick = Some(purpose);
                self.backend.send(command);
            }
        }
    }

    fn open_browser(&mut self, purpose: BrowsePurpose, reason: String) {
        let start = self.recent_folders.existing().next().cloned();
        self.file_browser = Some(FileBrowser::open(purpose, reason, start.as_deref()));
    }

    /// A native dialog that turned out not to open: its pick opens again in the app's own browser.
    fn fall_back_to_the_app_browser(&mut self) {
        if self.native_pick.is_none() {
            return;
        }
        let Some(reason) = self.dialogs.in_app_reason() else {
            return;
        };
        if let Some(purpose) = self.native_pick.take() {
            self.notices.push(
                NoticeLevel::Warning,
                format!(
                    "{}: partlens's own file browser is used instead.",
                    capitalise(&reason)
                ),
            );
            self.open_browser(purpose, reason);
        }
    }

    fn file_browser_ui(&mut self, ctx: &egui::Context) {
        let Some(browser) = &mut self.file_browser else {
            return;
        };
        let BrowserOutcome::Closed(answer) = browser.ui(ctx, &mut self.recent_folders) else {
            return;
        };
        self.file_browser = None;
        match answer {
            Some(BrowseAnswer::Event(event)) => self.handle_event(ctx, *event),
            Some(BrowseAnswer::Command(command)) => self.commands.backend(*command),
            None => {}
        }
    }

    /// The shortcuts sheet, when open.
    pub fn shortcuts_sheet(&self) -> &ShortcutsSheet {
        &self.shortcuts
    }

    /// Ctrl+V outside a text field: a picture on the clipboard, or the paths of files, become the
    /// views of a new search; anything else is said once.
    fn paste(&mut self, ctx: &egui::Context) {
        if !keyboard::keys_free(ctx) {
            return;
        }
        let pasted = ctx.input(|input| {
            input.events.iter().find_map(|event| match event {
                egui::Event::Paste(text) => Some(Pasted::Text(text.clone())),
                egui::Event::PasteImage(image) => Some(Pasted::Picture(image.clone())),
                _ => None,
            })
        });
        match pasted {
            None => {}
            Some(Pasted::Picture(image)) => match png_of(&image) {
                Ok(png) => {
                    self.place = Place::Search;
                    self.search.search_by_picture(png, &mut self.commands);
                }
                Err(reason) => self.notices.push(
                    NoticeLevel::Warning,
                    format!("The picture on the clipboard could not be read: {reason}."),
                ),
            },
            Some(Pasted::Text(text)) => {
                let paths = pasted_paths(&text);
                if paths.is_empty() {
                    self.notices.push(
                        NoticeLevel::Info,
                        "The clipboard holds neither a picture nor the path of a file to search \
                         by. Copy a picture, or a file in the file manager, then press Ctrl+V."
                            .to_owned(),
                    );
                } else {
                    self.place = Place::Search;
                    self.search.search_by_files(paths, &mut self.commands);
                }
            }
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let open = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
        let find = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);
        let history = KeyboardShortcut::new(Modifiers::COMMAND, Key::H);
        let library = KeyboardShortcut::new(Modifiers::COMMAND, Key::L);
        let duplicates = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::D);
        let (open, find, history, library, duplicates) = ctx.input_mut(|input| {
            (
                input.consume_shortcut(&open),
                input.consume_shortcut(&find),
                input.consume_shortcut(&history),
                input.consume_shortcut(&library),
                // Before the detail's Ctrl+D (drawing data) sees it.
                input.consume_shortcut(&duplicates),
            )
        });
        if library {
            self.place = Place::Library;
        }
        if duplicates {
            self.place = Place::Duplicates;
        }
        if open {
            self.commands.backend(Command::PickFiles);
        }
        if history {
            if self.place != Place::Search || self.search.page() != SearchPage::History {
                self.search.toggle_history();
            }
            self.place = Place::Search;
        }
        if find {
            self.commands.push(AppCommand::FocusSearch);
        }
    }

    /// The service away: one banner, with what is kept and *Retry*.
    fn service_away_ui(&mut self, ui: &mut egui::Ui) {
        let Some(message) = &self.service_away else {
            return;
        };
        let message = message.clone();
        let kept = self.kept_while_away();
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(theme::warning_color(ui), &message);
                ui.label(kept);
            });
            ui.horizontal(|ui| {
                if ui
                    .button("Retry")
                    .on_hover_text("Ask the service again now (it is asked every few seconds).")
                    .clicked()
                {
                    self.commands.backend(Command::CheckService);
                }
                if ui.button("Open Settings").clicked() {
                    self.commands.push(AppCommand::Navigate(Place::Settings));
                }
            });
        });
        ui.add_space(6.0);
    }

    /// What waits for the service, in words ("Kept: 2 uploads, the unsaved attributes of 1 file.").
    fn kept_while_away(&self) -> String {
        let key = self.settings.service.key();
        let uploads = self
            .jobs
            .iter()
            .filter(|job| job.service == key && !job.phase.is_finished())
            .count();
        let mut kept = Vec::new();
        if uploads > 0 {
            kept.push(format!("{uploads} upload(s), which go on when it answers"));
        }
        if self.search.is_searching() {
            kept.push("the running search, which runs when it answers".to_owned());
        }
        let drafts = self.search.drafts().len();
        if drafts > 0 {
            kept.push(format!("the unsaved attribute edits of {drafts} file(s)"));
        }
        let feedback = self.search.feedback_drafts().len();
        if feedback > 0 {
            kept.push(format!("{feedback} unsent feedback draft(s)"));
        }
        if kept.is_empty() {
            "Nothing you did is lost.".to_owned()
        } else {
            format!("Kept: {}.", kept.join(", "))
        }
    }

    fn connection_banner_ui(&mut self, ui: &mut egui::Ui) {
        self.service_away_ui(ui);
        match &self.connection {
            ConnectionState::Ready => {
                if let Some(activity) = &self.workspace_activity {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label(activity);
                        ui.label(
                            egui::RichText::new("You can search and upload meanwhile.").weak(),
                        );
                    });
                    ui.add_space(6.0);
                }
            }
            ConnectionState::Connecting(detail) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(detail);
                });
                ui.add_space(6.0);
            }
            ConnectionState::NeedsLogin => {
                if !self.login.is_open() {
                    ui.horizontal(|ui| {
                        ui.colored_label(
                            theme::warning_color(ui),
                            format!(
                                "You are not logged in to {}.",
                                self.settings.service.label()
                            ),
                        );
                        if ui.button("Log in").clicked() {
                            self.commands.push(AppCommand::ShowLogin);
                        }
                    });
                    ui.add_space(6.0);
                }
            }
            ConnectionState::Failed(message) => {
                let message = message.clone();
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(theme::error_color(ui), message);
                });
                ui.horizontal(|ui| {
                    if ui.button("Try again").clicked() {
                        self.commands.backend(Command::Connect {
                            service: self.settings.service.clone(),
                            user: self.settings.last_user.clone(),
                        });
                    }
                    if ui.button("Open Settings").clicked() {
                        self.commands.push(AppCommand::Navigate(Place::Settings));
                    }
                });
                ui.add_space(6.0);
            }
        }
    }

    /// Carries out what the Library asked: a file's detail or a search by its image, in the
    /// Search place.
    fn library_intent(&mut self, intent: LibraryIntent) {
        match intent {
            LibraryIntent::OpenDetail(uid) => {
                self.search
                    .show_file_from(uid, OpenedFrom::Library, &mut self.commands);
            }
            LibraryIntent::MoreLikeThis { uid, file_name } => {
                self.search
                    .search_by_library_file(uid, &file_name, &mut self.commands);
            }
        }
        self.place = Place::Search;
    }

    /// Carries out what the Duplicates place asked: a file's detail or a group's comparison, in the
    /// Search place, whose back buttons lead to Duplicates again.
    fn duplicates_intent(&mut self, intent: DuplicatesIntent) {
        match intent {
            DuplicatesIntent::OpenDetail(uid) => {
                self.search
                    .show_file_from(uid, OpenedFrom::Duplicates, &mut self.commands);
            }
            DuplicatesIntent::Compare(rows) => {
                self.search
                    .compare_from(rows, OpenedFrom::Duplicates, &mut self.commands);
            }
            DuplicatesIntent::MoreLikeThis { uid, file_name } => {
                self.search
                    .search_by_library_file(uid, &file_name, &mut self.commands);
            }
        }
        self.place = Place::Search;
    }

    /// Carries out what the Jobs place asked of a finished upload, in the Search place: a search by
    /// the search input, or the database file's record (whose back button leads to Jobs again).
    fn jobs_intent(&mut self, intent: JobsIntent) {
        match intent {
            JobsIntent::SearchBy { uid, file_name } => {
                self.search
                    .search_by_library_file(uid, &file_name, &mut self.commands);
            }
            JobsIntent::OpenDetail(uid) => {
                self.search
                    .show_file_from(uid, OpenedFrom::Jobs, &mut self.commands);
            }
        }
        self.place = Place::Search;
    }

    /// Jobs of the service in use, for the "running" count.
    fn running_jobs(&self) -> usize {
        let key = self.settings.service.key();
        self.jobs
            .iter()
            .filter(|job| job.service == key && !job.phase.is_finished())
            .count()
    }
}

impl App {
    /// The top bar: the places, the service and who is logged in, what is running.
    fn top_bar_panel_ui(&mut self, ui: &mut egui::Ui) {
        let service_label = self.settings.service.label();
        let highlighted = self.highlighted_place();
        let status = TopBarStatus {
            service: &service_label,
            session: self.session.as_ref(),
            running_jobs: self.running_jobs() + self.library_sync.active_runs(),
            connecting: match &self.connection {
                ConnectionState::Connecting(detail) => Some(detail.as_str()),
                _ => None,
            },
            activity: self.workspace_activity.as_deref(),
        };
        egui::Panel::top("top_bar")
            .frame(
                egui::Frame::side_top_panel(ui.style())
                    .inner_margin(egui::Margin::symmetric(12, 8)),
            )
            .show(ui, |ui| {
                top_bar_ui(ui, highlighted, &status, &mut self.commands)
            });
    }

    /// The place shown, in the central panel.
    fn place_ui(&mut self, ui: &mut egui::Ui) {
        match self.place {
            Place::Search => {
                self.search
                    .set_texture_budget(self.settings.thumbnail_cache_bytes());
                self.search.ui(ui, &mut self.commands);
            }
            Place::Library => {
                self.search
                    .set_texture_budget(self.settings.thumbnail_cache_bytes());
                let intents = self.library.ui(
                    ui,
                    self.session.is_some(),
                    self.search.textures_mut(),
                    &mut self.commands,
                );
                for intent in intents {
                    self.library_intent(intent);
                }
            }
            Place::Duplicates => {
                self.search
                    .set_texture_budget(self.settings.thumbnail_cache_bytes());
                let intents = self.duplicates.ui(
                    ui,
                    self.session.is_some(),
                    self.search.textures_mut(),
                    &mut self.commands,
                );
                for intent in intents {
                    self.duplicates_intent(intent);
                }
            }
            Place::Upload => self.upload.ui(ui, &mut self.commands),
            Place::Jobs => {
                self.library_sync.runs_ui(ui, &mut self.commands);
                let intents = jobs_ui(
                    ui,
                    &self.jobs,
                    &self.settings.service.key(),
                    &mut self.commands,
                );
                for intent in intents {
                    self.jobs_intent(intent);
                }
            }
            Place::Settings => self.settings_view.ui(
                ui,
                &mut self.settings,
                self.session.is_some(),
                &self.data_dir,
                &match self.dialogs.in_app_reason() {
                    Some(reason) => format!("partlens's own file browser ({reason})"),
                    None => "the desktop's".to_owned(),
                },
                &mut self.library_sync,
                &mut self.commands,
            ),
        }
    }
}

impl eframe::App for App {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        if self.first_frame_drawn
            && let Some(connect) = self.connect_after_first_frame.take()
        {
            self.backend.send(connect);
        }
        while let Ok(event) = self.events.try_recv() {
            self.handle_event(ctx, event);
        }
        self.fall_back_to_the_app_browser();
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.shortcuts.keys(&ctx);
        // The place's keys wait while a dialog is over it.
        keyboard::set_blocked(
            &ctx,
            self.login.is_open() || self.file_browser.is_some() || self.shortcuts.is_open(),
        );
        self.shortcuts(&ctx);
        self.paste(&ctx);
        // Files dropped on the Search place become views of the search; elsewhere they are staged
        // for upload.
        let dropped = drop_overlay::dropped_paths(&ctx);
        if !dropped.is_empty() {
            if self.place == Place::Search {
                self.search.add_views(dropped);
            } else {
                self.commands.push(AppCommand::StageFiles(dropped));
            }
        }

        self.top_bar_panel_ui(ui);
        if !self.notices.is_empty() {
            egui::Panel::bottom("notices")
                .frame(
                    egui::Frame::side_top_panel(ui.style())
                        .inner_margin(egui::Margin::symmetric(12, 6)),
                )
                .show(ui, |ui| self.notices.ui(ui));
        }
        egui::CentralPanel::default()
            .frame(egui::Frame::central_panel(ui.style()).inner_margin(egui::Margin::same(16)))
            .show(ui, |ui| {
                self.connection_banner_ui(ui);
                self.place_ui(ui);
            });
        self.login.ui(&ctx, &mut self.commands);
        self.file_browser_ui(&ctx);
        self.shortcuts.ui(&ctx);
        let drop_caption = if self.place == Place::Search {
            "Drop to search by these views"
        } else {
            "Drop to upload"
        };
        drop_overlay::overlay_ui(&ctx, drop_caption);
        self.run_commands(&ctx);
        if !self.first_frame_drawn {
            // The connection opens at the start of the next frame, this one painted.
            self.first_frame_drawn = true;
            ctx.request_repaint();
        }
    }

    /// Settings are small; saving often keeps a changed service even when the app is killed.
    fn auto_save_interval(&self) -> std::time::Duration {
        std::time::Duration::from_secs(5)
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.settings);
        eframe::set_value(storage, PLACE_STORAGE_KEY, &self.place);
        eframe::set_value(storage, RECENT_FOLDERS_STORAGE_KEY, &self.recent_folders);
        eframe::set_value(storage, DRAFTS_STORAGE_KEY, self.search.drafts());
        eframe::set_value(
            storage,
            FEEDBACK_DRAFTS_STORAGE_KEY,
            self.search.feedback_drafts(),
        );
    }
}

/// What Ctrl+V brought.
enum Pasted {
    /// Text: perhaps the paths of files.
    Text(String),
    /// A picture.
    Picture(Arc<egui::ColorImage>),
}

/// The existing files a pasted text names, one a line: a path, or a `file://` address as file
/// managers copy them (quotes around a path are dropped).
pub fn pasted_paths(text: &str) -> Vec<PathBuf> {
    text.lines()
        .map(|line| line.trim().trim_matches(['"', '\'']))
        .filter(|line| !line.is_empty())
        .filter_map(|line| {
            if line.starts_with("file://") {
                url::Url::parse(line).ok()?.to_file_path().ok()
            } else {
                Some(PathBuf::from(line))
            }
        })
        .filter(|path| path.is_file())
        .collect()
}

/// A pasted picture as PNG bytes.
fn png_of(image: &egui::ColorImage) -> Result<bytes::Bytes, String> {
    let [width, height] = image.size;
    let pixels: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(|pixel| pixel.to_srgba_unmultiplied())
        .collect();
    let picture = image::RgbaImage::from_raw(width as u32, height as u32, pixels)
        .ok_or("its size does not match its pixels")?;
    let mut png = std::io::Cursor::new(Vec::new());
    picture
        .write_to(&mut png, image::ImageFormat::Png)
        .map_err(|error| error.to_string())?;
    Ok(bytes::Bytes::from(png.into_inner()))
}

/// True for the events that answer a file dialog.
fn is_pick_answer(event: &Event) -> bool {
    matches!(
        event,
        Event::FilesPicked(_)
            | Event::ViewsPicked(_)
            | Event::ModelFilePicked(_)
            | Event::SyncFolderPicked(_)
            | Event::SyncCsvPicked(_)
    )
}

/// `text` with its first letter in upper case.
fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
