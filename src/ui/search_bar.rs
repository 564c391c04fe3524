//! The query bar: up to ten view slots, a free-text field and attribute filter rows, with completion of
//! attribute names and values, and the indexing progress of the uploaded views.
//!
//! The state rule lives in [`SearchBar::plan`]: each view keeps the search-input UID it got once it was
//! uploaded and indexed, so changing the text or the filters searches again by those UIDs
//! (`GET /api/Search`) without uploading anything; only views without a UID (new, or failed) go up.
//! A view gets its UID only when the workflow reports it indexed, so no search is ever planned for an
//! input that is not indexed yet.
//!
//! The bar never touches the backend: [`SearchBar::ui`] returns [`SearchIntent`]s.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use egui::{Align2, Color32, FontId, Rect, Sense, Vec2};

use super::texture_cache::{Lookup, TextureCache};
use crate::api::{AttributeValue, FileUid, FilterTerm, SearchFilter};
use crate::tasks::search_flow::FileSearchProgress;
use crate::tasks::thumbnails::{ImageRequest, ImageSource, is_image_name};

/// Most views one search takes (the interface's limit).
pub const MAX_VIEWS: usize = crate::api::limits::MAX_SEARCH_FILES;

/// The id of the search text field; Ctrl+F puts the focus there.
pub const SEARCH_FIELD_ID: &str = "search_text_field";

/// How many completion suggestions are shown under a field.
const SUGGESTIONS: usize = 6;

/// Size of a view slot's thumbnail.
const SLOT_THUMBNAIL: Vec2 = Vec2::new(88.0, 66.0);

/// What a view is made of. All views of one search must be of one kind (the interface's multi-view
/// rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// A photo or rendering (PNG, JPEG, …).
    Image,
    /// A 2D drawing (DXF, PDF, …).
    Drawing,
    /// A 3D model (STL, STEP, …).
    Model,
}

impl ViewKind {
    /// The kind of a file, from its extension. Unknown extensions count as 3D models (CAD formats are
    /// many).
    pub fn of_name(name: &str) -> Self {
        let lower = name.to_lowercase();
        let extension = lower.rsplit('.').next().unwrap_or_default();
        if is_image_name(&lower) || matches!(extension, "jpg" | "jpeg" | "png" | "bmp" | "gif") {
            Self::Image
        } else if matches!(extension, "dxf" | "dwg" | "pdf" | "svg") {
            Self::Drawing
        } else {
            Self::Model
        }
    }

    /// The kind in words, plural.
    pub fn plural(self) -> &'static str {
        match self {
            Self::Image => "images",
            Self::Drawing => "2D drawings",
            Self::Model => "3D models",
        }
    }
}

pub use crate::tasks::view_search::ViewSource;

/// The kind of a view.
pub fn view_kind(source: &ViewSource) -> ViewKind {
    match source {
        ViewSource::File(path) => ViewKind::of_name(&path.to_string_lossy()),
        ViewSource::ResultImage { .. } => ViewKind::Image,
    }
}

/// The image request for a view slot's thumbnail: an image is drawn from its own bytes; a model or
/// drawing, which the app cannot draw, shows the picture the service rendered of it once it is
/// indexed (its input UID is known); before that, none.
pub fn view_thumbnail_request(slot: &ViewSlot) -> Option<ImageRequest> {
    match (&slot.source, &slot.state) {
        (ViewSource::File(path), _) if is_image_name(&path.to_string_lossy()) => {
            Some(ImageRequest::local_file(path))
        }
        (ViewSource::File(_), ViewState::Indexed(uid)) => {
            Some(ImageRequest::thumbnail_of_file(uid.clone()))
        }
        (ViewSource::File(_), _) => None,
        (ViewSource::ResultImage { image_url, .. }, _) => Some(ImageRequest::thumbnail(image_url)),
    }
}

/// Where a view is in the upload → index workflow.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewState {
    /// Not uploaded yet: the next search uploads it.
    New,
    /// Going up.
    Uploading {
        /// Bytes sent.
        sent: u64,
        /// Bytes in all.
        total: u64,
    },
    /// Uploaded, being indexed.
    Indexing {
        /// Seconds waited so far.
        waited_seconds: u64,
    },
    /// Indexed: later searches use this search-input UID.
    Indexed(FileUid),
    /// Upload or indexing failed; the next search uploads it again.
    Failed(String),
}

impl ViewState {
    /// The state in a few words for the slot.
    pub fn short_text(&self) -> String {
        match self {
            Self::New => "new".to_owned(),
            Self::Uploading { sent, total } if *total > 0 => {
                format!("uploading {}%", sent.saturating_mul(100) / total)
            }
            Self::Uploading { .. } => "uploading".to_owned(),
            Self::Indexing { waited_seconds } => format!("indexing {waited_seconds} s"),
            Self::Indexed(_) => "indexed".to_owned(),
            Self::Failed(_) => "failed".to_owned(),
        }
    }
}

/// One view slot.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSlot {
    /// Identifies the slot while views are added and removed.
    pub id: u64,
    /// Its bytes.
    pub source: ViewSource,
    /// Its place in the workflow.
    pub state: ViewState,
}

/// How a filter row matches its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FilterOperator {
    /// Regular metadata search (`name=value`).
    #[default]
    Regular,
    /// One whole value must match (`name=[value]`).
    Exact,
    /// A value starts with this (`name=value*`).
    Prefix,
}

impl FilterOperator {
    /// Every operator, in menu order.
    pub const ALL: [Self; 3] = [Self::Regular, Self::Exact, Self::Prefix];

    /// The operator in words.
    pub fn label(self) -> &'static str {
        match self {
            Self::Regular => "matches",
            Self::Exact => "is exactly",
            Self::Prefix => "starts with",
        }
    }
}

/// One attribute filter row.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FilterRow {
    /// Attribute name.
    pub name: String,
    /// How the value matches.
    pub operator: FilterOperator,
    /// The value.
    pub value: String,
}

impl FilterRow {
    /// The row as a filter term, `None` when blank, an error sentence when half filled.
    pub fn term(&self) -> Result<Option<FilterTerm>, String> {
        let name = self.name.trim();
        let value = self.value.trim();
        match (name.is_empty(), value.is_empty()) {
            (true, true) => Ok(None),
            (false, true) => Err(format!(
                "Give a value for the filter \"{name}\", or remove that filter."
            )),
            (true, false) => Err(format!(
                "Give an attribute name for the value \"{value}\", or remove that filter."
            )),
            (false, false) => {
                let (name, value) = (name.to_owned(), value.to_owned());
                Ok(Some(match self.operator {
                    FilterOperator::Regular => FilterTerm::Regular { name, value },
                    FilterOperator::Exact => FilterTerm::Exact { name, value },
                    FilterOperator::Prefix => FilterTerm::Prefix {
                        name,
                        prefix: value.trim_end_matches('*').to_owned(),
                    },
                }))
            }
        }
    }
}

/// What a search needs done: the views to upload (with their slot ids) and the filter, which holds
/// the UIDs of the views already indexed plus the text and attribute terms.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchPlan {
    /// Views without a UID yet, in slot order: they go up (single call or two-step).
    pub uploads: Vec<(u64, ViewSource)>,
    /// Indexed input UIDs, text and attribute terms.
    pub filter: SearchFilter,
}

impl SearchPlan {
    /// True when nothing needs uploading: a `GET /api/Search` by UIDs and terms does it.
    pub fn is_by_uids_only(&self) -> bool {
        self.uploads.is_empty()
    }

    /// The slot ids of the views this run uploads.
    pub fn upload_ids(&self) -> Vec<u64> {
        self.uploads.iter().map(|(id, _)| *id).collect()
    }
}

/// What the user asked the query bar to do; the app carries it out.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchIntent {
    /// Run this search (the bar now shows it running).
    Run(SearchPlan),
    /// Open the file picker to add views.
    PickViews,
    /// Load the company's attribute names (`GET /api/FileAttributes`) for completion.
    NeedAttributeNames,
    /// Load the values of an attribute (`GET /api/AttributeValues`) for completion.
    NeedAttributeValues(String),
    /// Load a view slot's thumbnail into the texture cache.
    NeedThumbnail(ImageRequest),
}

/// The query bar's state.
#[derive(Debug, Default)]
pub struct SearchBar {
    views: Vec<ViewSlot>,
    next_view_id: u64,
    /// The free text.
    pub text: String,
    filters: Vec<FilterRow>,
    attribute_names: Option<Vec<String>>,
    names_requested: bool,
    attribute_values: HashMap<String, Vec<AttributeValue>>,
    values_requested: HashSet<String>,
    running: Option<Vec<u64>>,
    active_filter: Option<usize>,
    stage: Option<String>,
    message: Option<String>,
}

impl SearchBar {
    /// An empty bar.
    pub fn new() -> Self {
        Self::default()
    }

    /// The view slots, in order.
    pub fn views(&self) -> &[ViewSlot] {
        &self.views
    }

    /// The filter rows.
    pub fn filters(&self) -> &[FilterRow] {
        &self.filters
    }

    /// Adds a filter row.
    pub fn add_filter(&mut self, row: FilterRow) {
        self.filters.push(row);
    }

    /// Removes every filter row and the text.
    pub fn clear_filters(&mut self) {
        self.filters.clear();
        self.text.clear();
    }

    /// What the running search is doing, in words ("Indexing view 2 of 2 (4 s)…").
    pub fn stage(&self) -> Option<&str> {
        self.stage.as_deref()
    }

    /// The sentence shown under the bar (a refusal, an error), if any.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// True while a search is running.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Adds a view, refusing an eleventh view, a duplicate, a file without extension and a view of
    /// another kind than the others. Returns the new slot's id, or the sentence saying why not.
    pub fn add_view(&mut self, source: ViewSource) -> Result<u64, String> {
        let result = self.check_new_view(&source);
        match result {
            Ok(()) => {
                let id = self.next_view_id;
                self.next_view_id += 1;
                self.views.push(ViewSlot {
                    id,
                    source,
                    state: ViewState::New,
                });
                self.message = None;
                Ok(id)
            }
            Err(message) => {
                self.message = Some(message.clone());
                Err(message)
            }
        }
    }

    fn check_new_view(&self, source: &ViewSource) -> Result<(), String> {
        if self.views.len() >= MAX_VIEWS {
            return Err(format!(
                "A search takes at most {MAX_VIEWS} views; remove one to add {}.",
                source.name()
            ));
        }
        if self.views.iter().any(|slot| &slot.source == source) {
            return Err(format!(
                "{} is already a view of this search.",
                source.name()
            ));
        }
        if let ViewSource::File(path) = source
            && path.extension().is_none()
        {
            return Err(format!(
                "{} has no file extension, so the service cannot tell its format.",
                source.name()
            ));
        }
        if let Some(first) = self.views.first() {
            let (have, new) = (view_kind(&first.source), view_kind(source));
            if have != new {
                return Err(format!(
                    "All views of one search must be of one kind. These views are {}; {} is one of \
                     the {}. Remove the {} first to search by it.",
                    have.plural(),
                    source.name(),
                    new.plural(),
                    have.plural()
                ));
            }
        }
        Ok(())
    }

    /// Removes a view; its UID is simply no longer searched by.
    pub fn remove_view(&mut self, id: u64) {
        self.views.retain(|slot| slot.id != id);
    }

    /// Removes every view.
    pub fn clear_views(&mut self) {
        self.views.clear();
    }

    /// The text and attribute terms, without input UIDs; an error sentence for a half-filled row.
    pub fn terms_filter(&self) -> Result<SearchFilter, String> {
        let mut filter = SearchFilter::new().text(&self.text);
        for row in &self.filters {
            if let Some(term) = row.term()? {
                filter = filter.term(term);
            }
        }
        Ok(filter)
    }

    /// The search to run now (see the module documentation for the rule), or the sentence saying why
    /// there is none.
    pub fn plan(&self) -> Result<SearchPlan, String> {
        let terms = self.terms_filter()?;
        let indexed: Vec<FileUid> = self
            .views
            .iter()
            .filter_map(|slot| match &slot.state {
                ViewState::Indexed(uid) => Some(uid.clone()),
                _ => None,
            })
            .collect();
        let uploads: Vec<(u64, ViewSource)> = self
            .views
            .iter()
            .filter(|slot| !matches!(slot.state, ViewState::Indexed(_)))
            .map(|slot| (slot.id, slot.source.clone()))
            .collect();
        if uploads.is_empty() && indexed.is_empty() && terms.is_empty() {
            return Err(
                "Add a view of the part, or type words or an attribute filter to search for."
                    .to_owned(),
            );
        }
        Ok(SearchPlan {
            uploads,
            filter: terms.with_uids(indexed),
        })
    }

    /// Plans a search and marks it running; the plan goes to the app. While one runs, none starts.
    pub fn start(&mut self) -> Result<SearchPlan, String> {
        if self.running.is_some() {
            return Err("A search is already running; wait for it or cancel it.".to_owned());
        }
        let plan = self.plan();
        match plan {
            Ok(plan) => {
                for slot in &mut self.views {
                    if plan.uploads.iter().any(|(id, _)| *id == slot.id) {
                        slot.state = ViewState::Uploading { sent: 0, total: 0 };
                    }
                }
                self.running = Some(plan.upload_ids());
                // The completion of the edited filter has done its job.
                self.active_filter = None;
                self.stage = Some(if plan.is_by_uids_only() {
                    "Searching…".to_owned()
                } else {
                    format!("Uploading {} view(s)…", plan.uploads.len())
                });
                self.message = None;
                Ok(plan)
            }
            Err(message) => {
                self.message = Some(message.clone());
                Err(message)
            }
        }
    }

    /// Applies a progress report of the running search; `view` counts within the uploaded views.
    pub fn apply_progress(&mut self, progress: &FileSearchProgress) {
        let Some(batch) = &self.running else {
            return;
        };
        let slot_of = |view: usize| batch.get(view).copied();
        match progress {
            FileSearchProgress::Uploading { view, sent, total } => {
                let total_views = batch.len();
                if let Some(id) = slot_of(*view) {
                    self.set_state(
                        id,
                        ViewState::Uploading {
                            sent: *sent,
                            total: *total,
                        },
                    );
                    self.stage = Some(format!("Uploading view {} of {total_views}…", view + 1));
                }
            }
            FileSearchProgress::Indexing { view, waited } => {
                let total_views = batch.len();
                if let Some(id) = slot_of(*view) {
                    self.set_state(
                        id,
                        ViewState::Indexing {
                            waited_seconds: waited.as_secs(),
                        },
                    );
                    self.stage = Some(format!(
                        "Indexing view {} of {total_views} ({} s)…",
                        view + 1,
                        waited.as_secs()
                    ));
                }
            }
            FileSearchProgress::Searching => self.stage = Some("Searching…".to_owned()),
        }
    }

    /// The running search finished. `input_uids` is what the workflow reported: the UIDs of the
    /// uploaded views are its last ones, in order (a single call returns earlier inputs first).
    pub fn finish(&mut self, input_uids: &[FileUid]) {
        let batch = self.running.take().unwrap_or_default();
        self.stage = None;
        if batch.is_empty() {
            return;
        }
        if input_uids.len() < batch.len() {
            let message = "The service did not return an input UID for this view.".to_owned();
            for id in batch {
                self.set_state(id, ViewState::Failed(message.clone()));
            }
            return;
        }
        let new_uids = &input_uids[input_uids.len() - batch.len()..];
        for (id, uid) in batch.into_iter().zip(new_uids) {
            self.set_state(id, ViewState::Indexed(uid.clone()));
        }
    }

    /// The running search failed or was cancelled: its views go back to be uploaded next time.
    pub fn fail(&mut self, message: impl Into<String>) {
        let message = message.into();
        let batch = self.running.take().unwrap_or_default();
        self.stage = None;
        for id in batch {
            if let Some(slot) = self.views.iter_mut().find(|slot| slot.id == id)
                && !matches!(slot.state, ViewState::Indexed(_))
            {
                slot.state = ViewState::Failed(message.clone());
            }
        }
        self.message = Some(message);
    }

    fn set_state(&mut self, id: u64, state: ViewState) {
        if let Some(slot) = self.views.iter_mut().find(|slot| slot.id == id) {
            slot.state = state;
        }
    }

    /// Sets the company's attribute names for completion.
    pub fn set_attribute_names(&mut self, names: Vec<String>) {
        let mut names = names;
        names.sort_by_key(|name| name.to_lowercase());
        names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        self.attribute_names = Some(names);
    }

    /// Sets the values of one attribute (with counts) for completion.
    pub fn set_attribute_values(&mut self, name: &str, values: Vec<AttributeValue>) {
        let mut values = values;
        values.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        self.attribute_values.insert(name.to_lowercase(), values);
    }

    /// Forgets loaded names and values (the service or user changed), so they are asked for again.
    pub fn forget_completions(&mut self) {
        self.attribute_names = None;
        self.names_requested = false;
        self.attribute_values.clear();
        self.values_requested.clear();
    }

    /// Names that complete `typed` (those starting with it first, then those containing it).
    pub fn name_suggestions(&self, typed: &str) -> Vec<String> {
        let names = self.attribute_names.as_deref().unwrap_or_default();
        suggestions(names.iter().map(String::as_str), typed)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Values of `name` that complete `typed`, with their counts.
    pub fn value_suggestions(&self, name: &str, typed: &str) -> Vec<AttributeValue> {
        let Some(values) = self.attribute_values.get(&name.trim().to_lowercase()) else {
            return Vec::new();
        };
        let picked = suggestions(values.iter().map(|value| value.name.as_str()), typed);
        picked
            .into_iter()
            .filter_map(|text| values.iter().find(|value| value.name == text).cloned())
            .collect()
    }

    /// Adds dropped or picked files as views (refusals end up in [`SearchBar::message`]). The app
    /// routes files dropped on the window here while the Search place is shown.
    pub fn add_files(&mut self, paths: impl IntoIterator<Item = PathBuf>) {
        let mut refusals = Vec::new();
        for path in paths {
            if let Err(message) = self.add_view(ViewSource::File(path)) {
                refusals.push(message);
            }
        }
        self.message = (!refusals.is_empty()).then(|| refusals.join(" "));
    }

    /// Draws the bar and returns what the user asked for. Slot thumbnails come from `textures`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
    ) -> Vec<SearchIntent> {
        let mut intents = Vec::new();
        if self.attribute_names.is_none() && !self.names_requested {
            self.names_requested = true;
            intents.push(SearchIntent::NeedAttributeNames);
        }
        let mut run = false;
        self.views_ui(ui, textures, &mut intents);
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let label = ui.label("Search text");
            let response = ui
                .add(
                    egui::TextEdit::singleline(&mut self.text)
                        .id(egui::Id::unique(SEARCH_FIELD_ID))
                        .hint_text("part number, material, words in drawings")
                        .desired_width(360.0)
                        .min_size(egui::vec2(360.0, 0.0)),
                )
                .labelled_by(label.id);
            if response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter)) {
                run = true;
            }
            // While a search runs, the results area offers to cancel it.
            if self.running.is_some() {
                ui.spinner();
            } else if ui.button("Find parts").clicked() {
                run = true;
            }
            if ui.button("Add filter").clicked() {
                self.filters.push(FilterRow::default());
            }
        });
        if self.filters_ui(ui, &mut intents) {
            run = true;
        }
        if let Some(stage) = &self.stage {
            ui.label(stage);
        }
        if let Some(message) = &self.message {
            ui.colored_label(ui.visuals().warn_fg_color, message);
        }
        if run {
            // A refusal leaves its sentence in `message`.
            if let Ok(plan) = self.start() {
                intents.push(SearchIntent::Run(plan));
            }
        }
        intents
    }

    fn views_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        intents: &mut Vec<SearchIntent>,
    ) {
        let hovering_files = ui.input(|input| !input.raw.hovered_files.is_empty());
        let frame = egui::Frame::group(ui.style()).stroke(if hovering_files {
            egui::Stroke::new(2.0, ui.visuals().selection.stroke.color)
        } else {
            ui.visuals().widgets.noninteractive.bg_stroke
        });
        frame.show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                let mut removed = None;
                for (index, slot) in self.views.iter().enumerate() {
                    if view_slot_ui(ui, index, slot, textures, intents) {
                        removed = Some(slot.id);
                    }
                }
                if let Some(id) = removed {
                    self.remove_view(id);
                }
                ui.vertical(|ui| {
                    let full = self.views.len() >= MAX_VIEWS;
                    if ui
                        .add_enabled(!full, egui::Button::new("Add views…"))
                        .on_disabled_hover_text("A search takes at most ten views")
                        .clicked()
                    {
                        intents.push(SearchIntent::PickViews);
                    }
                    let hint = if hovering_files {
                        "Drop to add as views".to_owned()
                    } else if self.views.is_empty() {
                        "Drop up to 10 images or models of one part here".to_owned()
                    } else {
                        format!("{} of {MAX_VIEWS} views", self.views.len())
                    };
                    ui.weak(hint);
                });
            });
        });
    }

    /// The filter rows (a grid under column headers, so fields line up), then the completion
    /// suggestions of the row being edited. Returns true when Enter was pressed in one of them.
    fn filters_ui(&mut self, ui: &mut egui::Ui, intents: &mut Vec<SearchIntent>) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let mut enter = false;
        let mut removed = None;
        let mut name_pick: Option<(usize, String)> = None;
        let mut value_pick: Option<(usize, String)> = None;
        let names = self.attribute_names.clone().unwrap_or_default();
        let attribute_values = &self.attribute_values;
        let filters = &mut self.filters;
        let active_filter = &mut self.active_filter;
        egui::Grid::new("search filter rows")
            .num_columns(6)
            .spacing([6.0, 4.0])
            .show(ui, |ui| {
                let attribute_label = ui.label("Attribute").id;
                ui.label("");
                let operator_label = ui.label("Match").id;
                let value_label = ui.label("Value").id;
                ui.end_row();
                for (index, row) in filters.iter_mut().enumerate() {
                    let name_response = ui
                        .add(
                            egui::TextEdit::singleline(&mut row.name)
                                .hint_text("attribute name")
                                .desired_width(170.0)
                                .min_size(egui::vec2(170.0, 0.0)),
                        )
                        .labelled_by(attribute_label);
                    if name_response.has_focus() || name_response.changed() {
                        *active_filter = Some(index);
                    }
                    let known_values: Vec<AttributeValue> = attribute_values
                        .get(&row.name.trim().to_lowercase())
                        .cloned()
                        .unwrap_or_default();
                    ui.horizontal(|ui| {
                        ui.menu_button("Names…", |ui| {
                            egui::ScrollArea::vertical()
                                .max_height(240.0)
                                .show(ui, |ui| {
                                    if names.is_empty() {
                                        ui.weak("No attribute names known yet.");
                                    }
                                    for name in &names {
                                        if ui.selectable_label(false, name).clicked() {
                                            name_pick = Some((index, name.clone()));
                                            ui.close();
                                        }
                                    }
                                });
                        });
                    });
                    egui::ComboBox::from_id_salt(("filter operator", index))
                        .selected_text(row.operator.label())
                        .width(100.0)
                        .show_ui(ui, |ui| {
                            for operator in FilterOperator::ALL {
                                ui.selectable_value(&mut row.operator, operator, operator.label());
                            }
                        })
                        .response
                        .labelled_by(operator_label);
                    let value_response = ui
                        .add(
                            egui::TextEdit::singleline(&mut row.value)
                                .hint_text("value")
                                .desired_width(170.0)
                                .min_size(egui::vec2(170.0, 0.0)),
                        )
                        .labelled_by(value_label);
                    if value_response.has_focus() || value_response.changed() {
                        *active_filter = Some(index);
                    }
                    ui.horizontal(|ui| {
                        ui.menu_button("Values…", |ui| {
                            egui::ScrollArea::vertical()
                                .max_height(240.0)
                                .show(ui, |ui| {
                                    if known_values.is_empty() {
                                        ui.weak("No values known for this attribute.");
                                    }
                                    for value in &known_values {
                                        let text = format!("{} ({})", value.name, value.count);
                                        if ui.selectable_label(false, text).clicked() {
                                            value_pick = Some((index, value.name.clone()));
                                            ui.close();
                                        }
                                    }
                                });
                        });
                        if ui.button("Remove filter").clicked() {
                            removed = Some(index);
                        }
                    });
                    let pressed_enter = ui.input(|input| input.key_pressed(egui::Key::Enter));
                    if pressed_enter && (name_response.lost_focus() || value_response.lost_focus())
                    {
                        enter = true;
                    }
                    ui.end_row();
                }
            });

        // Ask once for the values of every name the company uses.
        for row in &self.filters {
            let name_key = row.name.trim().to_lowercase();
            if !name_key.is_empty()
                && names.iter().any(|name| name.to_lowercase() == name_key)
                && !self.attribute_values.contains_key(&name_key)
                && self.values_requested.insert(name_key)
            {
                intents.push(SearchIntent::NeedAttributeValues(
                    row.name.trim().to_owned(),
                ));
            }
        }

        // Completion of the row being edited, while what is typed is not a known entry yet.
        if let Some(index) = self
            .active_filter
            .filter(|index| *index < self.filters.len())
        {
            let row = self.filters[index].clone();
            let name_suggestions: Vec<String> = self
                .name_suggestions(&row.name)
                .into_iter()
                .filter(|name| !row.name.trim().is_empty() && name != row.name.trim())
                .collect();
            let value_suggestions: Vec<AttributeValue> = self
                .value_suggestions(&row.name, &row.value)
                .into_iter()
                .filter(|value| !row.value.trim().is_empty() && value.name != row.value.trim())
                .collect();
            if !name_suggestions.is_empty() || !value_suggestions.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.weak("Suggestions:");
                    for name in name_suggestions {
                        if ui.small_button(&name).clicked() {
                            name_pick = Some((index, name));
                        }
                    }
                    for value in value_suggestions {
                        let text = format!("{} ({})", value.name, value.count);
                        if ui.small_button(text).clicked() {
                            value_pick = Some((index, value.name.clone()));
                        }
                    }
                });
            }
        }
        if let Some((index, name)) = name_pick
            && let Some(row) = self.filters.get_mut(index)
        {
            row.name = name;
        }
        if let Some((index, value)) = value_pick
            && let Some(row) = self.filters.get_mut(index)
        {
            row.value = value;
        }
        if let Some(index) = removed {
            self.filters.remove(index);
            self.active_filter = None;
        }
        enter
    }
}

/// Up to [`SUGGESTIONS`] entries that complete `typed`: those starting with it (ignoring case) first,
/// then those containing it, each group in the given order.
pub fn suggestions<'a>(
    entries: impl Iterator<Item = &'a str> + Clone,
    typed: &str,
) -> Vec<&'a str> {
    let typed = typed.trim().to_lowercase();
    if typed.is_empty() {
        return entries.take(SUGGESTIONS).collect();
    }
    let starting = entries
        .clone()
        .filter(|entry| entry.to_lowercase().starts_with(&typed));
    let containing = entries.filter(|entry| {
        let lower = entry.to_lowercase();
        !lower.starts_with(&typed) && lower.contains(&typed)
    });
    starting.chain(containing).take(SUGGESTIONS).collect()
}

/// One view slot: thumbnail (or the file's extension), name, state, and a remove button. Returns true
/// when the user removed it.
fn view_slot_ui(
    ui: &mut egui::Ui,
    index: usize,
    slot: &ViewSlot,
    textures: &mut TextureCache<egui::TextureHandle>,
    intents: &mut Vec<SearchIntent>,
) -> bool {
    let mut removed = false;
    ui.push_id(("view slot", slot.id), |ui| {
        ui.vertical(|ui| {
            ui.set_width(SLOT_THUMBNAIL.x);
            let (rect, response) = ui.allocate_exact_size(SLOT_THUMBNAIL, Sense::hover());
            slot_thumbnail_ui(ui, rect, slot, textures, intents);
            let name = slot.source.name();
            response.on_hover_text(format!("View {}: {name}", index + 1));
            ui.add(egui::Label::new(egui::RichText::new(&name).small()).truncate());
            let state_text = slot.state.short_text();
            let state_label = match &slot.state {
                ViewState::Failed(reason) => ui
                    .colored_label(ui.visuals().error_fg_color, state_text)
                    .on_hover_text(reason),
                ViewState::Indexed(_) => {
                    ui.colored_label(Color32::from_rgb(0x2e, 0x9e, 0x4f), state_text)
                }
                _ => ui.weak(state_text),
            };
            let _ = state_label;
            if ui.small_button("Remove").clicked() {
                removed = true;
            }
        });
    });
    removed
}

fn slot_thumbnail_ui(
    ui: &egui::Ui,
    rect: Rect,
    slot: &ViewSlot,
    textures: &mut TextureCache<egui::TextureHandle>,
    intents: &mut Vec<SearchIntent>,
) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let text = |text: &str| {
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            text,
            FontId::proportional(13.0),
            ui.visuals().weak_text_color(),
        );
    };
    // A model or drawing not indexed yet, or whose picture is on its way or missing: its extension
    // stands in for a thumbnail.
    let extension = || {
        let name = slot.source.name();
        text(&name.rsplit('.').next().unwrap_or_default().to_uppercase());
    };
    let Some(request) = view_thumbnail_request(slot) else {
        extension();
        return;
    };
    let rendered_by_the_service = matches!(request.source, ImageSource::OfFile(_));
    match textures.request(&request.key) {
        Lookup::Ready(texture) => {
            let size = texture.size_vec2();
            let scale = (rect.width() / size.x).min(rect.height() / size.y);
            painter.image(
                texture.id(),
                Rect::from_center_size(rect.center(), size * scale),
                Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        Lookup::Pending | Lookup::Failed(_) if rendered_by_the_service => extension(),
        Lookup::Pending => text("…"),
        Lookup::Failed(_) => text("no preview"),
        Lookup::NeedsFetch => {
            if rendered_by_the_service {
                extension();
            } else {
                text("…");
            }
            intents.push(SearchIntent::NeedThumbnail(request));
        }
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;

    fn uid(n: u32) -> FileUid {
        FileUid::from_reply(&format!("00000000-0000-4000-8000-{n:012}"))
    }

    fn file(name: &str) -> ViewSource {
        ViewSource::File(PathBuf::from(format!("/parts/{name}")))
    }

    #[test]
    fn a_model_slot_shows_the_service_picture_once_indexed() {
        let slot = |source: ViewSource, state: ViewState| ViewSlot {
            id: 1,
            source,
            state,
        };
        // An image is drawn from its own bytes, whatever its state.
        let image = view_thumbnail_request(&slot(file("front.png"), ViewState::New)).unwrap();
        assert!(matches!(image.source, ImageSource::File(_)));
        // A model has no picture until the service indexed it, then the service's thumbnail.
        assert!(view_thumbnail_request(&slot(file("gear.stl"), ViewState::New)).is_none());
        assert!(
            view_thumbnail_request(&slot(
                file("gear.stl"),
                ViewState::Indexing { waited_seconds: 3 }
            ))
            .is_none()
        );
        let indexed =
            view_thumbnail_request(&slot(file("gear.stl"), ViewState::Indexed(uid(7)))).unwrap();
        assert_eq!(indexed, ImageRequest::thumbnail_of_file(uid(7)));
        assert!(matches!(indexed.source, ImageSource::OfFile(ref record) if record.uid == uid(7)));
        // So does a drawing.
        assert!(
            view_thumbnail_request(&slot(file("flange.dxf"), ViewState::Indexed(uid(8)))).is_some()
        );
    }

    #[test]
    fn views_are_limited_to_ten_of_one_kind() {
        let mut bar = SearchBar::new();
        for i in 0..MAX_VIEWS {
            bar.add_view(file(&format!("view-{i}.png"))).unwrap();
        }
        let error = bar.add_view(file("view-10.png")).unwrap_err();
        assert!(error.contains("at most 10"), "{error}");

        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        assert!(bar.add_view(file("front.png")).is_err());
        let error = bar.add_view(file("bracket.stl")).unwrap_err();
        assert!(error.contains("one kind"), "{error}");
        assert!(bar.add_view(file("side.jpg")).is_ok());
        assert!(bar.add_view(file("README")).is_err());
        assert_eq!(bar.views().len(), 2);
        assert_eq!(ViewKind::of_name("plan.DXF"), ViewKind::Drawing);
        assert_eq!(ViewKind::of_name("part.step"), ViewKind::Model);
    }

    #[test]
    fn nothing_to_search_is_said_in_words() {
        let bar = SearchBar::new();
        assert!(bar.plan().unwrap_err().contains("Add a view"));
        let mut bar = SearchBar::new();
        bar.add_filter(FilterRow {
            name: "material".into(),
            ..FilterRow::default()
        });
        assert!(bar.plan().unwrap_err().contains("Give a value"));
    }

    #[test]
    fn filter_rows_become_ft_terms() {
        let mut bar = SearchBar::new();
        bar.text = "pump housing".into();
        for (name, operator, value) in [
            ("material", FilterOperator::Exact, "Stainless Steel"),
            ("document_number", FilterOperator::Prefix, "AX-"),
            ("region", FilterOperator::Regular, "EU"),
            ("", FilterOperator::Regular, ""),
        ] {
            bar.add_filter(FilterRow {
                name: name.into(),
                operator,
                value: value.into(),
            });
        }
        let plan = bar.plan().unwrap();
        assert!(plan.is_by_uids_only());
        assert_eq!(
            plan.filter.inner(),
            "FT=pump housing&FT=material%3D%5BStainless%20Steel%5D&FT=document_number%3DAX-%2A&FT=region%3DEU"
        );
    }

    /// The state rule: once the views are indexed, a change of text or filters searches by their
    /// UIDs without uploading; a new view uploads only itself, alongside the kept UIDs.
    #[test]
    fn indexed_views_are_searched_by_uid_without_uploading_again() {
        let mut bar = SearchBar::new();
        let front = bar.add_view(file("front.png")).unwrap();
        let side = bar.add_view(file("side.png")).unwrap();

        let first = bar.start().unwrap();
        assert_eq!(first.upload_ids(), vec![front, side]);
        assert!(first.filter.file_uids.is_empty());
        assert!(bar.is_running());
        // While indexing, no other search starts.
        assert!(bar.start().is_err());
        bar.apply_progress(&FileSearchProgress::Indexing {
            view: 1,
            waited: std::time::Duration::from_secs(4),
        });
        assert_eq!(
            bar.views()[1].state,
            ViewState::Indexing { waited_seconds: 4 }
        );
        bar.finish(&[uid(1), uid(2)]);
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(1)));

        bar.text = "bracket".into();
        let second = bar.start().unwrap();
        assert!(second.is_by_uids_only());
        assert_eq!(second.filter.file_uids, vec![uid(1), uid(2)]);
        assert_eq!(
            second.filter.inner(),
            format!("fileUID={},{}&FT=bracket", uid(1), uid(2))
        );
        bar.finish(&[uid(1), uid(2)]);

        // A third view: only it goes up; the two kept UIDs ride in the filter.
        let top = bar.add_view(file("top.png")).unwrap();
        let third = bar.start().unwrap();
        assert_eq!(third.upload_ids(), vec![top]);
        assert_eq!(third.filter.file_uids, vec![uid(1), uid(2)]);
        // A single call answers with the earlier inputs plus the new one.
        bar.finish(&[uid(1), uid(2), uid(3)]);
        assert_eq!(bar.views()[2].state, ViewState::Indexed(uid(3)));

        // Removing a view drops its UID from the next search.
        bar.remove_view(front);
        assert_eq!(bar.plan().unwrap().filter.file_uids, vec![uid(2), uid(3)]);
    }

    #[test]
    fn a_failed_run_uploads_its_views_again_next_time() {
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        bar.start().unwrap();
        bar.fail("view 1 (front.png) could not be indexed");
        assert!(matches!(bar.views()[0].state, ViewState::Failed(_)));
        assert!(!bar.is_running());
        assert_eq!(bar.plan().unwrap().uploads.len(), 1);
        assert_eq!(
            bar.message(),
            Some("view 1 (front.png) could not be indexed")
        );
    }

    #[test]
    fn suggestions_put_prefix_matches_first() {
        let names = ["document_number", "material", "mass", "raw material"];
        assert_eq!(
            suggestions(names.iter().copied(), "ma"),
            vec!["material", "mass", "raw material"]
        );
        assert_eq!(
            suggestions(names.iter().copied(), "NUM"),
            vec!["document_number"]
        );
    }

    struct Fixture {
        bar: SearchBar,
        textures: TextureCache<egui::TextureHandle>,
        intents: Vec<SearchIntent>,
    }

    fn harness(bar: SearchBar) -> Harness<'static, Fixture> {
        Harness::builder()
            .with_size([1000.0, 400.0])
            .build_ui_state(
                |ui, fixture: &mut Fixture| {
                    let intents = fixture.bar.ui(ui, &mut fixture.textures);
                    fixture.intents.extend(intents);
                },
                Fixture {
                    bar,
                    textures: TextureCache::new(1 << 24),
                    intents: Vec::new(),
                },
            )
    }

    fn runs(intents: &[SearchIntent]) -> Vec<&SearchPlan> {
        intents
            .iter()
            .filter_map(|intent| match intent {
                SearchIntent::Run(plan) => Some(plan),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn enter_in_the_text_field_runs_the_search() {
        let mut harness = harness(SearchBar::new());
        harness.run();
        assert_eq!(harness.state().intents, [SearchIntent::NeedAttributeNames]);
        let field = harness.get_by_label("Search text");
        field.focus();
        harness.run();
        harness.get_by_label("Search text").type_text("flange");
        harness.run();
        harness.key_press(egui::Key::Enter);
        // The running search shows a spinner, which keeps repainting: step instead of running to rest.
        harness.run_steps(2);
        let plans = runs(&harness.state().intents);
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0].filter.inner(), "FT=flange");
        assert!(
            harness.query_by_label("Find parts").is_none(),
            "no second search while one runs"
        );
    }

    #[test]
    fn names_complete_and_values_are_asked_for_and_offered_with_counts() {
        let mut bar = SearchBar::new();
        bar.set_attribute_names(vec!["material".into(), "mass".into(), "region".into()]);
        bar.add_filter(FilterRow::default());
        let mut harness = harness(bar);
        harness.run();
        harness.get_by_label("Attribute").focus();
        harness.run();
        harness.get_by_label("Attribute").type_text("mat");
        harness.run();
        harness.get_by_label("material").click();
        harness.run();
        assert_eq!(harness.state().bar.filters()[0].name, "material");
        assert!(
            harness
                .state()
                .intents
                .contains(&SearchIntent::NeedAttributeValues("material".into()))
        );
        harness.state_mut().bar.set_attribute_values(
            "material",
            vec![
                AttributeValue {
                    name: "steel".into(),
                    count: 12,
                },
                AttributeValue {
                    name: "stainless steel".into(),
                    count: 3,
                },
            ],
        );
        harness.get_by_label("Value").focus();
        harness.run();
        harness.get_by_label("Value").type_text("st");
        harness.run();
        harness.get_by_label("steel (12)").click();
        harness.run();
        assert_eq!(harness.state().bar.filters()[0].value, "steel");
    }

    #[test]
    fn added_files_become_views_that_can_be_removed() {
        let mut harness = harness(SearchBar::new());
        harness.run();
        harness.state_mut().bar.add_files([
            PathBuf::from("/parts/front.stl"),
            PathBuf::from("/parts/side.png"),
        ]);
        harness.run();
        // The STL went in; the PNG is refused as another kind, with a sentence.
        assert_eq!(harness.state().bar.views().len(), 1);
        harness.get_by_label("front.stl");
        harness.get_by_label_contains("must be of one kind");
        harness.get_by_label("Remove").click();
        harness.run();
        assert!(harness.state().bar.views().is_empty());
    }

    #[test]
    fn image_views_ask_for_their_thumbnail() {
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        let mut harness = harness(bar);
        harness.run();
        assert!(
            harness
                .state()
                .intents
                .contains(&SearchIntent::NeedThumbnail(ImageRequest::local_file(
                    "/parts/front.png"
                )))
        );
    }
}
