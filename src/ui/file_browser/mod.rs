//! partlens's own file browser, used instead of the platform's file dialog where that cannot open
//! (no desktop portal and no zenity; `crate::desktop::DialogChoice` decides). It stands in for every
//! pick command (*Add files…*, *Add views…*, *Export CSV…*, *Choose folder…*, *Choose CSV…*, a model
//! file to see in 3D) and answers with the same events the native dialog would bring.
//!
//! A modal: recent places and the home folder's usual folders on the left, the folder's subfolders
//! and the files its filter lets through on the right (a click selects, a folder opens), a typed
//! path (Enter opens a folder or chooses a file), a file name when saving. It says on screen that it
//! is the app's own browser and why.

mod listing;
mod places;
mod purpose;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use listing::{FileFilter, FolderEntry, read_folder};
pub use places::{Place, RecentFolders, standard_places};
pub use purpose::{BrowseAnswer, BrowsePurpose, ChooseMode};

use super::jobs::size_text;
use super::theme;

/// Room kept at the right of the bottom row for Cancel and the confirming button.
const BUTTONS_WIDTH: f32 = 190.0;

/// The browser while open.
#[derive(Debug)]
pub struct FileBrowser {
    purpose: BrowsePurpose,
    /// Why the app's own browser is used (shown under the title).
    reason: String,
    folder: PathBuf,
    /// The path field as typed.
    typed_path: String,
    /// The file name field of a save.
    file_name: String,
    filter_index: usize,
    entries: Result<Vec<FolderEntry>, String>,
    selected: BTreeSet<PathBuf>,
    places: Vec<Place>,
}

/// What a frame of the browser ended with.
#[derive(Debug, PartialEq)]
pub enum BrowserOutcome {
    /// Still open.
    Open,
    /// Closed with a choice (or cancelled): what to hand on, if anything.
    Closed(Option<BrowseAnswer>),
}

impl FileBrowser {
    /// Opens for `purpose` in `start` (or the home folder when `start` is not a folder), saying
    /// `reason` under the title.
    pub fn open(purpose: BrowsePurpose, reason: String, start: Option<&Path>) -> Self {
        let folder = start
            .filter(|folder| folder.is_dir())
            .map(Path::to_path_buf)
            .or_else(std::env::home_dir)
            .unwrap_or_else(|| PathBuf::from(std::path::MAIN_SEPARATOR_STR));
        let file_name = purpose.suggested_name().to_owned();
        let mut browser = Self {
            purpose,
            reason,
            typed_path: String::new(),
            file_name,
            filter_index: 0,
            entries: Ok(Vec::new()),
            selected: BTreeSet::new(),
            places: standard_places(),
            folder: folder.clone(),
        };
        browser.go_to(folder);
        browser
    }

    /// What the browser is choosing for.
    pub fn purpose(&self) -> &BrowsePurpose {
        &self.purpose
    }

    /// The folder shown.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    fn filter(&self) -> FileFilter {
        self.purpose
            .filters()
            .get(self.filter_index)
            .copied()
            .unwrap_or(FileFilter::ALL)
    }

    /// Shows `folder` (selection cleared).
    fn go_to(&mut self, folder: PathBuf) {
        let folders_only = self.purpose.mode() == ChooseMode::Folder;
        self.entries = read_folder(&folder, &self.filter(), folders_only);
        self.typed_path = folder.display().to_string();
        self.selected.clear();
        self.folder = folder;
    }

    /// Reads the folder again (after the filter changed).
    fn reload(&mut self) {
        self.go_to(self.folder.clone());
    }

    /// The typed path: a folder opens; a file is chosen (opening) or named (saving).
    fn follow_typed_path(&mut self) -> Option<Vec<PathBuf>> {
        let typed = expand_home(self.typed_path.trim());
        if typed.as_os_str().is_empty() {
            return None;
        }
        let typed = if typed.is_relative() {
            self.folder.join(typed)
        } else {
            typed
        };
        if typed.is_dir() {
            self.go_to(typed);
            return None;
        }
        match self.purpose.mode() {
            ChooseMode::ManyFiles | ChooseMode::OneFile if typed.is_file() => Some(vec![typed]),
            ChooseMode::Save => {
                let parent = typed.parent().map(Path::to_path_buf);
                let name = typed
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned());
                if let (Some(parent), Some(name)) = (parent, name)
                    && parent.is_dir()
                {
                    self.go_to(parent);
                    self.file_name = name;
                }
                None
            }
            _ => {
                self.entries = Err(format!("{} is not there.", typed.display()));
                None
            }
        }
    }

    /// What the confirm button would choose now; empty when nothing is.
    fn choice(&self) -> Vec<PathBuf> {
        match self.purpose.mode() {
            ChooseMode::ManyFiles | ChooseMode::OneFile => self.selected.iter().cloned().collect(),
            ChooseMode::Folder => vec![self.folder.clone()],
            ChooseMode::Save => {
                let name = self.file_name.trim();
                if name.is_empty() || name.contains(['/', '\\']) {
                    return Vec::new();
                }
                let mut path = self.folder.join(name);
                if path.extension().is_none() {
                    path.set_extension("csv");
                }
                vec![path]
            }
        }
    }

    /// A click on a file: selects it (or toggles it when choosing several; names it when saving).
    fn click_file(&mut self, path: PathBuf) {
        match self.purpose.mode() {
            ChooseMode::ManyFiles => {
                if !self.selected.remove(&path) {
                    self.selected.insert(path);
                }
            }
            ChooseMode::OneFile => {
                self.selected.clear();
                self.selected.insert(path);
            }
            ChooseMode::Save => {
                if let Some(name) = path.file_name() {
                    self.file_name = name.to_string_lossy().into_owned();
                }
            }
            ChooseMode::Folder => {}
        }
    }

    /// Draws the browser; remembers the folder of a choice in `recent`.
    pub fn ui(&mut self, ctx: &egui::Context, recent: &mut RecentFolders) -> BrowserOutcome {
        let frame = egui::Frame::popup(&ctx.global_style()).inner_margin(egui::Margin::same(16));
        let mut outcome = BrowserOutcome::Open;
        let modal = egui::Modal::new(egui::Id::unique("file_browser"))
            .frame(frame)
            .show(ctx, |ui| {
                ui.set_width(720.0);
                ui.heading(self.purpose.title());
                ui.label(
                    egui::RichText::new(format!("partlens's own file browser: {}.", self.reason))
                        .small()
                        .color(theme::warning_color(ui)),
                );
                ui.add_space(6.0);
                let mut chosen = self.path_row_ui(ui);
                ui.add_space(4.0);
                ui.horizontal_top(|ui| {
                    self.places_ui(ui, recent);
                    // No separator: a vertical one would grow to the screen's height in a modal.
                    ui.add_space(12.0);
                    if let Some(files) = self.entries_ui(ui) {
                        chosen = Some(files);
                    }
                });
                ui.add_space(6.0);
                if self.purpose.mode() == ChooseMode::Save {
                    ui.horizontal(|ui| {
                        let label = ui.label("Save as");
                        ui.add(
                            egui::TextEdit::singleline(&mut self.file_name).desired_width(360.0),
                        )
                        .labelled_by(label.id);
                    });
                    if let Some(path) = self.choice().first()
                        && path.exists()
                    {
                        ui.colored_label(
                            theme::warning_color(ui),
                            format!("{} exists; Save replaces it.", path.display()),
                        );
                    }
                }
                ui.separator();
                ui.horizontal(|ui| {
                    let filters = self.purpose.filters();
                    let mut filter_index = self.filter_index;
                    if filters.len() > 1 {
                        let label = ui.label("Show");
                        egui::ComboBox::from_id_salt("file browser filter")
                            .selected_text(self.filter().label)
                            .show_ui(ui, |ui| {
                                for (index, filter) in filters.iter().enumerate() {
                                    ui.selectable_value(&mut filter_index, index, filter.label);
                                }
                            })
                            .response
                            .labelled_by(label.id);
                    }
                    if filter_index != self.filter_index {
                        self.filter_index = filter_index;
                        self.reload();
                    }
                    if self.purpose.mode() == ChooseMode::ManyFiles && !self.selected.is_empty() {
                        ui.label(format!("{} selected", self.selected.len()));
                    }
                    // The buttons at the right end of the row.
                    ui.add_space((ui.available_width() - BUTTONS_WIDTH).max(0.0));
                    if ui.button("Cancel").clicked() {
                        outcome = BrowserOutcome::Closed(self.purpose.clone().cancelled());
                    }
                    let choice = self.choice();
                    if ui
                        .add_enabled(
                            !choice.is_empty(),
                            egui::Button::new(self.purpose.confirm_caption()),
                        )
                        .clicked()
                    {
                        chosen = Some(choice);
                    }
                });
                chosen
            });
        let should_close = modal.should_close();
        if let Some(chosen) = modal.inner.filter(|chosen| !chosen.is_empty()) {
            if let Some(folder) = chosen.first().and_then(|path| {
                if self.purpose.mode() == ChooseMode::Folder {
                    Some(path.as_path())
                } else {
                    path.parent()
                }
            }) {
                recent.remember(folder);
            }
            return BrowserOutcome::Closed(self.purpose.clone().chosen(chosen));
        }
        if should_close {
            return BrowserOutcome::Closed(self.purpose.clone().cancelled());
        }
        outcome
    }

    /// "Up" and the typed path; a typed file chosen with Enter is returned.
    fn path_row_ui(&mut self, ui: &mut egui::Ui) -> Option<Vec<PathBuf>> {
        let mut chosen = None;
        ui.horizontal(|ui| {
            let parent = self.folder.parent().map(Path::to_path_buf);
            if ui
                .add_enabled(parent.is_some(), egui::Button::new("Up"))
                .on_hover_text("The folder above")
                .clicked()
                && let Some(parent) = parent
            {
                self.go_to(parent);
            }
            let label = ui.label("Path");
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.typed_path)
                        .desired_width(f32::INFINITY)
                        .hint_text("Type a path and press Enter"),
                )
                .labelled_by(label.id);
            if field.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter)) {
                chosen = self.follow_typed_path();
            }
        });
        chosen
    }

    fn places_ui(&mut self, ui: &mut egui::Ui, recent: &RecentFolders) {
        let mut go_to = None;
        ui.vertical(|ui| {
            ui.set_width(150.0);
            let recent: Vec<&PathBuf> = recent.existing().collect();
            if !recent.is_empty() {
                ui.label(egui::RichText::new("Recent").strong());
                for folder in recent {
                    let name = folder
                        .file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                        .unwrap_or_else(|| folder.display().to_string());
                    if ui
                        .selectable_label(self.folder == *folder, name)
                        .on_hover_text(folder.display().to_string())
                        .clicked()
                    {
                        go_to = Some(folder.clone());
                    }
                }
                ui.add_space(6.0);
            }
            ui.label(egui::RichText::new("Places").strong());
            for place in &self.places {
                if ui
                    .selectable_label(self.folder == place.folder, &place.label)
                    .on_hover_text(place.folder.display().to_string())
                    .clicked()
                {
                    go_to = Some(place.folder.clone());
                }
            }
        });
        if let Some(folder) = go_to {
            self.go_to(folder);
        }
    }

    /// The folder's entries; a double-clicked file is returned as the choice.
    fn entries_ui(&mut self, ui: &mut egui::Ui) -> Option<Vec<PathBuf>> {
        let entries = match &self.entries {
            Ok(entries) => entries.clone(),
            Err(message) => {
                ui.colored_label(theme::error_color(ui), message);
                return None;
            }
        };
        let mut open_folder = None;
        let mut clicked_file = None;
        let mut chosen = None;
        ui.vertical(|ui| {
            if entries.is_empty() {
                ui.weak(if self.purpose.mode() == ChooseMode::Folder {
                    "No folders here."
                } else {
                    "Nothing here that this filter shows."
                });
            }
            let row_height = ui.spacing().interact_size.y;
            egui::ScrollArea::vertical()
                .max_height(300.0)
                .auto_shrink([false, false])
                .show_rows(ui, row_height, entries.len(), |ui, rows| {
                    for entry in &entries[rows] {
                        if entry.is_folder {
                            if ui
                                .selectable_label(false, format!("{}/", entry.name))
                                .clicked()
                            {
                                open_folder = Some(entry.path.clone());
                            }
                            continue;
                        }
                        let selected = self.selected.contains(&entry.path);
                        let size = entry.size.map(size_text).unwrap_or_default();
                        let response = ui.horizontal(|ui| {
                            let response = ui.selectable_label(selected, &entry.name);
                            ui.weak(size);
                            response
                        });
                        let response = response.inner;
                        if response.double_clicked() && self.purpose.mode() != ChooseMode::Save {
                            chosen = Some(vec![entry.path.clone()]);
                        } else if response.clicked() {
                            clicked_file = Some(entry.path.clone());
                        }
                    }
                });
        });
        if let Some(folder) = open_folder {
            self.go_to(folder);
        }
        if let Some(file) = clicked_file {
            self.click_file(file);
        }
        chosen
    }
}

/// `~` and `~/…` read as the home folder.
fn expand_home(typed: &str) -> PathBuf {
    if let Some(rest) = typed.strip_prefix('~')
        && (rest.is_empty() || rest.starts_with('/'))
        && let Some(home) = std::env::home_dir()
    {
        return home.join(rest.trim_start_matches('/'));
    }
    PathBuf::from(typed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_adds_the_csv_extension_and_refuses_a_name_with_a_slash() {
        let dir = tempfile::tempdir().unwrap();
        let mut browser = FileBrowser::open(
            BrowsePurpose::ExportResults {
                suggested_name: "results".into(),
                csv: "a,b\n".into(),
            },
            "test".into(),
            Some(dir.path()),
        );
        assert_eq!(browser.choice(), [dir.path().join("results.csv")]);
        browser.file_name = "a/b.csv".into();
        assert!(browser.choice().is_empty());
    }

    #[test]
    fn a_typed_folder_opens_and_a_typed_file_is_chosen() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("parts")).unwrap();
        std::fs::write(dir.path().join("parts").join("gear.png"), b"x").unwrap();
        let mut browser = FileBrowser::open(BrowsePurpose::UploadFiles, "test".into(), None);
        browser.typed_path = dir.path().join("parts").display().to_string();
        assert_eq!(browser.follow_typed_path(), None);
        assert_eq!(browser.folder(), dir.path().join("parts"));
        browser.typed_path = "gear.png".into();
        assert_eq!(
            browser.follow_typed_path(),
            Some(vec![dir.path().join("parts").join("gear.png")])
        );
    }
}
