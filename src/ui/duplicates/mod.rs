//! The Duplicates place: the company's files that are the same part (the same shape at the same
//! size, in any format or under any name), in groups with their score, each file a thumbnail with
//! its name, format and size ([`groups`]). For part standardisation and cleaning a library.
//!
//! The groups come from partlens's own service (`GET /api/Duplicates`) through the task layer
//! (`Command::FindDuplicates`), which also loads each file's record for its thumbnail. The service
//! compares every file with the others, which takes a while: the place shows what is happening and
//! can stop waiting. A lower or higher minimum score asks again. A group's *Compare* and a file's
//! card lead to the Search place's compare page and detail ([`DuplicatesIntent`]), whose back
//! buttons lead here again.

pub mod groups;

use egui::{Align, Layout, Sense, UiBuilder, Vec2};

use self::groups::{FileCard, GroupCard};
use super::app_command::CommandQueue;
use super::keyboard::{ListCursor, ListKey};
use super::results::{ResultRow, state_message_ui, thumbnail_ui};
use super::texture_cache::TextureCache;
use partlens_api::{ApiError, FileUid};
use partlens_tasks::{Command, Event};

/// The service's default minimum score (`partlens-service`'s `DEFAULT_MIN_SCORE`): where the
/// control starts before the first answer says what the service applied.
pub const SERVICE_DEFAULT_MIN_SCORE: f64 = 0.885;

/// The lowest and highest minimum score the control offers.
const MIN_SCORE_RANGE: std::ops::RangeInclusive<f64> = 0.5..=1.0;

/// Width of a file's card, in points.
const FILE_CARD_WIDTH: f32 = 176.0;

/// Height of a file's card, in points.
const FILE_CARD_HEIGHT: f32 = 216.0;

/// Space between groups and between a group's cards, in points.
const GROUP_SPACING: f32 = 10.0;

/// Space inside a group's frame, in points.
const GROUP_MARGIN: f32 = 10.0;

/// Height of the thumbnail of a file's card.
const FILE_THUMBNAIL_HEIGHT: f32 = 100.0;

/// Where the duplicates are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DuplicatesStatus {
    /// Nothing asked yet (asked when the place is shown while logged in).
    #[default]
    NotLoaded,
    /// Asked; the sentence says what is happening.
    Loading(String),
    /// The service could not answer; the sentence says why and what to do.
    Failed(String),
    /// The groups are in (possibly none).
    Ready,
}

/// What the user asked of the place that leads to the Search place.
#[derive(Clone, Debug, PartialEq)]
pub enum DuplicatesIntent {
    /// Open a file's detail.
    OpenDetail(FileUid),
    /// Compare a group's files.
    Compare(Vec<ResultRow>),
    /// Search by a file itself (by its UID: a model as a model).
    MoreLikeThis {
        /// The file.
        uid: FileUid,
        /// Its stored file name.
        file_name: String,
    },
}

/// The Duplicates place's state.
#[derive(Debug)]
pub struct DuplicatesView {
    /// The id of the last request sent.
    last_request: u64,
    /// The request being waited for.
    running: Option<u64>,
    status: DuplicatesStatus,
    groups: Vec<GroupCard>,
    files_compared: u64,
    /// The minimum score the last answer was found with.
    applied_min_score: f64,
    /// The minimum score as the control holds it.
    min_score: f64,
    /// True once the user moved the control: later requests send it (else the service's default).
    min_score_chosen: bool,
    /// The keyboard's cursor over the files of every group, in order.
    cursor: ListCursor,
}

impl Default for DuplicatesView {
    fn default() -> Self {
        Self {
            last_request: 0,
            running: None,
            status: DuplicatesStatus::NotLoaded,
            groups: Vec::new(),
            files_compared: 0,
            applied_min_score: SERVICE_DEFAULT_MIN_SCORE,
            min_score: SERVICE_DEFAULT_MIN_SCORE,
            cursor: ListCursor::default(),
            min_score_chosen: false,
        }
    }
}

impl DuplicatesView {
    /// The status.
    pub fn status(&self) -> &DuplicatesStatus {
        &self.status
    }

    /// The groups of the last answer.
    pub fn groups(&self) -> &[GroupCard] {
        &self.groups
    }

    /// The minimum score the control holds.
    pub fn min_score(&self) -> f64 {
        self.min_score
    }

    /// How many requests the place has sent.
    pub fn requests_sent(&self) -> u64 {
        self.last_request
    }

    /// Forgets the groups: they are asked for again when the place is next shown (after a login,
    /// or when files were added or deleted).
    pub fn invalidate(&mut self) {
        if self.running.is_none() {
            self.status = DuplicatesStatus::NotLoaded;
        }
    }

    /// Takes a deleted file out of its group; a group left with one file is no longer a group of
    /// duplicates and goes (cleaning a library is deleting the copies it shows).
    pub fn remove_file(&mut self, uid: &FileUid) {
        let canonical = uid.canonical();
        for group in &mut self.groups {
            group
                .files
                .retain(|file| file.row.uid.canonical() != canonical);
        }
        self.groups.retain(|group| group.files.len() > 1);
    }

    /// Asks the service for the duplicates anew with the minimum score of the control (the
    /// service's own until the user moves it); a request under way is dropped.
    pub fn reload(&mut self, commands: &mut CommandQueue) {
        if let Some(running) = self.running.take() {
            commands.backend(Command::CancelDuplicates(running));
        }
        self.last_request += 1;
        self.running = Some(self.last_request);
        self.status = DuplicatesStatus::Loading("Asking the service…".to_owned());
        commands.backend(Command::FindDuplicates {
            request: self.last_request,
            min_score: self.min_score_chosen.then_some(self.min_score),
        });
    }

    /// Stops waiting for the request under way.
    pub fn cancel(&mut self, commands: &mut CommandQueue) {
        if let Some(running) = self.running.take() {
            commands.backend(Command::CancelDuplicates(running));
            self.status = DuplicatesStatus::Failed(
                "You stopped the search for duplicates. The service finishes its comparison on \
                 its own: a new one may have to wait for it."
                    .to_owned(),
            );
        }
    }

    /// Takes the answers to the request under way (and drops those to older ones); returns every
    /// other event.
    pub fn handle_event(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::DuplicatesProgress { request, detail } => {
                if self.running == Some(request) {
                    self.status = DuplicatesStatus::Loading(detail);
                }
            }
            Event::DuplicatesFound { request, parts } => {
                if self.running == Some(request) {
                    self.running = None;
                    self.groups = parts.groups.iter().map(GroupCard::from_group).collect();
                    self.files_compared = parts.files_compared;
                    self.applied_min_score = parts.min_score;
                    self.min_score = parts.min_score;
                    self.status = DuplicatesStatus::Ready;
                }
            }
            Event::DuplicatesFailed { request, error } => {
                if self.running == Some(request) {
                    self.running = None;
                    self.status = DuplicatesStatus::Failed(failure_sentence(&error));
                }
            }
            other => return Some(other),
        }
        None
    }

    /// Draws the place. `logged_in`: the duplicates are asked for only with a session.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        logged_in: bool,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<DuplicatesIntent> {
        let mut intents = Vec::new();
        if logged_in && self.status == DuplicatesStatus::NotLoaded {
            self.reload(commands);
        }
        ui.horizontal(|ui| {
            ui.heading("Duplicates");
            ui.weak(
                "Files of your company that are the same part, in any format or under any name.",
            );
        });
        self.toolbar_ui(ui, commands);
        ui.separator();
        match self.status.clone() {
            DuplicatesStatus::NotLoaded => state_message_ui(
                ui,
                "Not logged in.",
                "Log in to look for duplicate parts in your company's files.",
                None,
            ),
            DuplicatesStatus::Loading(detail) => {
                state_message_ui(ui, "Looking for duplicate parts…", &detail, Some(()));
                ui.vertical_centered(|ui| {
                    if ui.button("Stop").clicked() {
                        self.cancel(commands);
                    }
                });
            }
            DuplicatesStatus::Failed(sentence) => {
                state_message_ui(ui, "Duplicates could not be found.", &sentence, None);
                ui.vertical_centered(|ui| {
                    if ui.button("Try again").clicked() {
                        self.reload(commands);
                    }
                });
            }
            DuplicatesStatus::Ready if self.groups.is_empty() => self.empty_ui(ui, commands),
            DuplicatesStatus::Ready => {
                let files: Vec<&FileCard> =
                    self.groups.iter().flat_map(|group| &group.files).collect();
                if let Some(ListKey::Open(index)) = self.cursor.keys(ui, files.len(), 1)
                    && let Some(file) = files.get(index)
                {
                    intents.push(DuplicatesIntent::OpenDetail(file.row.uid.clone()));
                }
                let cursor = self.cursor;
                egui::ScrollArea::vertical()
                    .id_salt("duplicate groups")
                    .auto_shrink(false)
                    .show(ui, |ui| {
                        // Groups side by side as they fit (most are two or three files); egui
                        // cannot wrap frames, whose width it knows only once drawn, so the rows
                        // are laid out here from the groups' widths.
                        ui.spacing_mut().item_spacing = Vec2::splat(GROUP_SPACING);
                        let full_width = ui.available_width();
                        let widths: Vec<f32> = self
                            .groups
                            .iter()
                            .map(|group| group_width(group.files.len(), full_width))
                            .collect();
                        // Where each group's files start in the cursor's order.
                        let firsts: Vec<usize> = self
                            .groups
                            .iter()
                            .scan(0, |first, group| {
                                let start = *first;
                                *first += group.files.len();
                                Some(start)
                            })
                            .collect();
                        for row in group_rows(&widths, full_width) {
                            ui.with_layout(Layout::left_to_right(Align::Min), |ui| {
                                for index in row {
                                    let group = GroupAt {
                                        index,
                                        card: &self.groups[index],
                                        width: widths[index],
                                        first_file: firsts[index],
                                        cursor,
                                    };
                                    group_ui(ui, &group, textures, commands, &mut intents);
                                }
                            });
                        }
                    });
            }
        }
        intents
    }

    /// The minimum score, *Find again*, and what the last answer covered.
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.horizontal(|ui| {
            let label = ui.label("Minimum score");
            let slider = ui
                .add(
                    egui::Slider::new(&mut self.min_score, MIN_SCORE_RANGE)
                        .fixed_decimals(3)
                        .step_by(0.005),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "The lowest score of two files taken for the same part. Lower finds near \
                     matches too (other revisions, mirrored parts); higher keeps only the surest.",
                );
            if slider.changed() {
                self.min_score_chosen = true;
            }
            let changed = (self.min_score - self.applied_min_score).abs() > 1e-9;
            // A drag asks again when it ends, not at every step.
            if slider.drag_stopped() || (slider.changed() && !slider.dragged()) {
                self.reload(commands);
            }
            if ui
                .add_enabled(
                    (self.min_score - SERVICE_DEFAULT_MIN_SCORE).abs() > 1e-9,
                    egui::Button::new("Default"),
                )
                .on_hover_text(format!(
                    "The service's own minimum score ({SERVICE_DEFAULT_MIN_SCORE})"
                ))
                .clicked()
            {
                self.min_score = SERVICE_DEFAULT_MIN_SCORE;
                self.min_score_chosen = false;
                self.reload(commands);
            }
            if ui
                .add_enabled(self.running.is_none(), egui::Button::new("Find again"))
                .on_hover_text("Compare the files again (after uploads or deletes)")
                .clicked()
            {
                self.reload(commands);
            }
            // An empty answer says what it means below, in full.
            if self.status == DuplicatesStatus::Ready && !self.groups.is_empty() {
                ui.separator();
                let groups = self.groups.len();
                let files: usize = self.groups.iter().map(|group| group.files.len()).sum();
                ui.strong(match groups {
                    1 => format!("1 group of {files} files"),
                    _ => format!("{groups} groups, {files} files"),
                });
                ui.weak(format!(
                    "of {} files compared at {:.3}",
                    self.files_compared, self.applied_min_score
                ));
                if changed {
                    ui.weak("(the score was changed)");
                }
            }
        });
    }

    /// No group: what that means, and what to do if duplicates were expected.
    fn empty_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        let sentence = if self.files_compared == 0 {
            "Your company has no indexed files to compare yet. Upload parts into the company \
             database (Upload, or drop them on the window) and look again once they are indexed."
                .to_owned()
        } else {
            format!(
                "None of the {} files compared is the same part as another at a score of {:.3} \
                 or more: the same shape at the same size, whatever the format or name. A lower \
                 minimum score also finds near matches.",
                self.files_compared, self.applied_min_score
            )
        };
        state_message_ui(
            ui,
            "No duplicate parts in this company's library.",
            &sentence,
            None,
        );
        ui.vertical_centered(|ui| {
            if self.files_compared == 0 && ui.button("Add files…").clicked() {
                commands.backend(Command::PickFiles);
            }
        });
    }
}

/// The width of a group of `files` files, its frame included, at most `full_width` (then its
/// cards go on more lines).
fn group_width(files: usize, full_width: f32) -> f32 {
    let files = files.max(1) as f32;
    let cards = files * FILE_CARD_WIDTH + (files - 1.0) * GROUP_SPACING;
    (cards + 2.0 * (GROUP_MARGIN + 1.0)).min(full_width)
}

/// The groups of each row: as many as fit `full_width` side by side, in order.
fn group_rows(widths: &[f32], full_width: f32) -> Vec<std::ops::Range<usize>> {
    let mut rows = Vec::new();
    let (mut start, mut used) = (0, 0.0);
    for (index, width) in widths.iter().enumerate() {
        let needed = if index == start {
            *width
        } else {
            used + GROUP_SPACING + width
        };
        if index > start && needed > full_width {
            rows.push(start..index);
            start = index;
            used = *width;
        } else {
            used = needed;
        }
    }
    if start < widths.len() {
        rows.push(start..widths.len());
    }
    rows
}

/// A group as it is drawn: its number, its card, its width, where its files start in the
/// cursor's order, and the cursor.
struct GroupAt<'a> {
    index: usize,
    card: &'a GroupCard,
    width: f32,
    first_file: usize,
    cursor: ListCursor,
}

/// One group, `width` wide: its score and file count with *Compare*, then its files' cards side
/// by side (on more lines when they do not fit).
fn group_ui(
    ui: &mut egui::Ui,
    at: &GroupAt<'_>,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
    intents: &mut Vec<DuplicatesIntent>,
) {
    let (index, group, width) = (at.index, at.card, at.width);
    egui::Frame::group(ui.style())
        .inner_margin(egui::Margin::same(GROUP_MARGIN as i8))
        .show(ui, |ui| {
            ui.set_width(width - 2.0 * (GROUP_MARGIN + 1.0));
            ui.vertical(|ui| {
                ui.horizontal(|ui| {
                    ui.strong(format!("Part {}", index + 1));
                    ui.label(format!("{} files", group.files.len()));
                    ui.weak(group.score_text())
                        .on_hover_text("The weakest score of the pairs that joined the group");
                    let compare = ui.button("Compare").on_hover_text(
                        "These files side by side, with their fields and attributes",
                    );
                    compare.widget_info(|| {
                        egui::WidgetInfo::labeled(
                            egui::Role::Button,
                            true,
                            format!("Compare part {}", index + 1),
                        )
                    });
                    if compare.clicked() {
                        intents.push(DuplicatesIntent::Compare(group.rows()));
                    }
                });
                ui.horizontal_wrapped(|ui| {
                    for (position, file) in group.files.iter().enumerate() {
                        let under_cursor = at.cursor.index == Some(at.first_file + position);
                        let reveal = under_cursor && at.cursor.reveal;
                        let card =
                            file_card_ui(ui, file, under_cursor, textures, commands, intents);
                        if reveal {
                            ui.scroll_to_rect(card, None);
                        }
                    }
                });
            });
        });
}

/// A file's card: thumbnail, name, format and size, *More like this*; a click opens its detail.
/// Framed when `under_cursor`. Returns where it is.
fn file_card_ui(
    ui: &mut egui::Ui,
    file: &FileCard,
    under_cursor: bool,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
    intents: &mut Vec<DuplicatesIntent>,
) -> egui::Rect {
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(FILE_CARD_WIDTH, FILE_CARD_HEIGHT), Sense::click());
    let name = file.row.name.clone();
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Button, true, format!("Open {name}"))
    });
    if response.clicked() {
        intents.push(DuplicatesIntent::OpenDetail(file.row.uid.clone()));
    }
    // Thumbnails are asked for only for the cards on screen.
    if !ui.is_rect_visible(rect) {
        return rect;
    }
    if under_cursor {
        crate::ui::keyboard::paint_cursor(ui, rect);
    }
    let visuals = ui.visuals();
    let stroke = if response.hovered() {
        visuals.widgets.hovered.bg_stroke
    } else {
        visuals.widgets.noninteractive.bg_stroke
    };
    ui.painter().rect(
        rect,
        6.0,
        visuals.faint_bg_color,
        stroke,
        egui::StrokeKind::Inside,
    );
    let inner = rect.shrink(8.0);
    let mut card = ui.new_child(
        UiBuilder::new()
            .max_rect(inner)
            .layout(Layout::top_down(Align::Min)),
    );
    let (thumbnail_rect, _) = card.allocate_exact_size(
        Vec2::new(inner.width(), FILE_THUMBNAIL_HEIGHT),
        Sense::hover(),
    );
    thumbnail_ui(&card, thumbnail_rect, &file.row, textures, commands);
    crate::ui::elide::file_name_label(&mut card, &file.row.name, egui::TextStyle::Body, true);
    // Format and size on lines of their own: a size of three extents fills a card's width.
    for line in [&file.format, &file.size] {
        card.add(
            egui::Label::new(egui::RichText::new(line.as_str()).weak())
                .truncate()
                .selectable(false),
        );
    }
    let more = card
        .add(egui::Button::new("More like this").small())
        .on_hover_text(crate::ui::results::more_like_this_hint(&file.row.file_name));
    more.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Button, true, format!("More like {name}"))
    });
    if more.clicked() {
        intents.push(DuplicatesIntent::MoreLikeThis {
            uid: file.row.uid.clone(),
            file_name: file.row.file_name.clone(),
        });
    }
    rect
}

/// What went wrong, and what to do next.
fn failure_sentence(error: &ApiError) -> String {
    match error {
        ApiError::NotFound { .. } => "This service does not offer duplicates: finding duplicate \
                                      parts is an extension of partlens's own service. Search by \
                                      a part's views to find its copies instead."
            .to_owned(),
        ApiError::BadRequest { status: 429, .. } => "The service is already looking for \
                                                     duplicates (for another user, or a search \
                                                     stopped here that it is still finishing). \
                                                     Try again in a minute."
            .to_owned(),
        ApiError::BadRequest { message, .. } => format!(
            "The service refused: {}. Change the minimum score or ask your admin.",
            partlens_tasks::wording::clause(message)
        ),
        ApiError::Network(detail) => format!(
            "The service could not be reached or took too long ({}). Check the address in \
             Settings, then try again.",
            partlens_tasks::wording::clause(detail)
        ),
        ApiError::Unauthorized => {
            "Your session has ended. Log in again; the duplicates are looked for after the login."
                .to_owned()
        }
        other => format!("The service failed ({other}). Try again in a moment."),
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;

    type Fixture = view_harness::Fixture<DuplicatesView, DuplicatesIntent>;

    fn draw(
        view: &mut DuplicatesView,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<DuplicatesIntent> {
        view.ui(ui, true, textures, commands)
    }

    fn harness() -> Harness<'static, Fixture> {
        view_harness::harness(DuplicatesView::default(), [1000.0, 700.0], 1 << 24, draw)
    }

    /// The duplicate requests sent so far, with their minimum scores.
    fn asked(harness: &Harness<'static, Fixture>) -> Vec<(u64, Option<f64>)> {
        harness
            .state()
            .commands
            .iter()
            .filter_map(|command| match command {
                Command::FindDuplicates { request, min_score } => Some((*request, *min_score)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn groups_go_side_by_side_as_they_fit_and_a_wide_one_has_its_own_row() {
        let two = group_width(2, 1000.0);
        assert_eq!(
            two,
            2.0 * FILE_CARD_WIDTH + GROUP_SPACING + 2.0 * (GROUP_MARGIN + 1.0)
        );
        assert_eq!(group_width(12, 1000.0), 1000.0);
        assert_eq!(group_rows(&[two, two, two], 1000.0), [0..2, 2..3]);
        assert_eq!(group_rows(&[two, 1000.0, two], 1000.0), [0..1, 1..2, 2..3]);
        assert!(group_rows(&[], 1000.0).is_empty());
    }

    #[test]
    fn stop_stops_waiting_and_a_deleted_copy_leaves_its_group() {
        use partlens_api::duplicates::DuplicateFile;
        use partlens_tasks::duplicates::{DuplicatePartFile, DuplicatePartGroup, DuplicateParts};
        let mut harness = harness();
        harness.run_steps(2);
        harness.get_by_label("Stop").click();
        harness.run();
        assert!(
            harness
                .state()
                .commands
                .contains(&Command::CancelDuplicates(1))
        );
        harness.get_by_label_contains("You stopped the search for duplicates");
        harness.get_by_label("Try again").click();
        harness.run_steps(2);
        let file = |number: usize, name: &str| DuplicatePartFile {
            file: DuplicateFile {
                uid: format!("00000000-0000-4000-8000-{number:012}"),
                file_name: name.to_owned(),
                ..DuplicateFile::default()
            },
            record: None,
        };
        let parts = DuplicateParts {
            min_score: 0.885,
            files_compared: 5,
            groups: vec![
                DuplicatePartGroup {
                    score: 0.99,
                    files: vec![file(1, "a.step"), file(2, "a.stl"), file(3, "a-copy.stl")],
                },
                DuplicatePartGroup {
                    score: 0.95,
                    files: vec![file(4, "b.step"), file(5, "b.stl")],
                },
            ],
        };
        harness
            .state_mut()
            .view
            .handle_event(Event::DuplicatesFound { request: 2, parts });
        harness.run();
        harness.get_by_label("2 groups, 5 files");
        let view = &mut harness.state_mut().view;
        view.remove_file(&FileUid::from_reply("00000000-0000-4000-8000-000000000003"));
        view.remove_file(&FileUid::from_reply("00000000-0000-4000-8000-000000000005"));
        assert_eq!(view.groups().len(), 1);
        assert_eq!(view.groups()[0].files.len(), 2);
        harness.run();
        harness.get_by_label("1 group of 2 files");
    }

    #[test]
    fn a_service_without_duplicates_says_so_and_a_late_answer_is_dropped() {
        let mut harness = harness();
        harness.run_steps(2);
        assert_eq!(asked(&harness), [(1, None)]);
        harness.get_by_label("Looking for duplicate parts…");
        harness
            .state_mut()
            .view
            .handle_event(Event::DuplicatesFailed {
                request: 1,
                error: ApiError::NotFound {
                    message: "no such endpoint".into(),
                },
            });
        harness.run();
        harness.get_by_label("Duplicates could not be found.");
        harness.get_by_label_contains("This service does not offer duplicates");
        harness.get_by_label("Try again").click();
        harness.run_steps(2);
        assert_eq!(asked(&harness), [(1, None), (2, None)]);
        let consumed = harness
            .state_mut()
            .view
            .handle_event(Event::DuplicatesFound {
                request: 1,
                parts: Default::default(),
            });
        assert!(consumed.is_none());
        assert!(matches!(
            harness.state().view.status(),
            DuplicatesStatus::Loading(_)
        ));
    }
}
