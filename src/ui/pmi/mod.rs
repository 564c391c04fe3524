//! The PMI viewer of one file ("Drawing data (PMI)"): the drawing's pages with the extracted PMI boxes
//! drawn over them, the items list, the free text, and the extracted attributes with the feedback
//! form. One concern a file: [`canvas`] (page, boxes, zoom, legend), [`items`] (the list and its
//! filter), [`feedback`] (the form, its drafts and what it sends).
//!
//! The view sends what the task layer does (reload, the page picture, the feedback) as `Command`s
//! and returns [`PmiIntent`]s for where it leads; the Search place hands it the answers (`set_data`,
//! `set_failed`, the feedback's outcome).

pub mod canvas;
pub mod feedback;
pub mod items;
pub mod marks;

use egui::Vec2;

use self::canvas::{CanvasInput, PageZoom, legend, page_canvas_ui, page_size};
use self::feedback::{FeedbackDrafts, FeedbackForm};
use self::items::{ListInput, filtered_items, items_list_ui, review_count, step_selection};
use super::app_command::CommandQueue;
use super::load_state::LoadState;
use super::picture::{Picture, picture};
use super::texture_cache::TextureCache;
use partlens_api::{ApiError, FileUid, PmiData, PmiPage};
use partlens_tasks::Command;
use partlens_tasks::thumbnails::ImageRequest;
use partlens_tasks::wording::{Attempt, explain};

/// Height of the page canvas and the items list, in points.
const CANVAS_HEIGHT: f32 = 430.0;

/// Where the PMI viewer leads; the Search place goes there. Work for the task layer (reload, the page
/// picture, the feedback) goes straight to it as a `Command`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PmiIntent {
    /// Go back to the file's record.
    Back,
}

/// The file whose PMI is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PmiFile {
    uid: FileUid,
    title: String,
    /// The record's large image (or thumbnail): the picture of the first page. Empty: none.
    image_url: String,
}

/// The PMI viewer's state.
#[derive(Debug)]
pub struct PmiView {
    status: LoadState<PmiData>,
    file: Option<PmiFile>,
    page: usize,
    /// The page number (PMIData's `page`) to show once the PMI is in (a search result found on
    /// it); `None`: the first.
    wanted_page: Option<u32>,
    selected: Option<usize>,
    reveal_box: bool,
    reveal_row: bool,
    filter: String,
    /// List only the items read by OCR that are to be reviewed.
    review_only: bool,
    show_boxes: bool,
    zoom: PageZoom,
    feedback: FeedbackForm,
}

impl Default for PmiView {
    fn default() -> Self {
        Self::new(FeedbackDrafts::default())
    }
}

impl PmiView {
    /// An empty viewer with the feedback drafts the app restored from its storage.
    pub fn new(drafts: FeedbackDrafts) -> Self {
        Self {
            status: LoadState::Empty,
            file: None,
            page: 0,
            wanted_page: None,
            selected: None,
            reveal_box: false,
            reveal_row: false,
            filter: String::new(),
            review_only: false,
            show_boxes: true,
            zoom: PageZoom::default(),
            feedback: FeedbackForm::new(drafts),
        }
    }

    /// Starts showing the PMI of `uid` (`title` names it; `image_url` is the record's large image,
    /// the picture of the first page, empty when it has none). The previous file's PMI goes at once.
    pub fn open(&mut self, uid: FileUid, title: impl Into<String>, image_url: impl Into<String>) {
        self.file = Some(PmiFile {
            uid: uid.clone(),
            title: title.into(),
            image_url: image_url.into().trim().to_owned(),
        });
        self.status = LoadState::Loading(uid);
        self.page = 0;
        self.wanted_page = None;
        self.selected = None;
        self.reveal_box = false;
        self.reveal_row = false;
        self.filter.clear();
        self.review_only = false;
        self.zoom = PageZoom::default();
    }

    /// Shows page `number` (PMIData's `page`, from 1) once the PMI of the file just opened is in:
    /// the page a search found the drawing on. A number the file does not have shows the first.
    pub fn open_on_page(&mut self, number: u32) {
        self.wanted_page = Some(number);
    }

    /// True when `uid` is the file shown or being loaded.
    pub fn is_showing(&self, uid: &FileUid) -> bool {
        self.file
            .as_ref()
            .is_some_and(|file| file.uid.canonical() == uid.canonical())
    }

    /// Shows the PMI the service sent for `uid` (ignored when another file is shown now).
    pub fn set_data(&mut self, uid: &FileUid, data: PmiData) {
        if !self.is_showing(uid) {
            return;
        }
        self.feedback.open(uid, &data.extracted_attributes);
        if let Some(number) = self.wanted_page.take() {
            self.page = data
                .pages
                .iter()
                .position(|page| page.page == i64::from(number))
                .unwrap_or(0);
        }
        self.page = self.page.min(data.pages.len().saturating_sub(1));
        self.status = LoadState::Ready(data);
    }

    /// Shows why the PMI of `uid` could not be loaded.
    pub fn set_failed(&mut self, uid: &FileUid, error: &ApiError) {
        if !self.is_showing(uid) {
            return;
        }
        self.status = LoadState::Failed {
            uid: uid.clone(),
            message: explain(error, Attempt::LoadPmi),
        };
    }

    /// Where loading is.
    pub fn status(&self) -> &LoadState<PmiData> {
        &self.status
    }

    /// The PMI shown, if any.
    pub fn data(&self) -> Option<&PmiData> {
        self.status.ready()
    }

    /// The index of the page shown.
    pub fn page(&self) -> usize {
        self.page
    }

    /// The selected item of the page shown.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// Selects an item of the page shown (as a click on its row does: its box is brought into view).
    pub fn select(&mut self, index: Option<usize>) {
        self.selected = index;
        self.reveal_box = index.is_some();
    }

    /// The feedback form.
    pub fn feedback(&self) -> &FeedbackForm {
        &self.feedback
    }

    /// The feedback form, to hand it the outcome of a send.
    pub fn feedback_mut(&mut self) -> &mut FeedbackForm {
        &mut self.feedback
    }

    /// The feedback drafts to persist.
    pub fn feedback_drafts(&self) -> &FeedbackDrafts {
        self.feedback.drafts()
    }

    /// Draws the viewer and returns where the user asked to go.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<PmiIntent> {
        let mut intents = Vec::new();
        ui.horizontal(|ui| {
            if ui.button("Back to the file").clicked() {
                intents.push(PmiIntent::Back);
            }
            if let Some(file) = &self.file {
                ui.heading(format!("Drawing data (PMI) of {}", file.title));
            }
        });
        ui.separator();
        // Taken out while drawing (the data is read while the rest of the view changes), put back
        // after.
        let status = std::mem::take(&mut self.status);
        match &status {
            LoadState::Empty => {
                ui.label(
                    "Open a file and choose \"Drawing data (PMI)\" to see what was extracted.",
                );
            }
            LoadState::Loading(_) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Loading the drawing data…");
                });
            }
            LoadState::Failed { uid, message } => {
                ui.colored_label(ui.visuals().error_fg_color, message);
                if ui.button("Try again").clicked() {
                    self.status = LoadState::Loading(uid.clone());
                    commands.backend(Command::LoadPmi(uid.clone()));
                    return intents;
                }
            }
            LoadState::Ready(data) => {
                egui::ScrollArea::vertical()
                    .id_salt("pmi view")
                    .auto_shrink([false, false])
                    .show(ui, |ui| self.ready_ui(ui, data, textures, commands));
            }
        }
        self.status = status;
        intents
    }

    fn ready_ui(
        &mut self,
        ui: &mut egui::Ui,
        data: &PmiData,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) {
        if data.pages.is_empty() {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.strong("No PMI was extracted from this file");
                ui.label(
                    "The service found no drawing items (dimensions, notes, title-block fields) \
                     with their place on a page. PMI comes from drawings (DXF, PDF); images and 3D \
                     models have none. The free text and attributes it extracted, if any, are \
                     below.",
                );
            });
        } else {
            self.pages_ui(ui, data, textures, commands);
        }
        ui.add_space(10.0);
        ui.columns(2, |columns| {
            free_text_ui(&mut columns[0], &data.unstructured_text);
            let ui = &mut columns[1];
            ui.heading("Extracted attributes");
            if let Some(request) = self.feedback.ui(ui) {
                commands.backend(Command::SendFeedback(request));
            }
        });
    }

    /// The page shown: its toolbar, the keys that step through its items, its legend, and the page
    /// canvas beside the items list.
    fn pages_ui(
        &mut self,
        ui: &mut egui::Ui,
        data: &PmiData,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) {
        self.page = self.page.min(data.pages.len() - 1);
        self.page_toolbar_ui(ui, data);
        let page = &data.pages[self.page];
        self.step_with_keys(ui, page);
        legend_ui(ui, page);
        let number = u32::try_from(page.page)
            .ok()
            .filter(|number| *number > 0)
            .unwrap_or_else(|| u32::try_from(self.page + 1).unwrap_or(u32::MAX));
        let (picture, picture_note) = self.page_picture(number, textures, commands);
        let size = page_size(page, picture.map(|picture| picture.size));
        self.canvas_and_list_ui(ui, page, size, picture, picture_note);
    }

    /// The page chooser (several pages), the boxes switch and the zoom buttons.
    fn page_toolbar_ui(&mut self, ui: &mut egui::Ui, data: &PmiData) {
        ui.horizontal_wrapped(|ui| {
            if data.pages.len() > 1 {
                let label = ui.label("Page");
                let page_number = |index: usize| {
                    let number = data.pages[index].page;
                    if number > 0 {
                        format!("Page {number}")
                    } else {
                        format!("Page {}", index + 1)
                    }
                };
                let before = self.page;
                egui::ComboBox::from_id_salt("pmi page")
                    .selected_text(page_number(self.page))
                    .show_ui(ui, |ui| {
                        for index in 0..data.pages.len() {
                            ui.selectable_value(&mut self.page, index, page_number(index));
                        }
                    })
                    .response
                    .labelled_by(label.id);
                if self.page != before {
                    self.selected = None;
                    self.zoom = PageZoom::default();
                }
                ui.separator();
            }
            ui.checkbox(&mut self.show_boxes, "Show boxes");
            if ui.button("Zoom in").clicked() {
                self.zoom.zoom = (self.zoom.zoom * 1.25).min(*canvas::ZOOM_RANGE.end());
            }
            if ui.button("Zoom out").clicked() {
                self.zoom.zoom = (self.zoom.zoom / 1.25).max(*canvas::ZOOM_RANGE.start());
            }
            if ui.button("Fit").clicked() {
                self.zoom = PageZoom::default();
            }
            ui.weak("Drag to pan, Ctrl + scroll to zoom, click a box or press Up / Down to select an item");
        });
    }

    /// Up and down step through the listed items while no text field has the keyboard.
    fn step_with_keys(&mut self, ui: &egui::Ui, page: &PmiPage) {
        if ui.egui_wants_keyboard_input() {
            return;
        }
        let (down, up) = ui.input_mut(|input| {
            (
                input.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
                input.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
            )
        });
        if down || up {
            let shown = filtered_items(&page.items, &self.filter, self.review_only);
            let step = if down { 1 } else { -1 };
            self.select(step_selection(&shown, self.selected, step));
            self.reveal_row = true;
        }
    }

    /// The picture of page `number` (from 1): the record's large image for the first page, the
    /// large image of the record of page N (`lgFileNumber=N`) for a later one, with a note while it
    /// loads or when it failed (a page without a picture is drawn blank).
    fn page_picture(
        &self,
        number: u32,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> (Option<egui::load::SizedTexture>, Option<String>) {
        let request = match self.file.as_ref() {
            Some(file) if self.page == 0 && !file.image_url.is_empty() => {
                Some(ImageRequest::large_image(&file.image_url).of_record(file.uid.clone()))
            }
            Some(file) if self.page > 0 => {
                Some(ImageRequest::page_of_file(file.uid.clone(), number))
            }
            _ => None,
        };
        let Some(request) = request else {
            return (None, None);
        };
        match picture(textures, request, commands) {
            Picture::Ready(texture) => (Some(egui::load::SizedTexture::from_handle(texture)), None),
            Picture::Loading => (None, Some("Loading the page picture…".to_owned())),
            Picture::Failed(reason) => (
                None,
                Some(format!("The page picture could not be shown: {reason}")),
            ),
        }
    }

    /// The page canvas and the items list side by side; a click on a box selects its row and a
    /// click on a row its box.
    fn canvas_and_list_ui(
        &mut self,
        ui: &mut egui::Ui,
        page: &PmiPage,
        size: Vec2,
        picture: Option<egui::load::SizedTexture>,
        picture_note: Option<String>,
    ) {
        let total = ui.available_width();
        let list_width = (total * 0.32).clamp(200.0, 380.0);
        let spacing = ui.spacing().item_spacing.x;
        let canvas_width = (total - list_width - spacing).max(200.0);
        ui.horizontal_top(|ui| {
            let clicked_box = ui
                .allocate_ui(Vec2::new(canvas_width, CANVAS_HEIGHT), |ui| {
                    page_canvas_ui(
                        ui,
                        &CanvasInput {
                            items: &page.items,
                            page_size: size,
                            picture,
                            picture_note,
                            show_boxes: self.show_boxes,
                            selected: self.selected,
                            reveal_selected: self.reveal_box,
                            height: CANVAS_HEIGHT,
                        },
                        &mut self.zoom,
                    )
                })
                .inner
                .clicked;
            self.reveal_box = false;
            let clicked_row = ui
                .allocate_ui(Vec2::new(list_width, CANVAS_HEIGHT), |ui| {
                    ui.set_max_width(list_width);
                    ui.vertical(|ui| {
                        items_list_ui(
                            ui,
                            &ListInput {
                                items: &page.items,
                                selected: self.selected,
                                scroll_to_selected: self.reveal_row,
                                height: CANVAS_HEIGHT - 80.0,
                            },
                            &mut self.filter,
                            &mut self.review_only,
                        )
                    })
                    .inner
                })
                .inner;
            self.reveal_row = false;
            if let Some(index) = clicked_box {
                self.selected = Some(index);
                self.reveal_row = true;
                ui.ctx().request_repaint();
            }
            if let Some(index) = clicked_row {
                self.select(Some(index));
                ui.ctx().request_repaint();
            }
        });
    }
}

/// The colour of each type of item on the page with its count, and how many are for review.
fn legend_ui(ui: &mut egui::Ui, page: &PmiPage) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Legend:");
        for entry in legend(&page.items) {
            let (swatch, _) = ui.allocate_exact_size(Vec2::splat(12.0), egui::Sense::hover());
            ui.painter().rect_filled(swatch, 2.0, entry.color);
            ui.label(format!("{} ({})", entry.name, entry.count));
        }
        let review = review_count(&page.items);
        if review > 0 {
            let (badge, _) = ui.allocate_exact_size(Vec2::splat(12.0), egui::Sense::hover());
            marks::review_badge(ui.painter(), badge.center());
            ui.colored_label(marks::REVIEW_COLOR, format!("For review ({review})"));
        }
        if page.items.is_empty() {
            ui.weak("no items on this page");
        }
    });
}

/// The free text: selectable, copyable, scrollable.
fn free_text_ui(ui: &mut egui::Ui, text: &str) {
    ui.horizontal(|ui| {
        ui.heading("Free text");
        if !text.trim().is_empty() && ui.button("Copy the free text").clicked() {
            ui.ctx().copy_text(text.to_owned());
        }
    });
    if text.trim().is_empty() {
        ui.weak("No free text was extracted from this file.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("pmi free text")
        .max_height(240.0)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            ui.add(egui::Label::new(egui::RichText::new(text).monospace()).selectable(true));
        });
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;
    use partlens_api::{PmiItem, PmiPage};

    const UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

    fn data(pages: usize) -> PmiData {
        let page = |number: i64| PmiPage {
            page: number,
            image_size: [1700, 1100],
            items: vec![
                PmiItem {
                    box_in_page: [100, 100, 300, 160],
                    type_id: 2,
                    text: format!("Ø40 H7 (page {number})"),
                    confidence: None,
                    dimension: None,
                },
                PmiItem {
                    box_in_page: [900, 800, 1600, 1000],
                    type_id: 3,
                    text: "PART NO FL-100".into(),
                    confidence: None,
                    dimension: None,
                },
            ],
        };
        PmiData {
            pages: (1..=pages as i64).map(page).collect(),
            unstructured_text: "BREAK ALL EDGES\nPART NO FL-100".into(),
            extracted_attributes: vec!["part_number=FL-100".into(), "material=S235".into()],
        }
    }

    type Fixture = view_harness::Fixture<PmiView, PmiIntent>;

    fn harness(view: PmiView) -> Harness<'static, Fixture> {
        view_harness::harness(view, [1100.0, 900.0], 1 << 26, PmiView::ui)
    }

    fn ready(pages: usize) -> PmiView {
        let uid = FileUid::from_reply(UID);
        let mut view = PmiView::default();
        view.open(uid.clone(), "flange.dxf", "http://127.0.0.1:9/l.png");
        view.set_data(&uid, data(pages));
        view
    }

    #[test]
    fn boxes_and_rows_select_each_other() {
        let mut harness = harness(ready(1));
        harness.run();
        harness.get_by_label("Dimension: Ø40 H7 (page 1)");
        harness.get_by_label("Dimension (1)");
        harness.get_by_label("Title block (1)");
        // Clicking a box selects its item (its row is highlighted).
        harness
            .get_by_label("Title block box: PART NO FL-100")
            .click();
        harness.run();
        assert_eq!(harness.state().view.selected(), Some(1));
        // Clicking a row selects its item (its box is highlighted and brought into view).
        harness.get_by_label("Dimension: Ø40 H7 (page 1)").click();
        harness.run();
        assert_eq!(harness.state().view.selected(), Some(0));
        // The arrow keys step through the items.
        harness.key_press(egui::Key::ArrowDown);
        harness.run();
        assert_eq!(harness.state().view.selected(), Some(1));
        // The page picture is asked for, as the record's large image.
        assert!(
            harness.state().commands.contains(&Command::LoadImage(
                ImageRequest::large_image("http://127.0.0.1:9/l.png")
                    .of_record(FileUid::from_reply(UID))
            ))
        );
        harness.check_accessibility();
    }

    #[test]
    fn the_filter_narrows_the_items_and_boxes_can_be_hidden() {
        let mut harness = harness(ready(1));
        harness.run();
        harness.get_by_label("Filter items").focus();
        harness.run();
        harness.get_by_label("Filter items").type_text("part no");
        harness.run();
        assert!(
            harness
                .query_by_label("Dimension: Ø40 H7 (page 1)")
                .is_none()
        );
        harness.get_by_label("Title block: PART NO FL-100");
        harness.get_by_label("1 of 2 items");
        harness.get_by_label("Show boxes").click();
        harness.run();
        assert!(
            harness
                .query_by_label("Title block box: PART NO FL-100")
                .is_none()
        );
    }

    #[test]
    fn later_pages_are_chosen_with_the_page_selector() {
        let mut harness = harness(ready(2));
        harness.run();
        harness.get_by_label("Page").click();
        harness.run();
        harness.get_by_label("Page 2").click();
        harness.run();
        assert_eq!(harness.state().view.page(), 1);
        harness.get_by_label("Dimension: Ø40 H7 (page 2)");
        // Page 2's picture is the large image of the record of page 2 (lgFileNumber=2).
        let page_two = ImageRequest::page_of_file(FileUid::from_reply(UID), 2);
        assert!(
            harness
                .state()
                .commands
                .contains(&Command::LoadImage(page_two))
        );
    }

    #[test]
    fn a_drawing_found_on_page_three_opens_on_page_three() {
        let uid = FileUid::from_reply(UID);
        let mut view = PmiView::default();
        view.open(uid.clone(), "three-pages.pdf", "http://127.0.0.1:9/l.png");
        view.open_on_page(3);
        view.set_data(&uid, data(3));
        assert_eq!(view.page(), 2);
        let mut harness = harness(view);
        harness.run_steps(2);
        harness.get_by_label("Dimension: Ø40 H7 (page 3)");
        let page_three = ImageRequest::page_of_file(uid.clone(), 3);
        assert!(
            harness
                .state()
                .commands
                .contains(&Command::LoadImage(page_three))
        );
        // Opened again without a page, the same file starts on page 1.
        let mut view = PmiView::default();
        view.open(uid.clone(), "three-pages.pdf", "");
        view.set_data(&uid, data(3));
        assert_eq!(view.page(), 0);
    }

    #[test]
    fn a_file_without_pmi_says_so_and_still_shows_text_and_attributes() {
        let uid = FileUid::from_reply(UID);
        let mut view = PmiView::default();
        view.open(uid.clone(), "gear.png", "");
        view.set_data(
            &uid,
            PmiData {
                pages: Vec::new(),
                unstructured_text: String::new(),
                extracted_attributes: vec!["width_px=128".into()],
            },
        );
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label("No PMI was extracted from this file");
        harness.get_by_label("No free text was extracted from this file.");
        harness.get_by_label("width_px=128");
        assert!(harness.query_by_label("Show boxes").is_none());
    }

    #[test]
    fn feedback_over_300_characters_is_refused_and_kept() {
        let mut harness = harness(ready(1));
        harness.run();
        harness.get_by_label("material=S235").click();
        harness.run();
        harness.get_by_label("Explanation").focus();
        harness.run();
        harness
            .get_by_label("Explanation")
            .type_text(&"x".repeat(305));
        harness.run();
        harness.get_by_label("305/300");
        harness.get_by_label("Send feedback").click();
        harness.run();
        harness.get_by_label_contains("Shorten it by 5");
        assert_eq!(
            harness
                .state()
                .count_commands(|command| matches!(command, Command::SendFeedback(_))),
            0
        );
        let draft = harness.state().view.feedback().draft().unwrap();
        assert_eq!(draft.explanation.len(), 305);
        assert!(draft.reviews[1].selected);
    }

    #[test]
    fn a_missing_file_is_explained_and_can_be_retried() {
        let uid = FileUid::from_reply(UID);
        let mut view = PmiView::default();
        view.open(uid.clone(), "gone.dxf", "");
        view.set_failed(&uid, &ApiError::from_status(404, ""));
        // An answer for another file changes nothing.
        view.set_data(
            &FileUid::from_reply("9a1b2c3d-4f89-41d3-9a0c-0305e82c3302"),
            data(1),
        );
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label_contains("never uploaded or has been deleted");
        harness.get_by_label("Try again").click();
        // The spinner that follows keeps repainting: step instead of running to rest.
        harness.run_steps(2);
        assert_eq!(harness.state().commands, [Command::LoadPmi(uid)]);
        harness.get_by_label("Loading the drawing data…");
    }
}
