//! The detail view of one file record: the large image with zoom and pan, the record's fields and
//! attributes, an assembly's components as a tree and where the file is used
//! ([`super::assembly_relations`]), the PDF opened in the browser, the raw record
//! as collapsible JSON (for the fields the interface leaves open), and deleting the file after a
//! confirmation, with 401, 403 and 404 explained in words.
//!
//! "Drawing data (PMI)" (or Ctrl+D) opens the file's PMI viewer. A model (STL, OBJ, PLY) is shown
//! in 3D with its measurements when this computer has its file ([`super::detail_model`]), else the
//! picture stays with the reason.
//!
//! The view sends what the task layer does (reload, delete, the image) as `Command`s and returns
//! [`DetailIntent`]s for what leads elsewhere (another file, the editor, the drawing data, a search).

use std::path::PathBuf;

use egui::{Rect, Vec2};

use super::app_command::CommandQueue;
use super::assembly_relations::AssemblyRelations;
pub use super::detail_intent::DetailIntent;
use super::detail_model::{DetailModel, DetailPicture};
use super::load_state::LoadState;
use super::picture::{Picture, paint_caption, picture};
use super::place::Place;
use super::texture_cache::TextureCache;
use crate::ui::text_value::{field_rows_ui, name_value_label, value_label};
use partlens_api::{ApiError, FileMap, FileRecord, FileUid, RelationTree};
use partlens_tasks::Command;
use partlens_tasks::models::is_model_file_name;
use partlens_tasks::thumbnails::ImageRequest;
use partlens_tasks::wording::{Attempt, explain};

/// Height of the image area, in points.
const IMAGE_HEIGHT: f32 = 420.0;

/// The closest and farthest zoom of the image.
const ZOOM_RANGE: std::ops::RangeInclusive<f32> = 0.05..=16.0;

/// Where deleting the file is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeleteState {
    /// Nothing asked.
    #[default]
    Idle,
    /// The user pressed delete; the confirmation is shown.
    Confirming,
    /// The delete is on its way.
    Deleting,
    /// The service refused or failed; the sentence says why.
    Failed(String),
    /// The file is gone.
    Deleted,
}

/// The detail view's state.
#[derive(Debug)]
pub struct DetailView {
    status: LoadState<FileRecord>,
    /// The record's JSON, pretty-printed once when it arrives.
    raw_pretty: String,
    scene_rect: Rect,
    delete: DeleteState,
    /// The 3D preview, for a model record.
    model: Option<DetailModel>,
    /// Files on this computer known to hold the content of the file shown.
    model_hints: Vec<PathBuf>,
    /// How the file matched the search it was opened from: its raw score, kind and chance.
    match_note: Option<String>,
    /// Where the record was opened from: where its back button leads.
    opened_from: OpenedFrom,
    /// The assembly's components and where the file is used.
    relations: AssemblyRelations,
}

/// Where a record was opened from, and so where the detail's back button leads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenedFrom {
    /// A result of the search.
    #[default]
    Results,
    /// The Library place.
    Library,
    /// The Duplicates place (a file of a group, or a group's comparison).
    Duplicates,
    /// The Jobs place (a file just uploaded).
    Jobs,
}

impl OpenedFrom {
    /// The place the back button leads to, when it is not the results of the Search place.
    pub fn place(self) -> Option<Place> {
        match self {
            Self::Results => None,
            Self::Library => Some(Place::Library),
            Self::Duplicates => Some(Place::Duplicates),
            Self::Jobs => Some(Place::Jobs),
        }
    }

    /// The heading of a comparison of `count` files opened from here.
    pub fn comparing_label(self, count: usize) -> String {
        match self {
            Self::Results => format!("Comparing {count} results"),
            Self::Library | Self::Jobs => format!("Comparing {count} files"),
            Self::Duplicates => format!("Comparing {count} files of one part"),
        }
    }

    /// The back button's words.
    pub fn back_label(self) -> &'static str {
        match self {
            Self::Results => "Back to results",
            Self::Library => "Back to the Library",
            Self::Duplicates => "Back to Duplicates",
            Self::Jobs => "Back to Jobs",
        }
    }
}

impl Default for DetailView {
    fn default() -> Self {
        Self {
            status: LoadState::Empty,
            raw_pretty: String::new(),
            scene_rect: Rect::ZERO,
            delete: DeleteState::Idle,
            model: None,
            model_hints: Vec::new(),
            match_note: None,
            opened_from: OpenedFrom::Results,
            relations: AssemblyRelations::default(),
        }
    }
}

impl DetailView {
    /// An empty view.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts showing `uid`: the previous record is cleared at once, so a stale record never stands
    /// in for the one asked for.
    pub fn set_loading(&mut self, uid: FileUid) {
        *self = Self {
            status: LoadState::Loading(uid),
            ..Self::default()
        };
    }

    /// How the file shown matched the search it was opened from (the raw score, which the result
    /// list replaces by the chance of being the same part).
    pub fn set_match_note(&mut self, note: Option<String>) {
        self.match_note = note;
    }

    /// Where the record shown was opened from.
    pub fn set_opened_from(&mut self, opened_from: OpenedFrom) {
        self.opened_from = opened_from;
    }

    /// Where the record shown was opened from.
    pub fn opened_from(&self) -> OpenedFrom {
        self.opened_from
    }

    /// Files on this computer that hold the content of the file being shown (the query bar's views
    /// indexed under its UID): the 3D preview may read the model from them.
    pub fn set_model_hints(&mut self, paths: Vec<PathBuf>) {
        self.model_hints = paths;
    }

    /// The 3D preview of a model record.
    pub fn model(&self) -> Option<&DetailModel> {
        self.model.as_ref()
    }

    /// The 3D preview of a model record, to file answers in.
    pub fn model_mut(&mut self) -> Option<&mut DetailModel> {
        self.model.as_mut()
    }

    /// Shows a record (its JSON, with every field the service sent, goes under "Raw record").
    pub fn set_record(&mut self, record: FileRecord) {
        // A reloaded record (after a save) keeps the preview and its camera.
        if self.model.is_none() && is_model_file_name(&record.value.file_name) {
            self.model = Some(DetailModel::of_file(
                record.value.file_uid(),
                &record.value.file_name,
                self.model_hints.clone(),
            ));
        }
        self.relations.start(&record.value);
        self.raw_pretty =
            serde_json::to_string_pretty(&record.json).unwrap_or_else(|_| record.json.to_string());
        self.status = LoadState::Ready(record);
        self.scene_rect = Rect::ZERO;
        self.delete = DeleteState::Idle;
    }

    /// Escape clears the component lit in the 3D preview, before it leads back from the page:
    /// true when it did (the key is taken).
    pub fn escape_clears_lit_component(&mut self, ui: &egui::Ui) -> bool {
        let Some(model) = self
            .model
            .as_mut()
            .filter(|model| model.lit_component().is_some())
        else {
            return false;
        };
        let pressed = super::keyboard::keys_free(ui.ctx())
            && ui.input_mut(|input| input.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
        if pressed {
            model.light_component(None);
        }
        pressed
    }

    /// Files the walk of a file's assembly relations (ignored unless it is the file shown).
    pub fn set_relations(
        &mut self,
        uid: &FileUid,
        components: Result<RelationTree, ApiError>,
        used_in: Result<RelationTree, ApiError>,
    ) {
        self.relations.answer(uid, components, used_in);
    }

    /// Shows why the record could not be loaded.
    pub fn set_load_failed(&mut self, uid: FileUid, error: &ApiError) {
        self.status = LoadState::Failed {
            uid,
            message: explain(error, Attempt::LoadRecord),
        };
    }

    /// The delete finished: `Ok` when the file is gone.
    pub fn set_delete_result(&mut self, result: Result<(), &ApiError>) {
        self.delete = match result {
            Ok(()) => DeleteState::Deleted,
            Err(error) => DeleteState::Failed(explain(error, Attempt::DeleteFile)),
        };
    }

    /// Where loading the record is.
    pub fn status(&self) -> &LoadState<FileRecord> {
        &self.status
    }

    /// The file shown (or being loaded), if any.
    pub fn showing(&self) -> Option<FileUid> {
        match &self.status {
            LoadState::Ready(record) => Some(record.value.file_uid()),
            other => other.pending_uid().cloned(),
        }
    }

    /// True when `uid` is the file shown or being loaded.
    pub fn is_showing(&self, uid: &FileUid) -> bool {
        self.showing()
            .is_some_and(|shown| shown.canonical() == uid.canonical())
    }

    /// The record shown, if any.
    pub fn record(&self) -> Option<&FileMap> {
        self.status.ready().map(|record| &record.value)
    }

    /// Where deleting is.
    pub fn delete_state(&self) -> &DeleteState {
        &self.delete
    }

    /// Draws the view and returns where the user asked to go.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<DetailIntent> {
        let mut intents = Vec::new();
        ui.horizontal(|ui| {
            if ui.button(self.opened_from.back_label()).clicked() {
                intents.push(DetailIntent::Back);
            }
        });
        ui.separator();
        // Taken out while drawing (the record is read while the rest of the view changes), put back
        // after.
        let status = std::mem::take(&mut self.status);
        match &status {
            LoadState::Empty => {
                ui.label("Open a result to see its record here.");
            }
            LoadState::Loading(uid) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("Loading file {uid}…"));
                });
            }
            LoadState::Failed { uid, message } => {
                ui.colored_label(ui.visuals().error_fg_color, message);
                if ui.button("Try again").clicked() {
                    self.set_loading(uid.clone());
                    commands.backend(Command::LoadRecord(uid.clone()));
                    return intents;
                }
            }
            LoadState::Ready(record) => {
                self.record_ui(ui, &record.value, textures, commands, &mut intents);
            }
        }
        self.status = status;
        intents
    }

    fn record_ui(
        &mut self,
        ui: &mut egui::Ui,
        record: &FileMap,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<DetailIntent>,
    ) {
        let uid = record.file_uid();
        value_label(ui, egui::RichText::new(record.title()).heading());
        if let Some(note) = &self.match_note {
            ui.label(egui::RichText::new(note).weak());
        }
        if self.delete == DeleteState::Deleted {
            ui.label("The file was deleted. Its record is shown as it was.");
        }
        ui.columns(2, |columns| {
            self.image_ui(&mut columns[0], record, textures, commands);
            egui::ScrollArea::vertical()
                .id_salt("detail fields")
                .show(&mut columns[1], |ui| {
                    if let Some(model) = &self.model {
                        model.measurements_ui(ui);
                    }
                    self.fields_ui(ui, record);
                    // An assembly's components and where a part is used come before the long
                    // list of extracted attributes.
                    let mut lights = self.model.as_mut().and_then(DetailModel::component_lights);
                    self.relations
                        .ui(ui, record, textures, commands, intents, lights.as_mut());
                    if let (Some(model), Some(chosen)) =
                        (&mut self.model, lights.and_then(|lights| lights.chosen))
                    {
                        model.light_component(chosen.as_deref());
                        ui.ctx().request_repaint();
                    }
                    self.attributes_ui(ui, record);
                    ui.separator();
                    self.actions_ui(ui, record, &uid, commands, intents);
                    ui.separator();
                    egui::CollapsingHeader::new("Raw record (JSON)")
                        .default_open(false)
                        .show(ui, |ui| {
                            ui.add(
                                egui::Label::new(egui::RichText::new(&self.raw_pretty).monospace())
                                    .selectable(true),
                            );
                        });
                });
        });
    }

    fn image_ui(
        &mut self,
        ui: &mut egui::Ui,
        record: &FileMap,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) {
        let mut model_note = None;
        if let Some(model) = &mut self.model {
            model.mode_ui(ui, commands);
            match model.viewport_ui(ui, IMAGE_HEIGHT, commands) {
                DetailPicture::Model => return,
                DetailPicture::Picture(note) => model_note = note,
            }
        }
        if let Some(note) = model_note {
            let color = super::theme::warning_color(ui);
            value_label(ui, egui::RichText::new(note).color(color));
        }
        ui.horizontal(|ui| {
            if ui.button("Zoom in").clicked() {
                self.scene_rect = zoomed(self.scene_rect, 0.8);
            }
            if ui.button("Zoom out").clicked() {
                self.scene_rect = zoomed(self.scene_rect, 1.25);
            }
            if ui.button("Fit").clicked() {
                // An empty scene rectangle makes the next frame fit the whole image again.
                self.scene_rect = Rect::ZERO;
            }
            ui.weak("Drag to pan, Ctrl + scroll to zoom");
        });
        let size = Vec2::new(ui.available_width(), IMAGE_HEIGHT);
        let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
        ui.painter()
            .rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
        let message = |ui: &egui::Ui, text: &str| paint_caption(ui, ui.painter(), rect, text, 14.0);
        let Some(url) = record.picture_url() else {
            message(ui, "This file has no image.");
            return;
        };
        let request = ImageRequest::large_image(url).of_record(record.file_uid());
        match picture(textures, request, commands) {
            Picture::Ready(texture) => {
                let sized = egui::load::SizedTexture::from_handle(texture);
                let image_rect = Rect::from_min_size(egui::Pos2::ZERO, sized.size);
                // An empty scene rectangle means "fit": show the whole image, centred.
                if self.scene_rect == Rect::ZERO || !self.scene_rect.is_finite() {
                    self.scene_rect = image_rect;
                }
                let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
                child.set_clip_rect(rect.intersect(ui.clip_rect()));
                let mut scene_rect = self.scene_rect;
                egui::Scene::new()
                    .zoom_range(ZOOM_RANGE)
                    .max_inner_size(sized.size)
                    .show(&mut child, &mut scene_rect, |ui| {
                        ui.put(
                            image_rect,
                            egui::Image::from_texture(sized)
                                .fit_to_exact_size(sized.size)
                                .sense(egui::Sense::hover()),
                        );
                    });
                self.scene_rect = scene_rect;
            }
            Picture::Loading => message(ui, "Loading the image…"),
            Picture::Failed(reason) => {
                let text = format!("The image could not be shown: {reason}");
                message(ui, &text);
            }
        }
    }

    /// The record's own fields: UID, names, company, state.
    fn fields_ui(&self, ui: &mut egui::Ui, record: &FileMap) {
        let yes_no = |value: bool| if value { "yes" } else { "no" };
        field_rows_ui(
            ui,
            &[
                ("UID", &record.uid),
                ("Display name", &record.display_name),
                ("Stored as", &record.file_name),
                ("Company", &record.viz_space_id),
                ("Indexing finished", yes_no(record.indexing_finished)),
                ("Has thumbnail", yes_no(record.has_thumbnail)),
            ],
        );
    }

    /// The attributes saved and extracted, and the PDF link.
    fn attributes_ui(&self, ui: &mut egui::Ui, record: &FileMap) {
        ui.add_space(6.0);
        ui.strong("Attributes");
        let attributes = record.parsed_attributes();
        if attributes.is_empty() {
            ui.weak("No attributes.");
        }
        for attribute in &attributes {
            let name = match &attribute.unit {
                Some(unit) => format!("{} ({unit})", attribute.name),
                None => attribute.name.clone(),
            };
            name_value_label(ui, &name, &attribute.values.join(", "));
        }
        if !record.extracted_attributes.is_empty() {
            ui.add_space(6.0);
            ui.strong("Extracted from the content");
            for text in &record.extracted_attributes {
                value_label(ui, text);
            }
        }
        if !record.pdf_url.trim().is_empty() {
            ui.add_space(6.0);
            if ui
                .link("Open the PDF in the browser")
                .on_hover_text("Opens the PDF viewer of this file")
                .clicked()
            {
                ui.ctx()
                    .open_url(egui::OpenUrl::new_tab(record.pdf_url.trim()));
            }
        }
    }

    fn actions_ui(
        &mut self,
        ui: &mut egui::Ui,
        record: &FileMap,
        uid: &FileUid,
        commands: &mut CommandQueue,
        intents: &mut Vec<DetailIntent>,
    ) {
        ui.horizontal_wrapped(|ui| {
            if ui.button("Edit attributes").clicked() {
                intents.push(DetailIntent::EditAttributes(uid.clone()));
            }
            let pmi_shortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::D);
            let pmi = ui.button("Drawing data (PMI)").on_hover_text(format!(
                "The PMI boxes on the drawing, the free text and the extracted attributes, with \
                 feedback on them ({})",
                ui.ctx().format_shortcut(&pmi_shortcut)
            ));
            if pmi.clicked() || ui.input_mut(|input| input.consume_shortcut(&pmi_shortcut)) {
                intents.push(DetailIntent::ShowPmi(uid.clone()));
            }
            if ui
                .button("More like this")
                .on_hover_text(crate::ui::results::more_like_this_hint(&record.file_name))
                .clicked()
            {
                intents.push(DetailIntent::MoreLikeThis {
                    uid: uid.clone(),
                    file_name: record.file_name.clone(),
                });
            }
            let can_delete = matches!(self.delete, DeleteState::Idle | DeleteState::Failed(_));
            if ui
                .add_enabled(can_delete, egui::Button::new("Delete file…"))
                .clicked()
            {
                self.delete = DeleteState::Confirming;
            }
        });
        match self.delete.clone() {
            DeleteState::Idle | DeleteState::Deleted => {}
            DeleteState::Confirming => {
                egui::Frame::group(ui.style()).show(ui, |ui| {
                    ui.label(format!(
                        "Delete {}? The file, its attributes and its index entries are removed \
                         from the service. This cannot be undone.",
                        record.title()
                    ));
                    ui.horizontal(|ui| {
                        if ui.button("Delete").clicked() {
                            self.delete = DeleteState::Deleting;
                            commands.backend(Command::DeleteFile(uid.clone()));
                        }
                        if ui.button("Keep the file").clicked() {
                            self.delete = DeleteState::Idle;
                        }
                    });
                });
            }
            DeleteState::Deleting => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Deleting…");
                });
            }
            DeleteState::Failed(message) => {
                ui.colored_label(ui.visuals().error_fg_color, message);
            }
        }
    }
}

/// The scene rectangle zoomed around its centre: a factor below one zooms in.
fn zoomed(scene_rect: Rect, factor: f32) -> Rect {
    if scene_rect == Rect::ZERO || !scene_rect.is_finite() {
        return scene_rect;
    }
    Rect::from_center_size(scene_rect.center(), scene_rect.size() * factor)
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;

    const UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    const CHILD: &str = "9a1b2c3d-4f89-41d3-9a0c-0305e82c3302";

    fn record() -> serde_json::Value {
        serde_json::json!({
            "UID": UID,
            "VizSpaceID": "acme",
            "FileName": "Brackets/bracket-01.png",
            "DisplayName": "Bracket 01",
            "Attributes": ["material=steel", "region=EU|US", "weight(kg)=1.2"],
            "ExtractedAttributes": ["Volume=12.5"],
            "ThumbNailURLFromID": "http://127.0.0.1:9/t.png",
            "PNGURLFromID": "http://127.0.0.1:9/l.png",
            "PDFUrl": "http://127.0.0.1:9/viewer?file=1",
            "HasThumbnail": true,
            "IndexingFinished": true,
            "AssemblyParents": [],
            "AssemblyChildren": [{"UID": CHILD, "DisplayName": "Bolt M6"}],
            "ShapeletCount": 7
        })
    }

    type Fixture = view_harness::Fixture<DetailView, DetailIntent>;

    fn harness(view: DetailView) -> Harness<'static, Fixture> {
        view_harness::harness(view, [1100.0, 800.0], 1 << 26, DetailView::ui)
    }

    fn ready_view() -> DetailView {
        let mut view = DetailView::new();
        view.set_loading(FileUid::from_reply(UID));
        view.set_record(FileRecord::from_json(record(), "file record").unwrap());
        // The relations walk answered (failed: the record's own relations stay, without a spinner).
        let walk_failed = || {
            Err(ApiError::Network(
                "the service closed the connection".into(),
            ))
        };
        view.set_relations(&FileUid::from_reply(UID), walk_failed(), walk_failed());
        view
    }

    #[test]
    fn the_record_fields_attributes_and_links_are_shown() {
        let mut harness = harness(ready_view());
        harness.run();
        // Heading and display-name field.
        assert_eq!(harness.get_all_by_label("Bracket 01").count(), 2);
        harness.get_by_label("Brackets/bracket-01.png");
        harness.get_by_label("region: EU, US");
        harness.get_by_label("weight (kg): 1.2");
        harness.get_by_label("Volume=12.5");
        harness.get_by_label("Bolt M6").click();
        harness.run();
        assert!(
            harness
                .state()
                .intents
                .contains(&DetailIntent::OpenFile(FileUid::from_reply(CHILD)))
        );
        assert!(
            harness.state().commands.contains(&Command::LoadImage(
                ImageRequest::large_image("http://127.0.0.1:9/l.png")
                    .of_record(FileUid::from_reply(UID))
            ))
        );
    }

    #[test]
    fn the_drawing_data_opens_by_button_and_by_ctrl_d() {
        let mut harness = harness(ready_view());
        harness.run();
        harness.get_by_label("Drawing data (PMI)").click();
        harness.run();
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::D);
        harness.run();
        let opened = harness
            .state()
            .intents
            .iter()
            .filter(|intent| **intent == DetailIntent::ShowPmi(FileUid::from_reply(UID)))
            .count();
        assert_eq!(opened, 2);
    }

    #[test]
    fn the_pdf_link_opens_in_the_browser() {
        let mut harness = harness(ready_view());
        harness.run();
        harness.get_by_label("Open the PDF in the browser").click();
        harness.step();
        let opened: Vec<&egui::OpenUrl> = harness
            .output()
            .platform_output
            .commands
            .iter()
            .filter_map(|command| match command {
                egui::OutputCommand::OpenUrl(open) => Some(open),
                _ => None,
            })
            .collect();
        assert_eq!(opened.len(), 1);
        assert_eq!(opened[0].url, "http://127.0.0.1:9/viewer?file=1");
    }

    #[test]
    fn the_raw_record_keeps_fields_the_spec_leaves_open() {
        let mut harness = harness(ready_view());
        harness.run();
        harness.get_by_label("Raw record (JSON)").click();
        harness.run();
        harness.get_by_label_contains("\"ShapeletCount\": 7");
    }

    #[test]
    fn delete_asks_first_and_a_403_says_why() {
        let mut harness = harness(ready_view());
        harness.run();
        harness.get_by_label("Delete file…").click();
        harness.run();
        assert!(
            !harness
                .state()
                .commands
                .iter()
                .any(|command| matches!(command, Command::DeleteFile(_)))
        );
        harness.get_by_label("Keep the file").click();
        harness.run();
        assert_eq!(harness.state().view.delete_state(), &DeleteState::Idle);

        harness.get_by_label("Delete file…").click();
        harness.run();
        harness.get_by_label("Delete").click();
        harness.run_steps(2);
        assert!(
            harness
                .state()
                .commands
                .contains(&Command::DeleteFile(FileUid::from_reply(UID)))
        );
        harness
            .state_mut()
            .view
            .set_delete_result(Err(&ApiError::from_status(403, "false")));
        harness.run();
        harness.get_by_label_contains("Only an admin may delete company files");
    }

    #[test]
    fn a_missing_file_is_explained_and_can_be_retried() {
        let mut view = DetailView::new();
        view.set_loading(FileUid::from_reply(UID));
        view.set_load_failed(FileUid::from_reply(UID), &ApiError::from_status(404, ""));
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label_contains("never uploaded or has been deleted");
        harness.get_by_label("Try again").click();
        // The spinner that follows keeps repainting: step instead of running to rest.
        harness.run_steps(2);
        assert_eq!(
            harness.state().commands,
            [Command::LoadRecord(FileUid::from_reply(UID))]
        );
        harness.get_by_label_contains("Loading file");
    }

    #[test]
    fn loading_another_file_drops_the_previous_record_at_once() {
        let mut view = ready_view();
        assert!(view.record().is_some());
        view.set_loading(FileUid::from_reply(CHILD));
        assert!(view.record().is_none());
        assert_eq!(
            view.status(),
            &LoadState::Loading(FileUid::from_reply(CHILD))
        );
    }

    #[test]
    fn zoom_buttons_change_the_scene() {
        let rect = Rect::from_min_size(egui::pos2(0.0, 0.0), Vec2::new(100.0, 50.0));
        let zoomed_in = zoomed(rect, 0.8);
        assert_eq!(zoomed_in.center(), rect.center());
        assert_eq!(zoomed_in.size(), Vec2::new(80.0, 40.0));
        assert_eq!(zoomed(Rect::ZERO, 0.8), Rect::ZERO);
    }

    #[test]
    fn a_loaded_image_is_shown_in_the_scene_and_fit_resets_it() {
        let mut harness = harness(ready_view());
        harness.run();
        let texture = harness.ctx.load_texture(
            "large",
            egui::ColorImage::filled([64, 32], egui::Color32::RED),
            egui::TextureOptions::LINEAR,
        );
        harness.state_mut().textures.insert(
            partlens_tasks::thumbnails::large_image_key("http://127.0.0.1:9/l.png"),
            texture,
        );
        harness.run();
        // The scene fitted itself to the image.
        assert_ne!(harness.state().view.scene_rect, Rect::ZERO);
        harness.get_by_label("Zoom in").click();
        harness.run();
        harness.get_by_label("Fit").click();
        harness.step();
        // Fit empties the rectangle, and the next frame fits the image again.
        harness.run();
        assert_ne!(harness.state().view.scene_rect, Rect::ZERO);
    }
}
