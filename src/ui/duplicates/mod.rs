//! The Duplicates place: the company's files that are the same part (the same shape at the same
//! size, in any format or under any name), in groups with their score, each file a thumbnail with
//! its name, format and size ([`groups`]). For part standardisation and cleaning a library.
//!
//! The groups come from partlens's own service (`GET /api/Duplicates`, which reads the pairs it
//! stored as files were indexed) through the task layer (`Command::FindDuplicates`), at once and
//! without their files' records; the place then asks for the records of the files on or near the
//! screen (`Command::LoadDuplicateRecords`, a few commands at a time), their cards showing a
//! placeholder until then. A 100,000-file library has thousands of groups: only the rows of groups
//! on screen are laid out, their places computed from the groups' sizes ([`layout`]), and the
//! keyboard's cursor brings a card far below on screen. On a large library the answer may take a
//! moment: the place says so and can stop waiting. A lower or higher minimum score asks again. A
//! group's *Compare* and a file's card lead to the Search place's compare page and detail
//! ([`DuplicatesIntent`]), whose back buttons lead here again.

pub mod groups;
pub mod layout;

use std::collections::HashMap;

use egui::{Align, Layout, Rangef, Rect, Sense, UiBuilder, Vec2};

use self::groups::{FileCard, GroupCard, RecordState};
use self::layout::{FILE_CARD_HEIGHT, FILE_CARD_WIDTH, GROUP_SPACING, GroupsLayout};
use super::app_command::CommandQueue;
use super::keyboard::{ListCursor, ListKey};
use super::results::{ResultRow, state_message_ui, thousands, thumbnail_ui};
use super::texture_cache::TextureCache;
use partlens_api::{ApiError, FileMap, FileUid};
use partlens_tasks::duplicates::DuplicateRecord;
use partlens_tasks::{Command, Event};

/// The service's default minimum score (`partlens-service`'s `DEFAULT_MIN_SCORE`): where the
/// control starts before the first answer says what the service applied.
pub const SERVICE_DEFAULT_MIN_SCORE: f64 = 0.885;

/// The lowest and highest minimum score the control offers.
const MIN_SCORE_RANGE: std::ops::RangeInclusive<f64> = 0.5..=1.0;

/// Files' records one `Command::LoadDuplicateRecords` asks for at most (about a screen's cards).
pub const RECORDS_A_COMMAND: usize = 24;

/// `Command::LoadDuplicateRecords` waited for at once at most.
pub const RECORD_COMMANDS_AT_ONCE: usize = 2;

/// How far beyond the screen, in screens, the files' records are asked for (so that scrolling on
/// finds them there).
const RECORDS_SCREENS_AHEAD: f32 = 1.0;

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
    /// The request whose groups are shown (their records are asked for with it).
    groups_request: u64,
    /// Where the groups go at the place's width; `None` when the groups changed.
    layout: Option<GroupsLayout>,
    /// `Command::LoadDuplicateRecords` sent for the groups shown and not answered yet.
    record_commands_waited: usize,
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
            groups_request: 0,
            layout: None,
            record_commands_waited: 0,
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
        self.layout = None;
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
                    self.groups_request = request;
                    self.layout = None;
                    self.record_commands_waited = 0;
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
            Event::DuplicateRecordsLoaded { request, records } => {
                if request == self.groups_request {
                    self.take_records(records);
                }
            }
            other => return Some(other),
        }
        None
    }

    /// Puts the records that came in on their files' cards.
    fn take_records(&mut self, records: Vec<DuplicateRecord>) {
        self.record_commands_waited = self.record_commands_waited.saturating_sub(1);
        let records: HashMap<String, Option<FileMap>> = records
            .into_iter()
            .map(|answer| (answer.uid.canonical(), answer.record))
            .collect();
        let asked = self
            .groups
            .iter_mut()
            .flat_map(|group| &mut group.files)
            .filter(|file| file.record == RecordState::Asked);
        for file in asked {
            if let Some(record) = records.get(&file.row.uid.canonical()) {
                file.take_record(record.as_ref());
            }
        }
    }

    /// How many files the groups have.
    fn file_count(&self) -> usize {
        match &self.layout {
            Some(layout) => layout.files(),
            None => self.groups.iter().map(|group| group.files.len()).sum(),
        }
    }

    /// The file at `index` of the cursor's order.
    fn file_at(&self, index: usize) -> Option<&FileCard> {
        let (group, position) = match &self.layout {
            Some(layout) => layout.file_at(index)?,
            None => {
                let mut first = 0;
                self.groups.iter().enumerate().find_map(|(group, card)| {
                    let found = (index < first + card.files.len()).then(|| (group, index - first));
                    first += card.files.len();
                    found
                })?
            }
        };
        self.groups.get(group)?.files.get(position)
    }

    /// Asks for the records of the files on the screen (`visible`, in the layout's space), then
    /// of those near it, that have none yet: one command of at most [`RECORDS_A_COMMAND`] files a
    /// frame, at most [`RECORD_COMMANDS_AT_ONCE`] waited for.
    fn ask_records(&mut self, visible: Rangef, commands: &mut CommandQueue) {
        if self.record_commands_waited >= RECORD_COMMANDS_AT_ONCE {
            return;
        }
        let Some(layout) = &self.layout else {
            return;
        };
        let ahead = visible.span().max(1.0) * RECORDS_SCREENS_AHEAD;
        let on_screen = (visible.min, visible.max);
        let near = (visible.min - ahead, visible.max + ahead);
        let mut uids = Vec::new();
        'ranges: for (top, bottom) in [on_screen, near] {
            for group in layout.groups_within(top, bottom) {
                let cards = layout.cards_within(group, top, bottom);
                let Some(files) = self
                    .groups
                    .get_mut(group)
                    .and_then(|card| card.files.get_mut(cards))
                else {
                    continue;
                };
                for file in files {
                    if uids.len() == RECORDS_A_COMMAND {
                        break 'ranges;
                    }
                    if file.record == RecordState::NotAsked {
                        file.record = RecordState::Asked;
                        uids.push(file.row.uid.clone());
                    }
                }
            }
        }
        if !uids.is_empty() {
            self.record_commands_waited += 1;
            commands.backend(Command::LoadDuplicateRecords {
                request: self.groups_request,
                uids,
            });
        }
    }

    /// The groups of the rows on screen, laid out from [`GroupsLayout`] (made again when the width
    /// or the groups change); the cursor's keys; the records of the files shown asked for.
    fn groups_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<DuplicatesIntent>,
    ) {
        if let Some(ListKey::Open(index)) = self.cursor.keys(ui, self.file_count(), 1)
            && let Some(file) = self.file_at(index)
        {
            intents.push(DuplicatesIntent::OpenDetail(file.row.uid.clone()));
        }
        let cursor = self.cursor;
        let Self { groups, layout, .. } = self;
        // Not animated: a move of the cursor to a far group lands there in the next frame.
        let visible = egui::ScrollArea::vertical()
            .id_salt("duplicate groups")
            .auto_shrink(false)
            .animated(false)
            .show_viewport(ui, |ui, _viewport| {
                ui.spacing_mut().item_spacing = Vec2::splat(GROUP_SPACING);
                let full_width = ui.available_width();
                let layout = match layout {
                    Some(layout) if layout.width() == full_width => layout,
                    _ => layout.insert(GroupsLayout::new(
                        &groups
                            .iter()
                            .map(|group| group.files.len())
                            .collect::<Vec<_>>(),
                        full_width,
                    )),
                };
                let shown = ShownGroups {
                    groups,
                    layout,
                    cursor,
                };
                shown.ui(ui, textures, commands, intents)
            })
            .inner;
        self.ask_records(visible, commands);
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
            DuplicatesStatus::Ready => self.groups_ui(ui, textures, commands, &mut intents),
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
                let files = thousands(self.file_count() as u64);
                ui.strong(match self.groups.len() {
                    1 => format!("1 group of {files} files"),
                    groups => format!("{} groups, {files} files", thousands(groups as u64)),
                });
                ui.weak(format!(
                    "of {} files compared at {:.3}",
                    thousands(self.files_compared),
                    self.applied_min_score
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

/// The groups as one frame draws them: every group, where each goes, and the cursor.
struct ShownGroups<'a> {
    groups: &'a [GroupCard],
    layout: &'a GroupsLayout,
    cursor: ListCursor,
}

impl ShownGroups<'_> {
    /// Draws the groups of the rows on screen (and, of a group taller than the screen, the cards
    /// on screen) in the scroll area's `ui`, and brings the card under a cursor that moved on
    /// screen. Returns what is on screen, in the layout's space.
    fn ui(
        &self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<DuplicatesIntent>,
    ) -> Rangef {
        ui.set_height(self.layout.height());
        let origin = ui.max_rect().min.to_vec2();
        let screen = ui.clip_rect().translate(-origin);
        for index in self.layout.groups_within(screen.top(), screen.bottom()) {
            let at = OnScreen { origin, screen };
            self.group_ui(ui, index, at, textures, commands, intents);
        }
        if self.cursor.reveal
            && let Some(index) = self.cursor.index
            && let Some((group, position)) = self.layout.file_at(index)
            && let Some(card) = self.layout.card_rect(group, position)
        {
            ui.scroll_to_rect(card.translate(origin), None);
        }
        screen.y_range()
    }

    /// Group `index`: its frame, its line of number, score and *Compare*, and those of its
    /// files' cards that reach into the screen.
    fn group_ui(
        &self,
        ui: &mut egui::Ui,
        index: usize,
        OnScreen { origin, screen }: OnScreen,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<DuplicatesIntent>,
    ) {
        let (Some(group), Some(frame), Some(header), Some(first_file)) = (
            self.groups.get(index),
            self.layout.group_rect(index),
            self.layout.header_rect(index),
            self.layout.first_file(index),
        ) else {
            return;
        };
        let widgets = &ui.visuals().widgets.noninteractive;
        ui.painter().rect_stroke(
            frame.translate(origin),
            widgets.corner_radius,
            widgets.bg_stroke,
            egui::StrokeKind::Inside,
        );
        let mut header_ui = ui.new_child(
            UiBuilder::new()
                .id_salt(("duplicate group", index))
                .max_rect(header.translate(origin))
                .layout(Layout::left_to_right(Align::Center)),
        );
        group_header_ui(&mut header_ui, index, group, intents);
        for position in self
            .layout
            .cards_within(index, screen.top(), screen.bottom())
        {
            let (Some(file), Some(card)) = (
                group.files.get(position),
                self.layout.card_rect(index, position),
            ) else {
                continue;
            };
            let mut card_ui = ui.new_child(
                UiBuilder::new()
                    .id_salt(("duplicate card", index, position))
                    .max_rect(card.translate(origin)),
            );
            let under_cursor = self.cursor.index == Some(first_file + position);
            file_card_ui(
                &mut card_ui,
                file,
                under_cursor,
                textures,
                commands,
                intents,
            );
        }
    }
}

/// Where the layout's space is on screen this frame.
#[derive(Clone, Copy)]
struct OnScreen {
    /// Where the layout's (0, 0) is in the scroll area.
    origin: Vec2,
    /// What the screen shows, in the layout's space.
    screen: Rect,
}

/// A group's line: its number, file count and score, and *Compare* (once its files' records are
/// in, which hold what the comparison shows).
fn group_header_ui(
    ui: &mut egui::Ui,
    index: usize,
    group: &GroupCard,
    intents: &mut Vec<DuplicatesIntent>,
) {
    ui.strong(format!("Part {}", index + 1));
    ui.label(format!("{} files", group.files.len()));
    ui.weak(group.score_text())
        .on_hover_text("The weakest score of the pairs that joined the group");
    let ready = group
        .files
        .iter()
        .all(|file| file.record == RecordState::Answered);
    let compare = ui
        .add_enabled(ready, egui::Button::new("Compare"))
        .on_hover_text("These files side by side, with their fields and attributes")
        .on_disabled_hover_text("Once the files' records are in (a moment)");
    compare.widget_info(|| {
        egui::WidgetInfo::labeled(
            egui::Role::Button,
            ready,
            format!("Compare part {}", index + 1),
        )
    });
    if compare.clicked() {
        intents.push(DuplicatesIntent::Compare(group.rows()));
    }
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
    if file.record == RecordState::Answered {
        thumbnail_ui(&card, thumbnail_rect, &file.row, textures, commands);
    } else {
        // The record, which holds the picture's link, is on its way.
        let painter = card.painter_at(thumbnail_rect);
        painter.rect_filled(thumbnail_rect, 4.0, card.visuals().extreme_bg_color);
        crate::ui::picture::paint_caption(&card, &painter, thumbnail_rect, "loading…", 11.0);
    }
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

    use super::layout::{GROUP_MARGIN, group_rows, group_width};
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

    /// The UID of file `number` of [`many_groups`].
    fn numbered_uid(number: usize) -> FileUid {
        FileUid::from_reply(&format!("00000000-0000-4000-8000-{number:012}"))
    }

    /// The number of a UID of [`numbered_uid`].
    fn number_of(uid: &FileUid) -> usize {
        uid.as_str()[24..].parse().unwrap()
    }

    /// `count` groups of two (`part-NNNNN.step`, `.stl`: files 2g+1 and 2g+2 of group g), without
    /// their records, as the task layer answers them.
    fn many_groups(count: usize) -> partlens_tasks::duplicates::DuplicateParts {
        use partlens_api::duplicates::DuplicateFile;
        use partlens_tasks::duplicates::{DuplicatePartFile, DuplicatePartGroup, DuplicateParts};
        let groups = (0..count)
            .map(|group| DuplicatePartGroup {
                score: 0.99,
                files: ["step", "stl"]
                    .into_iter()
                    .enumerate()
                    .map(|(copy, extension)| DuplicatePartFile {
                        file: DuplicateFile {
                            uid: numbered_uid(2 * group + copy + 1).as_str().to_owned(),
                            file_name: format!("parts/part-{group:05}.{extension}"),
                            ..DuplicateFile::default()
                        },
                        record: None,
                    })
                    .collect(),
            })
            .collect();
        DuplicateParts {
            min_score: 0.885,
            files_compared: 2 * count as u64,
            groups,
        }
    }

    /// The place showing `count` groups (the answer to its first request).
    fn showing_groups(count: usize) -> Harness<'static, Fixture> {
        let mut harness = harness();
        harness.run_steps(2);
        harness
            .state_mut()
            .view
            .handle_event(Event::DuplicatesFound {
                request: 1,
                parts: many_groups(count),
            });
        harness.run();
        harness
    }

    /// The files of every `LoadDuplicateRecords` sent so far, a command a list.
    fn records_asked(harness: &Harness<'static, Fixture>) -> Vec<Vec<FileUid>> {
        harness
            .state()
            .commands
            .iter()
            .filter_map(|command| match command {
                Command::LoadDuplicateRecords { request: 1, uids } => Some(uids.clone()),
                _ => None,
            })
            .collect()
    }

    /// Answers `uids` with records that have a thumbnail.
    fn answer_records(harness: &mut Harness<'static, Fixture>, uids: Vec<FileUid>) {
        let records = uids
            .into_iter()
            .map(|uid| DuplicateRecord {
                record: Some(FileMap {
                    thumbnail_url: format!("http://127.0.0.1:9/thumb/{}.png", number_of(&uid)),
                    ..FileMap::default()
                }),
                uid,
            })
            .collect();
        let view = &mut harness.state_mut().view;
        assert!(
            view.handle_event(Event::DuplicateRecordsLoaded {
                request: 1,
                records
            })
            .is_none()
        );
        harness.run();
    }

    /// The files' cards in the accessibility tree: those laid out this frame.
    fn cards_laid_out(harness: &Harness<'static, Fixture>) -> usize {
        harness.query_all_by_label_contains("Open part-").count()
    }

    #[test]
    fn only_the_groups_on_screen_are_laid_out_and_the_cursor_brings_a_far_one_on_screen() {
        let mut harness = showing_groups(2_000);
        harness.get_by_label("2,000 groups, 4,000 files");
        let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1000.0, 700.0));
        let laid_out = cards_laid_out(&harness);
        assert!((4..=30).contains(&laid_out), "{laid_out} cards laid out");
        assert!(screen.contains_rect(harness.get_by_label("Open part-00000.step").rect()));
        // The first arrow puts the cursor on the first file; End on the 4,000th.
        harness.key_press(egui::Key::ArrowRight);
        harness.run();
        harness.key_press(egui::Key::End);
        harness.run();
        let last = harness.get_by_label("Open part-01999.stl").rect();
        assert!(screen.contains_rect(last), "{last:?}");
        assert!(harness.query_by_label("Open part-00000.step").is_none());
        let laid_out = cards_laid_out(&harness);
        assert!(laid_out <= 30, "{laid_out} cards laid out");
        // A file back, and Enter opens it.
        harness.key_press(egui::Key::ArrowUp);
        harness.run();
        harness.key_press(egui::Key::Enter);
        harness.run();
        assert_eq!(
            harness.state().intents,
            [DuplicatesIntent::OpenDetail(numbered_uid(3_999))]
        );
        // Down the rows with the arrow: the cursor moves a file at a time, its card on screen.
        harness.key_press(egui::Key::Home);
        harness.run();
        for _ in 0..40 {
            harness.key_press(egui::Key::ArrowDown);
            harness.run();
        }
        let forty_first = harness.get_by_label("Open part-00020.step").rect();
        assert!(screen.contains_rect(forty_first), "{forty_first:?}");
        assert!(harness.query_by_label("Open part-00000.step").is_none());
    }

    #[test]
    fn records_are_asked_for_the_files_near_the_screen_only_and_fill_their_cards() {
        let mut harness = showing_groups(2_000);
        let asked = records_asked(&harness);
        assert!(!asked.is_empty() && asked.len() <= RECORD_COMMANDS_AT_ONCE);
        let numbers: Vec<usize> = asked.iter().flatten().map(number_of).collect();
        assert!(numbers.len() <= RECORD_COMMANDS_AT_ONCE * RECORDS_A_COMMAND);
        // The files of the groups on screen first; none beyond a screen below.
        assert_eq!(numbers[..4], [1, 2, 3, 4]);
        assert!(numbers.iter().all(|number| *number <= 60), "{numbers:?}");
        let first = &harness.state().view.groups()[0].files[0];
        assert_eq!(first.record, RecordState::Asked);
        assert!(first.row.thumbnail_url.is_empty());

        for uids in asked {
            answer_records(&mut harness, uids);
        }
        let first = &harness.state().view.groups()[0].files[0];
        assert_eq!(first.record, RecordState::Answered);
        assert_eq!(first.row.thumbnail_url, "http://127.0.0.1:9/thumb/1.png");
        // Its thumbnail is asked for now that its card knows its link.
        let thumbnail = |command: &Command| {
            matches!(command, Command::LoadImage(request)
                if request.record.as_ref().is_some_and(|record| record.uid == numbered_uid(1)))
        };
        harness.run();
        assert_eq!(harness.state().count_commands(thumbnail), 1);

        // At the end of the list, the last groups' records, and never those in between.
        harness.key_press(egui::Key::ArrowRight);
        harness.run();
        harness.key_press(egui::Key::End);
        harness.run();
        harness.run();
        let numbers: Vec<usize> = records_asked(&harness)
            .iter()
            .flatten()
            .map(number_of)
            .collect();
        assert!(numbers.contains(&4_000), "{numbers:?}");
        assert!(
            numbers
                .iter()
                .all(|number| *number <= 60 || *number > 3_940),
            "{numbers:?}"
        );
        assert!(numbers.len() < 150, "{} records asked", numbers.len());
    }

    /// `count` files `wide-NNNN.stl`, numbered from `first` + 1, without their records.
    fn wide_group(
        count: usize,
        first: usize,
    ) -> Vec<partlens_tasks::duplicates::DuplicatePartFile> {
        (0..count)
            .map(|copy| partlens_tasks::duplicates::DuplicatePartFile {
                file: partlens_api::duplicates::DuplicateFile {
                    uid: numbered_uid(first + copy + 1).as_str().to_owned(),
                    file_name: format!("parts/wide-{copy:04}.stl"),
                    ..Default::default()
                },
                record: None,
            })
            .collect()
    }

    #[test]
    fn a_group_of_thousands_of_files_lays_out_and_asks_for_the_cards_near_the_screen_only() {
        // A low minimum score joins many files into one group.
        let mut harness = harness();
        harness.run_steps(2);
        let mut parts = many_groups(1);
        parts.groups[0].files = wide_group(3_000, 0);
        harness
            .state_mut()
            .view
            .handle_event(Event::DuplicatesFound { request: 1, parts });
        harness.run();
        let laid_out = harness.query_all_by_label_contains("Open wide-").count();
        assert!((5..=20).contains(&laid_out), "{laid_out} cards laid out");
        let numbers: Vec<usize> = records_asked(&harness)
            .iter()
            .flatten()
            .map(number_of)
            .collect();
        assert!(numbers.contains(&1), "{numbers:?}");
        assert!(numbers.iter().all(|number| *number <= 60), "{numbers:?}");
    }

    #[test]
    fn a_group_wider_than_the_window_puts_its_cards_on_more_lines_inside_it() {
        for (size, wide_cards_laid_out) in [([800.0, 600.0], 4..=8), ([1920.0, 1200.0], 12..=12)] {
            let mut harness = view_harness::harness(DuplicatesView::default(), size, 1 << 24, draw);
            harness.run_steps(2);
            let mut parts = many_groups(3);
            parts.groups[1].files = wide_group(12, 100);
            harness
                .state_mut()
                .view
                .handle_event(Event::DuplicatesFound { request: 1, parts });
            harness.run();
            let wide: Vec<egui::Rect> = harness
                .query_all_by_label_contains("Open wide-")
                .map(|node| node.rect())
                .collect();
            assert!(
                wide_cards_laid_out.contains(&wide.len()),
                "{size:?}: {} cards",
                wide.len()
            );
            for card in &wide {
                assert!(
                    card.left() >= 0.0 && card.right() <= size[0],
                    "{size:?}: {card:?}"
                );
            }
            // The group below starts below the wide group's last line.
            let lowest = wide.iter().map(|card| card.bottom()).fold(0.0, f32::max);
            if let Some(below) = harness.query_by_label("Open part-00002.step") {
                assert!(below.rect().top() > lowest, "{size:?}");
            }
        }
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
