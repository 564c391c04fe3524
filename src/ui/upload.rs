//! The upload form: files dropped on the window or added with "Add files…", what they become (search
//! input or company-database file with folder, name, attributes and category: chosen by name from
//! the company's categories when the service lists them, else typed as a number), and
//! asynchronous indexing (on by default). "Upload" hands one job a file to the task layer and shows Jobs.

use std::path::{Path, PathBuf};

use super::app_command::{AppCommand, CommandQueue};
use super::columns::{ColumnLayout, TableColumn};
use super::place::Place;
use partlens_api::{Attribute, FileCategory};
use partlens_tasks::models::is_model_file_name;
use partlens_tasks::{Command, JobRole, UploadSpec};

/// The folder offered for a file that sits at the root of a drive.
const FALLBACK_FOLDER: &str = "Uploads";

/// A file waiting in the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StagedFile {
    /// The file on disk.
    pub path: PathBuf,
    /// The folder of its stored path (company database).
    pub folder: String,
    /// The name of its stored path (company database).
    pub name: String,
    /// A picture's width and height in pixels when either side is under [`MIN_SEARCHABLE_SIDE`].
    pub too_small: Option<(u32, u32)>,
}

/// The shortest side, in pixels, of a picture worth searching by. The engine describes a picture
/// at 128 × 128 px (`partlens_engine`'s normalised side) whatever its size, and has no minimum of its
/// own; a picture under a quarter of that is blown up more than four times and its outline is mostly
/// blur, so it hardly finds anything and is hardly found.
pub const MIN_SEARCHABLE_SIDE: u32 = 32;

/// The size of the picture at `path` when it is too small to search by (its header only is read;
/// `None` for other files and for pictures that cannot be read, which the service explains).
fn too_small_picture(path: &Path) -> Option<(u32, u32)> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    if !matches!(
        extension.as_str(),
        "png" | "jpg" | "jpeg" | "bmp" | "tif" | "tiff" | "webp" | "gif"
    ) {
        return None;
    }
    let (width, height) = image::image_dimensions(path).ok()?;
    (width.min(height) < MIN_SEARCHABLE_SIDE).then_some((width, height))
}

impl StagedFile {
    /// A staged file with folder and name prefilled from its path (`/parts/pumps/a.step` →
    /// `pumps`, `a.step`).
    pub fn new(path: PathBuf) -> Self {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let folder = path
            .parent()
            .and_then(Path::file_name)
            .map(|folder| folder.to_string_lossy().into_owned())
            .filter(|folder| !folder.is_empty())
            .unwrap_or_else(|| FALLBACK_FOLDER.to_owned());
        let too_small = too_small_picture(&path);
        Self {
            path,
            folder,
            name,
            too_small,
        }
    }

    fn display_name(&self) -> String {
        self.path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string())
    }

    /// `<folder>/<name>`.
    pub fn stored_path(&self) -> String {
        format!(
            "{}/{}",
            self.folder.trim().trim_matches('/'),
            self.name.trim().trim_matches('/')
        )
    }
}

/// What the uploaded files become.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UploadKind {
    /// Temporary files to search by.
    #[default]
    SearchInput,
    /// Files of the company database.
    Database,
}

/// One attribute row of the form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttributeRow {
    /// The name, with an optional unit: `weight(kg)`.
    pub name: String,
    /// The value; several joined with `|`.
    pub value: String,
}

/// The upload form's state.
#[derive(Debug)]
pub struct UploadView {
    /// The files waiting to go up.
    pub files: Vec<StagedFile>,
    /// What they become.
    pub kind: UploadKind,
    /// Attributes for database files.
    pub attributes: Vec<AttributeRow>,
    /// The category id for database files, as typed (or chosen by name).
    pub category_id: String,
    /// The company's categories when the service listed them (`None`: not asked yet, or it
    /// cannot list them: the id is typed).
    categories: Option<Vec<FileCategory>>,
    /// The categories were asked for since the login.
    categories_asked: bool,
    /// Index asynchronously.
    pub index_async: bool,
    /// Give each component of an uploaded assembly a record of its own (database models).
    pub index_components: bool,
    problem: Option<String>,
    focus_new_attribute: bool,
}

impl Default for UploadView {
    fn default() -> Self {
        Self {
            files: Vec::new(),
            kind: UploadKind::SearchInput,
            attributes: Vec::new(),
            category_id: String::new(),
            categories: None,
            categories_asked: false,
            index_async: true,
            index_components: false,
            problem: None,
            focus_new_attribute: false,
        }
    }
}

impl UploadView {
    /// Adds files to the form (a file already there is not added twice).
    pub fn stage(&mut self, paths: impl IntoIterator<Item = PathBuf>) {
        for path in paths {
            if !self.files.iter().any(|file| file.path == path) {
                self.files.push(StagedFile::new(path));
            }
        }
        self.problem = None;
    }

    /// The company's categories as the service listed them (`None`: it cannot list them).
    pub fn set_categories(&mut self, categories: Option<Vec<FileCategory>>) {
        self.categories = categories;
    }

    /// Forgets the categories (another user or service): asked again when the form needs them.
    pub fn forget_categories(&mut self) {
        self.categories = None;
        self.categories_asked = false;
    }

    /// One upload spec a file, or what the user must fix first.
    pub fn build_specs(&self) -> Result<Vec<UploadSpec>, String> {
        if self.files.is_empty() {
            return Err("Add files first.".into());
        }
        let role_of = |file: &StagedFile| -> Result<JobRole, String> {
            match self.kind {
                UploadKind::SearchInput => Ok(JobRole::SearchInput),
                UploadKind::Database => {
                    if file.folder.trim().trim_matches('/').is_empty() {
                        return Err(format!("Enter a folder for {}.", file.display_name()));
                    }
                    let name = file.name.trim();
                    if name.is_empty() || !name.contains('.') || name.ends_with('.') {
                        return Err(format!(
                            "Enter a name with an extension for {} (for example part.png).",
                            file.display_name()
                        ));
                    }
                    Ok(JobRole::Database {
                        stored_path: file.stored_path(),
                        attributes: self.parsed_attributes()?,
                        category_id: self.parsed_category_id()?,
                        index_components: self.index_components
                            && is_model_file_name(&file.stored_path()),
                    })
                }
            }
        };
        self.files
            .iter()
            .map(|file| {
                Ok(UploadSpec {
                    path: file.path.clone(),
                    role: role_of(file)?,
                    index_async: self.index_async,
                })
            })
            .collect()
    }

    fn parsed_attributes(&self) -> Result<Vec<Attribute>, String> {
        self.attributes
            .iter()
            .filter(|row| !row.name.trim().is_empty() || !row.value.trim().is_empty())
            .map(|row| {
                if row.name.trim().is_empty() {
                    return Err(format!(
                        "Enter a name for the attribute value \"{}\".",
                        row.value
                    ));
                }
                Attribute::parse(&format!("{}={}", row.name.trim(), row.value.trim())).map_err(
                    |error| {
                        format!(
                            "Attribute {}: {}.",
                            row.name.trim(),
                            partlens_tasks::wording::clause(&error.to_string())
                        )
                    },
                )
            })
            .collect()
    }

    fn parsed_category_id(&self) -> Result<Option<i64>, String> {
        let text = self.category_id.trim();
        if text.is_empty() {
            return Ok(None);
        }
        text.parse()
            .map(Some)
            .map_err(|_| format!("The category id must be a whole number, not \"{text}\"."))
    }

    /// Draws the form.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.heading("Upload");
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            if ui
                .button("Add files…")
                .on_hover_text("Choose files with the file dialog (Ctrl+O).")
                .clicked()
            {
                commands.backend(Command::PickFiles);
            }
            ui.label(egui::RichText::new("or drop files anywhere on this window").weak());
        });
        ui.add_space(8.0);
        if self.files.is_empty() {
            empty_state_ui(ui);
            return;
        }
        egui::ScrollArea::vertical()
            .auto_shrink([false, true])
            .show(ui, |ui| {
                // As wide as the place: the stored names are long and edited in their field.
                super::theme::wide_card_ui(ui, &format!("Files ({})", self.files.len()), |ui| {
                    self.files_ui(ui);
                });
                ui.add_space(10.0);
                super::theme::card_ui(ui, "Store as", |ui| {
                    self.kind_ui(ui);
                    ui.add_space(6.0);
                    match self.kind {
                        UploadKind::Database => self.database_options_ui(ui, commands),
                        UploadKind::SearchInput => {
                            ui.checkbox(&mut self.index_async, "Index asynchronously")
                                .on_hover_text(
                                    "The upload returns at once and Jobs shows the indexing; \
                                     recommended for large files.",
                                );
                        }
                    }
                });
                ui.add_space(12.0);
                self.actions_ui(ui, commands);
            });
    }

    fn kind_ui(&mut self, ui: &mut egui::Ui) {
        ui.radio_value(&mut self.kind, UploadKind::SearchInput, "Search input")
            .on_hover_text("A temporary file to search by.");
        ui.radio_value(
            &mut self.kind,
            UploadKind::Database,
            "Company database file",
        )
        .on_hover_text("A part of the company library, stored under a folder and name.");
    }

    fn files_ui(&mut self, ui: &mut egui::Ui) {
        let database = self.kind == UploadKind::Database;
        let columns = if database {
            // The name it is stored under takes the width left: it is what the user checks and
            // edits, and the corpus's names are long.
            vec![
                TableColumn::resizable("File", 240.0, 120.0, 0),
                TableColumn::resizable("Stored in folder", 150.0, 100.0, 0),
                TableColumn::remainder("under the name", 160.0),
                TableColumn::fixed("", 80.0),
            ]
        } else {
            vec![
                TableColumn::remainder("File", 140.0),
                TableColumn::resizable("From", 260.0, 100.0, 1),
                TableColumn::fixed("", 80.0),
            ]
        };
        let layout = ColumnLayout::fit(ui, &columns);
        let shows_from = !database && layout.shows(1);
        let mut remove = None;
        let table = egui_extras::TableBuilder::new(ui)
            .striped(true)
            .resizable(true)
            .vscroll(false)
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
        layout
            .apply(
                table,
                &columns,
                if database {
                    "staged database files"
                } else {
                    "staged files"
                },
            )
            .header(22.0, |mut header| {
                for (index, column) in columns.iter().enumerate() {
                    if layout.shows(index) {
                        header.col(|ui| {
                            ui.strong(column.title.as_str());
                        });
                    }
                }
            })
            .body(|body| {
                body.rows(28.0, self.files.len(), |mut row| {
                    let index = row.index();
                    let file = &mut self.files[index];
                    let shown = file.display_name();
                    row.col(|ui| {
                        let path = file.path.display().to_string();
                        crate::ui::elide::file_path_cell(ui, &shown, &path);
                    });
                    if shows_from {
                        row.col(|ui| {
                            let folder = file
                                .path
                                .parent()
                                .map(|folder| folder.display().to_string())
                                .unwrap_or_default();
                            crate::ui::elide::file_name_cell(ui, &folder);
                        });
                    }
                    if database {
                        // Where it will be stored, whole, on hover of either field (a long name
                        // scrolls inside its field).
                        let stored_as = format!("Stored as {}", file.stored_path());
                        row.col(|ui| {
                            let width = ui.available_width();
                            ui.add_sized(
                                [width, 22.0],
                                egui::TextEdit::singleline(&mut file.folder),
                            )
                            .accessible_name(format!("Folder for {shown}"))
                            .on_hover_text(&stored_as);
                        });
                        row.col(|ui| {
                            let width = ui.available_width();
                            ui.add_sized([width, 22.0], egui::TextEdit::singleline(&mut file.name))
                                .accessible_name(format!("Name for {shown}"))
                                .on_hover_text(&stored_as);
                        });
                    }
                    row.col(|ui| {
                        if ui
                            .button("Remove")
                            .accessible_name(format!("Remove {shown}"))
                            .clicked()
                        {
                            remove = Some(index);
                        }
                    });
                });
            });
        for file in &self.files {
            if let Some((width, height)) = file.too_small {
                ui.colored_label(
                    super::theme::warning_color(ui),
                    format!(
                        "{} is {width} × {height} px: a picture under {MIN_SEARCHABLE_SIDE} px on a \
                         side is too small to search by, and searches will hardly find it. Use a \
                         larger picture of the part.",
                        file.display_name()
                    ),
                );
            }
        }
        if let Some(index) = remove {
            self.files.remove(index);
        }
    }

    fn database_options_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.add_space(4.0);
        ui.label(egui::RichText::new("Attributes").strong());
        ui.label(
            egui::RichText::new(
                "Several values: separate them with |. A unit goes in the name: weight(kg).",
            )
            .weak(),
        );
        let mut remove = None;
        let count = self.attributes.len();
        if count > 0 {
            egui::Grid::new("attribute_rows_grid")
                .num_columns(3)
                .spacing([8.0, 6.0])
                .show(ui, |ui| {
                    for (index, row) in self.attributes.iter_mut().enumerate() {
                        let number = index + 1;
                        let name = ui
                            .add_sized(
                                [160.0, 22.0],
                                egui::TextEdit::singleline(&mut row.name).hint_text("name"),
                            )
                            .accessible_name(format!("Attribute {number} name"));
                        if self.focus_new_attribute && number == count {
                            name.request_focus();
                            self.focus_new_attribute = false;
                        }
                        ui.add_sized(
                            [260.0, 22.0],
                            egui::TextEdit::singleline(&mut row.value)
                                .hint_text("value, or value 1|value 2"),
                        )
                        .accessible_name(format!("Attribute {number} value"));
                        if ui
                            .button("Remove")
                            .accessible_name(format!("Remove attribute {number}"))
                            .clicked()
                        {
                            remove = Some(index);
                        }
                        ui.end_row();
                    }
                });
        }
        if let Some(index) = remove {
            self.attributes.remove(index);
        }
        if ui.button("Add attribute").clicked() {
            self.attributes.push(AttributeRow::default());
            self.focus_new_attribute = true;
        }
        ui.add_space(6.0);
        self.category_ui(ui, commands);
        if self
            .files
            .iter()
            .any(|file| is_model_file_name(&file.stored_path()))
        {
            ui.checkbox(&mut self.index_components, "Index the components")
                .on_hover_text(
                    "Each part and subassembly of an assembly gets a record of its own under \
                     the assembly's path, searchable by its shape, with where it is used",
                );
        }
        ui.label(
            egui::RichText::new("Company database files are indexed while they upload.").weak(),
        );
    }

    /// The category: a choice among the company's categories when the service lists some; none to
    /// give when it lists none (the service refuses a category the company does not have); else a
    /// number field. The list is asked for the first time the field is drawn.
    fn category_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        if !self.categories_asked {
            self.categories_asked = true;
            commands.backend(Command::LoadCategories);
        }
        ui.horizontal(|ui| match self.categories.as_deref() {
            Some(categories) if !categories.is_empty() => {
                let label = ui.label("Category");
                let chosen = categories
                    .iter()
                    .find(|category| category.id.to_string() == self.category_id.trim())
                    .map_or_else(|| "Choose a category".to_owned(), category_label);
                egui::ComboBox::from_id_salt("upload-category")
                    .selected_text(chosen)
                    .show_ui(ui, |ui| {
                        for category in categories {
                            ui.selectable_value(
                                &mut self.category_id,
                                category.id.to_string(),
                                category_label(category),
                            );
                        }
                    })
                    .response
                    .labelled_by(label.id);
            }
            Some(_) => {
                self.category_id.clear();
                ui.weak("Category: none (this company files no categories)");
            }
            None => {
                let label = ui.label("Category id (optional)");
                ui.add(egui::TextEdit::singleline(&mut self.category_id).desired_width(80.0))
                    .labelled_by(label.id);
            }
        });
    }

    fn actions_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        if let Some(problem) = &self.problem {
            ui.colored_label(super::theme::error_color(ui), problem);
        }
        ui.horizontal(|ui| {
            let count = self.files.len();
            let label = if count == 1 {
                "Upload 1 file".to_owned()
            } else {
                format!("Upload {count} files")
            };
            if ui.add(super::theme::primary_button(ui, &label)).clicked() {
                match self.build_specs() {
                    Ok(specs) => {
                        commands.backend(Command::Upload(specs));
                        commands.push(AppCommand::Navigate(Place::Jobs));
                        self.files.clear();
                        self.problem = None;
                    }
                    Err(problem) => self.problem = Some(problem),
                }
            }
            if ui.button("Clear the list").clicked() {
                self.files.clear();
                self.problem = None;
            }
        });
    }
}

fn empty_state_ui(ui: &mut egui::Ui) {
    egui::Frame::group(ui.style())
        .inner_margin(24.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.vertical_centered(|ui| {
                ui.label(egui::RichText::new("No files chosen yet").heading());
                ui.add_space(6.0);
                ui.label(
                    "Drop files anywhere on this window, or press Ctrl+O to choose them. Images \
                     (PNG, JPEG, BMP, TIFF, WebP), 3D models and drawings can be uploaded.",
                );
            });
        });
}

/// How a category is offered: its name, and what it requires.
fn category_label(category: &FileCategory) -> String {
    if category.required_attributes.is_empty() {
        category.name.clone()
    } else {
        format!(
            "{} (requires {})",
            category.name,
            category.required_attributes.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_and_name_are_prefilled_from_the_path() {
        let file = StagedFile::new(PathBuf::from("/parts/pumps/housing.step"));
        assert_eq!(file.folder, "pumps");
        assert_eq!(file.name, "housing.step");
        assert_eq!(file.stored_path(), "pumps/housing.step");
        assert_eq!(
            StagedFile::new(PathBuf::from("/a.png")).folder,
            FALLBACK_FOLDER
        );
    }

    #[test]
    fn staging_twice_keeps_one_entry() {
        let mut view = UploadView::default();
        view.stage([PathBuf::from("/x/a.png"), PathBuf::from("/x/a.png")]);
        assert_eq!(view.files.len(), 1);
    }

    #[test]
    fn database_specs_carry_path_attributes_and_category() {
        let mut view = UploadView::default();
        view.stage([PathBuf::from("/lib/flange.png")]);
        view.kind = UploadKind::Database;
        view.attributes = vec![
            AttributeRow {
                name: "material".into(),
                value: "steel|stainless steel".into(),
            },
            AttributeRow::default(),
        ];
        view.category_id = " 7 ".into();
        let specs = view.build_specs().unwrap();
        assert_eq!(specs.len(), 1);
        let JobRole::Database {
            stored_path,
            attributes,
            category_id,
            index_components,
        } = &specs[0].role
        else {
            panic!("database role expected");
        };
        assert_eq!(stored_path, "lib/flange.png");
        assert_eq!(attributes[0].values, vec!["steel", "stainless steel"]);
        assert_eq!(*category_id, Some(7));
        assert!(!index_components, "a picture has no components to index");
    }

    #[test]
    fn components_are_indexed_on_request_for_models_only() {
        let mut view = UploadView::default();
        view.stage([
            PathBuf::from("/lib/as1.step"),
            PathBuf::from("/lib/plate.png"),
        ]);
        view.kind = UploadKind::Database;
        for file in &mut view.files {
            file.folder = "Assemblies".into();
        }
        let asked = |view: &UploadView| -> Vec<bool> {
            view.build_specs()
                .unwrap()
                .iter()
                .map(|spec| spec.role.index_components())
                .collect()
        };
        assert_eq!(asked(&view), [false, false]);
        view.index_components = true;
        assert_eq!(asked(&view), [true, false]);
    }

    #[test]
    fn the_category_is_chosen_by_name_when_the_service_lists_them() {
        use crate::ui::texture_cache::TextureCache;
        use crate::ui::view_harness;
        use egui_kittest::kittest::Queryable as _;

        fn draw(
            view: &mut UploadView,
            ui: &mut egui::Ui,
            _: &mut TextureCache<egui::TextureHandle>,
            commands: &mut CommandQueue,
        ) -> Vec<()> {
            view.ui(ui, commands);
            Vec::new()
        }
        let mut view = UploadView::default();
        view.stage([PathBuf::from("/lib/flange.png")]);
        view.kind = UploadKind::Database;
        let mut harness = view_harness::harness(view, [900.0, 700.0], 1 << 20, draw);
        harness.run();
        // Asked once; until the answer (or from a service that cannot list them), a number.
        assert_eq!(harness.state().commands, [Command::LoadCategories]);
        harness.get_by_label("Category id (optional)");
        harness.state_mut().view.set_categories(Some(vec![
            FileCategory {
                id: 7,
                name: "Drawings".into(),
                required_attributes: Vec::new(),
            },
            FileCategory {
                id: 8,
                name: "Models".into(),
                required_attributes: vec!["material".into()],
            },
        ]));
        harness.run();
        assert!(harness.query_by_label("Category id (optional)").is_none());
        harness.get_by_label("Category").click();
        harness.run();
        harness.get_by_label("Models (requires material)").click();
        harness.run();
        assert_eq!(harness.state().view.category_id, "8");
        assert_eq!(harness.state().commands, [Command::LoadCategories]);
        // A company without categories: nothing to choose, and no id is sent.
        harness.state_mut().view.set_categories(Some(Vec::new()));
        harness.run();
        assert!(harness.query_by_label("Category id (optional)").is_none());
        assert!(harness.query_by_label("Category").is_none());
        harness.get_by_label("Category: none (this company files no categories)");
        let specs = harness.state().view.build_specs().unwrap();
        let JobRole::Database { category_id, .. } = &specs[0].role else {
            panic!("database role expected");
        };
        assert_eq!(*category_id, None);
    }

    #[test]
    fn mistakes_are_explained() {
        let mut view = UploadView::default();
        assert_eq!(view.build_specs().unwrap_err(), "Add files first.");
        view.stage([PathBuf::from("/lib/flange.png")]);
        view.kind = UploadKind::Database;
        view.category_id = "seven".into();
        assert!(view.build_specs().unwrap_err().contains("whole number"));
        view.category_id.clear();
        view.files[0].name = "flange".into();
        assert!(view.build_specs().unwrap_err().contains("extension"));
        view.files[0].name = "flange.png".into();
        view.attributes = vec![AttributeRow {
            name: String::new(),
            value: "steel".into(),
        }];
        assert!(view.build_specs().unwrap_err().contains("Enter a name"));
    }
}
