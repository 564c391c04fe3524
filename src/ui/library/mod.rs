//! The Library place: every database file of the company, newest first, as the results' cards
//! ([`crate::ui::results::grid`]) or a table ([`table`]), filtered by kind, folder and attribute
//! ([`filters`]). The files come a page at a time ([`pages`]): only the rows on screen are laid
//! out (`ScrollArea::show_rows`, `TableBuilder` `body.rows`) and only their pages (and the next)
//! are asked for, so 10,000 files cost a frame what 100 do.
//!
//! It is also where an admin looks at what a sync or a bulk upload brought in: files still being
//! indexed are listed, with their state on the card. The view sends its pages' requests as
//! `Command::LoadLibraryPage`, each tagged with the listing it belongs to, so a page of a listing
//! the filters have since replaced is dropped; it returns [`LibraryIntent`]s for what leads to the
//! Search place.

pub mod filters;
pub mod pages;
mod table;

use egui::Rect;

use self::filters::LibraryFilters;
use self::pages::{LibraryPages, PAGE_FILES};
use super::app_command::CommandQueue;
use super::keyboard::{ListCursor, ListKey};
use super::results::grid::{CardParts, result_card_ui};
use super::results::{
    CARD_ATTRIBUTES, CARD_HEIGHT, CARD_WIDTH, ResultRow, ResultsIntent, ResultsLayout,
    key_attribute_names, state_message_ui, thousands,
};
use super::texture_cache::TextureCache;
use partlens_api::library::LibraryQuery;
use partlens_api::{ApiError, FileUid};
use partlens_tasks::{Command, Event};

/// Where the listing is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LibraryStatus {
    /// Nothing asked yet (it is asked when the place is shown while logged in).
    #[default]
    NotLoaded,
    /// The first page is on its way.
    Loading,
    /// The first page could not be loaded; the sentence says why and what to do.
    Failed(String),
    /// The listing's first page is in (possibly empty).
    Ready,
}

/// What the user asked of the Library that leads to the Search place.
#[derive(Clone, Debug, PartialEq)]
pub enum LibraryIntent {
    /// Open the file's detail.
    OpenDetail(FileUid),
    /// Search by the file itself (by its UID: a model as a model).
    MoreLikeThis {
        /// The file.
        uid: FileUid,
        /// Its stored file name.
        file_name: String,
    },
}

/// The Library place's state.
#[derive(Debug, Default)]
pub struct LibraryView {
    filters: LibraryFilters,
    listing: u64,
    pages: LibraryPages,
    status: LibraryStatus,
    layout: ResultsLayout,
    key_attributes: Vec<String>,
    /// A page after the first that failed, with the sentence.
    page_error: Option<String>,
    /// A row to bring on screen at the next frame (Home, End, tests).
    scroll_to: Option<usize>,
    /// The rows laid out in the last frame.
    shown_rows: std::ops::Range<usize>,
    hovered_model: Option<(ResultRow, Rect)>,
    /// The keyboard's cursor over the listing.
    cursor: ListCursor,
}

impl LibraryView {
    /// The status.
    pub fn status(&self) -> &LibraryStatus {
        &self.status
    }

    /// The pages of the listing.
    pub fn pages(&self) -> &LibraryPages {
        &self.pages
    }

    /// The filters as typed.
    pub fn filters(&self) -> &LibraryFilters {
        &self.filters
    }

    /// The layout.
    pub fn layout(&self) -> ResultsLayout {
        self.layout
    }

    /// Switches between the cards and the table.
    pub fn set_layout(&mut self, layout: ResultsLayout) {
        self.layout = layout;
    }

    /// The rows laid out in the last frame (indices in the listing, from 0).
    pub fn shown_rows(&self) -> std::ops::Range<usize> {
        self.shown_rows.clone()
    }

    /// Brings the file at `index` (from 0) on screen at the next frame.
    pub fn scroll_to(&mut self, index: usize) {
        self.scroll_to = Some(index);
    }

    /// Forgets the listing: it is asked again when the place is next shown (after a login, or
    /// when the files changed).
    pub fn invalidate(&mut self) {
        self.status = LibraryStatus::NotLoaded;
    }

    /// Lists again at the next frame when the listing had failed (the service is back).
    pub fn reload_if_failed(&mut self) {
        if matches!(self.status, LibraryStatus::Failed(_)) {
            self.invalidate();
        }
        self.page_error = None;
    }

    /// Asks for the listing anew with the filters as they are (its first page).
    pub fn reload(&mut self, commands: &mut CommandQueue) {
        self.listing += 1;
        self.pages = LibraryPages::default();
        self.key_attributes.clear();
        self.page_error = None;
        self.scroll_to = Some(0);
        self.status = LibraryStatus::Loading;
        self.filters.apply();
        self.ask_pages(0..0, commands);
    }

    /// Takes the pages that answer this listing; returns every other event.
    pub fn handle_event(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::LibraryPageLoaded { request, page } => {
                if request == self.listing {
                    let index = page.offset as usize / PAGE_FILES;
                    self.pages
                        .insert(index, page.total_files as usize, &page.files);
                    if self.key_attributes.is_empty() {
                        let rows: Vec<ResultRow> =
                            self.pages.rows().map(|row| row.row.clone()).collect();
                        self.key_attributes = key_attribute_names(&rows, CARD_ATTRIBUTES);
                    }
                    self.status = LibraryStatus::Ready;
                }
                None
            }
            Event::LibraryPageFailed {
                request,
                offset,
                error,
            } => {
                if request == self.listing {
                    self.pages.forget_asked(offset / PAGE_FILES);
                    let sentence = failure_sentence(&error);
                    if self.pages.total().is_none() {
                        self.status = LibraryStatus::Failed(sentence);
                    } else {
                        self.page_error = Some(sentence);
                    }
                }
                None
            }
            other => Some(other),
        }
    }

    /// The query of page `page` under the applied filters.
    fn query(&self, page: usize) -> LibraryQuery {
        let mut query = self.filters.query();
        query.offset = page * PAGE_FILES;
        query.limit = PAGE_FILES;
        query
    }

    /// Asks for the pages the rows `visible` need that are neither held nor asked for.
    fn ask_pages(&mut self, visible: std::ops::Range<usize>, commands: &mut CommandQueue) {
        for page in self.pages.take_missing(visible) {
            commands.backend(Command::LoadLibraryPage {
                request: self.listing,
                query: self.query(page),
            });
        }
    }

    /// Draws the place. `logged_in`: the listing is asked for only with a session (a page asked
    /// for before would wait for the login anyway).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        logged_in: bool,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<LibraryIntent> {
        let mut intents = Vec::new();
        self.hovered_model = None;
        if logged_in && self.status == LibraryStatus::NotLoaded {
            self.reload(commands);
        }
        ui.horizontal(|ui| {
            ui.heading("Library");
            ui.weak("Every file of your company, newest first.");
        });
        if self.filters.ui(ui) {
            self.reload(commands);
        }
        ui.separator();
        match self.status.clone() {
            LibraryStatus::NotLoaded => state_message_ui(
                ui,
                "Not logged in.",
                "Log in to see your company's files.",
                None,
            ),
            LibraryStatus::Loading => state_message_ui(
                ui,
                "Loading the library…",
                "Asking the service for the newest files.",
                Some(()),
            ),
            LibraryStatus::Failed(sentence) => {
                state_message_ui(ui, "The library could not be loaded.", &sentence, None);
                ui.vertical_centered(|ui| {
                    if ui.button("Try again").clicked() {
                        self.reload(commands);
                    }
                });
            }
            LibraryStatus::Ready if self.pages.total() == Some(0) => {
                if self.filters.any_applied() {
                    state_message_ui(
                        ui,
                        "No file matches these filters.",
                        "Choose another kind or folder, or remove the attribute filter.",
                        None,
                    );
                    ui.vertical_centered(|ui| {
                        if ui.button("Clear filters").clicked() {
                            self.filters.clear();
                            self.reload(commands);
                        }
                    });
                } else {
                    state_message_ui(
                        ui,
                        "The library is empty.",
                        "Upload files into the company database (Upload, or drop them on the \
                         window), or sync a folder from Settings; they are listed here, newest \
                         first.",
                        None,
                    );
                    ui.vertical_centered(|ui| {
                        if ui.button("Add files…").clicked() {
                            commands.backend(Command::PickFiles);
                        }
                    });
                }
            }
            LibraryStatus::Ready => {
                self.toolbar_ui(ui, commands);
                let mut results_intents = Vec::new();
                let visible = match self.layout {
                    ResultsLayout::Grid => {
                        self.grid_ui(ui, textures, commands, &mut results_intents)
                    }
                    ResultsLayout::Table => {
                        self.table_ui(ui, textures, commands, &mut results_intents)
                    }
                };
                self.shown_rows = visible.clone();
                self.ask_pages(visible, commands);
                for intent in results_intents {
                    match intent {
                        ResultsIntent::OpenDetail(uid) => {
                            intents.push(LibraryIntent::OpenDetail(uid));
                        }
                        ResultsIntent::MoreLikeThis { uid, file_name } => {
                            intents.push(LibraryIntent::MoreLikeThis { uid, file_name });
                        }
                        _ => {}
                    }
                }
            }
        }
        intents
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        let total = self.pages.total().unwrap_or(0);
        ui.horizontal(|ui| {
            ui.strong(if total == 1 {
                "1 file".to_owned()
            } else {
                format!("{} files", thousands(total as u64))
            });
            ui.separator();
            ui.selectable_value(&mut self.layout, ResultsLayout::Grid, "Grid");
            ui.selectable_value(&mut self.layout, ResultsLayout::Table, "Table");
            ui.separator();
            if ui
                .button("Refresh")
                .on_hover_text("List the files again (new uploads appear first)")
                .clicked()
            {
                self.reload(commands);
            }
            if self.pages.pending_pages() > 0 {
                ui.spinner();
                ui.weak("loading files…");
            }
        });
        if let Some(error) = self.page_error.clone() {
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(super::theme::warning_color(ui), error);
                if ui.button("Dismiss").clicked() {
                    self.page_error = None;
                }
            });
        }
    }

    /// Takes this frame's list keys over `columns` files to a row (Home and End go to the newest
    /// and the oldest file): the file under the cursor is brought on screen, Enter opens it.
    fn cursor_keys(&mut self, ui: &egui::Ui, columns: usize, intents: &mut Vec<ResultsIntent>) {
        let total = self.pages.total().unwrap_or(0);
        match self.cursor.keys(ui, total, columns) {
            Some(ListKey::Open(index)) => {
                if let Some(file) = self.pages.row(index) {
                    intents.push(ResultsIntent::OpenDetail(file.row.uid.clone()));
                }
            }
            Some(ListKey::Moved(index)) => {
                // A row at the edge of the screen or off it comes on screen.
                let shown = &self.shown_rows;
                let inside = index >= shown.start + columns && index + columns < shown.end;
                if !inside {
                    self.scroll_to = Some(index);
                }
            }
            Some(ListKey::Left) | None => {}
        }
    }

    /// The file under the keyboard's cursor, if its page is in.
    pub fn cursor(&self) -> Option<&ResultRow> {
        self.pages.row(self.cursor.index?).map(|file| &file.row)
    }

    /// The grid of cards; returns the rows of the listing on screen.
    fn grid_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<ResultsIntent>,
    ) -> std::ops::Range<usize> {
        let total = self.pages.total().unwrap_or(0);
        let spacing = ui.spacing().item_spacing;
        let columns = (((ui.available_width() + spacing.x) / (CARD_WIDTH + spacing.x)).floor()
            as usize)
            .max(1);
        let row_count = total.div_ceil(columns);
        self.cursor_keys(ui, columns, intents);
        let cursor = self.cursor.index;
        let mut area = egui::ScrollArea::vertical()
            .id_salt("library grid")
            .auto_shrink(false);
        if let Some(index) = self.scroll_to.take() {
            area =
                area.vertical_scroll_offset((index / columns) as f32 * (CARD_HEIGHT + spacing.y));
        }
        let mut shown = None;
        let Self {
            pages,
            key_attributes,
            hovered_model,
            ..
        } = self;
        area.show_rows(ui, CARD_HEIGHT, row_count, |ui, visible_rows| {
            for grid_row in visible_rows {
                ui.horizontal(|ui| {
                    let first = grid_row * columns;
                    let last = (first + columns).min(total);
                    widen(&mut shown, first..last);
                    for index in first..last {
                        match pages.row(index) {
                            Some(row) => {
                                let card = CardParts {
                                    key_attributes,
                                    selected: None,
                                    hovered_model: &mut *hovered_model,
                                    caption: Some(row.caption()),
                                    under_cursor: cursor == Some(index),
                                };
                                result_card_ui(ui, &row.row, card, textures, commands, intents);
                            }
                            None => placeholder_card_ui(ui),
                        }
                    }
                });
            }
        });
        shown.unwrap_or_default()
    }
}

/// Widens `shown` (the rows laid out so far this frame) by `rows`.
fn widen(shown: &mut Option<std::ops::Range<usize>>, rows: std::ops::Range<usize>) {
    *shown = Some(match shown.take() {
        Some(known) => known.start.min(rows.start)..known.end.max(rows.end),
        None => rows,
    });
}

/// The place of a card whose page has not come in yet.
fn placeholder_card_ui(ui: &mut egui::Ui) {
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(CARD_WIDTH, CARD_HEIGHT), egui::Sense::hover());
    if ui.is_rect_visible(rect) {
        let visuals = ui.visuals();
        ui.painter().rect(
            rect,
            6.0,
            visuals.faint_bg_color,
            visuals.widgets.noninteractive.bg_stroke,
            egui::StrokeKind::Inside,
        );
        ui.painter().text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "loading…",
            egui::FontId::proportional(12.0),
            visuals.weak_text_color(),
        );
    }
}

/// What went wrong with a page of the listing, and what to do next.
fn failure_sentence(error: &ApiError) -> String {
    match error {
        ApiError::NotFound { .. } => "This service does not list its files: the Library is an \
                                      extension of partlens's own service. Search by views or \
                                      words instead."
            .to_owned(),
        ApiError::Network(detail) => format!(
            "The service could not be reached ({detail}). Check the address in Settings, then \
             try again."
        ),
        ApiError::BadRequest { message, .. } => {
            format!("The service refused the filters: {message}. Change them and try again.")
        }
        ApiError::Unauthorized => {
            "Your session has ended. Log in again; the library loads after the login.".to_owned()
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
    use partlens_api::library::{LibraryFile, LibraryPage};

    type Fixture = view_harness::Fixture<LibraryView, LibraryIntent>;

    fn draw(
        view: &mut LibraryView,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<LibraryIntent> {
        view.ui(ui, true, textures, commands)
    }

    fn harness() -> Harness<'static, Fixture> {
        view_harness::harness(LibraryView::default(), [1000.0, 700.0], 1 << 24, draw)
    }

    /// The listings of the pages asked for so far, with their offsets.
    fn asked(harness: &Harness<'static, Fixture>) -> Vec<(u64, usize)> {
        harness
            .state()
            .commands
            .iter()
            .filter_map(|command| match command {
                Command::LoadLibraryPage { request, query } => Some((*request, query.offset)),
                _ => None,
            })
            .collect()
    }

    fn page(offset: usize, total: usize, count: usize) -> LibraryPage {
        LibraryPage {
            total_files: total as u64,
            offset: offset as u64,
            files: (offset..offset + count)
                .map(|number| LibraryFile {
                    item: partlens_api::SearchResultItem {
                        uid: format!("00000000-0000-4000-8000-{number:012}"),
                        file_name: format!("Parts/part-{number}.png"),
                        ..Default::default()
                    },
                    ..Default::default()
                })
                .collect(),
        }
    }

    #[test]
    fn a_failed_listing_says_what_to_do_and_tries_again_as_a_new_listing() {
        let mut harness = harness();
        harness.run_steps(2);
        assert_eq!(asked(&harness), [(1, 0)]);
        harness.get_by_label("Loading the library…");
        harness
            .state_mut()
            .view
            .handle_event(Event::LibraryPageFailed {
                request: 1,
                offset: 0,
                error: ApiError::NotFound {
                    message: "no such endpoint".into(),
                },
            });
        harness.run();
        harness.get_by_label("The library could not be loaded.");
        harness.get_by_label_contains("extension of partlens's own service");
        harness.get_by_label("Try again").click();
        harness.run_steps(2);
        assert_eq!(asked(&harness), [(1, 0), (2, 0)]);
        // A late answer to the first listing is dropped; the second's is shown.
        let consumed = harness
            .state_mut()
            .view
            .handle_event(Event::LibraryPageLoaded {
                request: 1,
                page: page(0, 5, 5),
            });
        assert!(consumed.is_none());
        assert_eq!(harness.state().view.status(), &LibraryStatus::Loading);
        harness
            .state_mut()
            .view
            .handle_event(Event::LibraryPageLoaded {
                request: 2,
                page: page(0, 3, 3),
            });
        harness.run();
        harness.get_by_label("3 files");
        harness.get_by_label("Open part-2.png").click();
        harness.run();
        assert_eq!(
            harness.state().intents,
            [LibraryIntent::OpenDetail(FileUid::from_reply(
                "00000000-0000-4000-8000-000000000002"
            ))]
        );
    }
}
