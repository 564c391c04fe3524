//! The results of a search: a virtualised grid of cards ([`grid`]) and a sortable table ([`table`])
//! over a plain model ([`rows`]), with empty, loading and error states, "More like this", and CSV
//! export.
//!
//! The view sends what the task layer does (thumbnails, the file picker, the CSV export) as
//! `Command`s and returns [`ResultsIntent`]s for what reaches beyond it (open a result, search by it,
//! search again, compare the ticked results). A card whose result is a 3D model reports itself while
//! hovered ([`ResultsView::hovered_model`]), so the Search place can turn the model in it. Only the rows on screen are laid out (`ScrollArea::show_rows`, `TableBuilder`
//! `body.rows`), and sorting happens when the sort changes, never per frame, so a frame costs the
//! same for 100 or 10,000 results.

pub mod calibration;
pub(crate) mod grid;
pub mod rows;
mod table;

use egui::{Color32, Rect};

pub use self::grid::{CARD_ATTRIBUTES, CARD_HEIGHT, CARD_WIDTH};
pub use self::rows::{
    IDENTICAL_SCORE, ResultRow, ScoreBand, SortColumn, SortOrder, attribute_names,
    key_attribute_names, results_csv, rows_from_result, sorted_order, thousands,
};
pub use self::table::TABLE_ROW_HEIGHT;
use super::app_command::CommandQueue;
use super::keyboard::{ListCursor, ListKey};
use super::picture::{Picture, paint_caption, paint_fitted, picture};
use super::texture_cache::TextureCache;
use partlens_api::{Attribute, FileUid};
use partlens_tasks::Command;
use partlens_tasks::thumbnails::ImageRequest;

/// How the results are laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ResultsLayout {
    /// Cards with thumbnails.
    #[default]
    Grid,
    /// A sortable table.
    Table,
}

/// Where the search behind the results is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ResultsStatus {
    /// Nothing has been searched yet.
    #[default]
    NotSearched,
    /// A search is running; the sentence says what it is doing.
    Loading {
        /// What is happening ("Uploading view 1 of 2…").
        message: String,
    },
    /// The search failed; the sentence says why and what to do.
    Failed {
        /// What went wrong.
        message: String,
        /// True when the same search may succeed when tried again (network, 5xx, timeout,
        /// cancelled); false for a view the service cannot read.
        retry: bool,
    },
    /// Results are in (possibly none).
    Ready,
}

/// What the user asked the results view to do that reaches beyond it (another page, the query bar);
/// the Search place carries it out. Work for the task layer goes straight to it as a `Command`.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultsIntent {
    /// Open the detail view of a result.
    OpenDetail(FileUid),
    /// Search by this result itself (by its UID: a model as a model) as the single view of a new
    /// search.
    MoreLikeThis {
        /// The result's UID.
        uid: FileUid,
        /// Its stored file name, which says what it is and names the view slot.
        file_name: String,
    },
    /// Run the last search again.
    RetrySearch,
    /// Stop the running search.
    CancelSearch,
    /// Remove the text and attribute filters (after a search found nothing).
    ClearFilters,
    /// Compare these results (two or more, in the order they were ticked).
    Compare(Vec<ResultRow>),
    /// Show the Library (every file of the company), from the empty results.
    OpenLibrary,
}

/// Most results compared at once.
pub const MAX_COMPARED: usize = 6;

/// The results view: rows, their order, layout and status.
#[derive(Debug, Default)]
pub struct ResultsView {
    rows: Vec<ResultRow>,
    order: Vec<usize>,
    sort: SortOrder,
    layout: ResultsLayout,
    status: ResultsStatus,
    attribute_columns: Vec<String>,
    key_attributes: Vec<String>,
    total_results: Option<i64>,
    notice: Option<String>,
    /// The results ticked for comparison, in the order they were ticked.
    selected: Vec<FileUid>,
    /// The card of a 3D model under the pointer this frame, with its picture's rectangle.
    hovered_model: Option<(ResultRow, Rect)>,
    /// The keyboard's cursor over the results in display order.
    cursor: ListCursor,
    /// The rows of cards the grid laid out in the last frame.
    visible_grid_rows: std::ops::Range<usize>,
}

impl ResultsView {
    /// The result under the keyboard's cursor (in display order), if any.
    pub fn cursor(&self) -> Option<&ResultRow> {
        self.cursor
            .index
            .and_then(|index| self.order.get(index))
            .map(|&row| &self.rows[row])
    }

    /// Takes this frame's list keys over `columns` results to a row: Enter opens the result under
    /// the cursor.
    fn cursor_keys(&mut self, ui: &egui::Ui, columns: usize, intents: &mut Vec<ResultsIntent>) {
        if let Some(ListKey::Open(index)) = self.cursor.keys(ui, self.order.len(), columns)
            && let Some(&row) = self.order.get(index)
        {
            intents.push(ResultsIntent::OpenDetail(self.rows[row].uid.clone()));
        }
    }

    /// An empty view (nothing searched yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// Shows the loading state with a sentence saying what is happening. The previous rows are
    /// dropped: a stale list under a running search misleads.
    pub fn set_loading(&mut self, message: impl Into<String>) {
        self.clear_rows();
        self.status = ResultsStatus::Loading {
            message: message.into(),
        };
    }

    /// Shows the error state; the rows are dropped. `retry` offers *Try again* (a transient
    /// failure); otherwise another view is asked for.
    pub fn set_failed(&mut self, message: impl Into<String>, retry: bool) {
        self.clear_rows();
        self.status = ResultsStatus::Failed {
            message: message.into(),
            retry,
        };
    }

    /// Shows the results of a new search, in the service's order (*Best match*: a sort chosen by
    /// hand for the last list does not carry over), keeping the layout. `total` is the service's
    /// TotalResults.
    pub fn set_results(&mut self, rows: Vec<ResultRow>, total: Option<i64>) {
        self.attribute_columns = attribute_names(&rows);
        self.key_attributes = key_attribute_names(&rows, CARD_ATTRIBUTES);
        self.sort = SortOrder::default();
        self.rows = rows;
        self.selected.clear();
        self.order = sorted_order(&self.rows, &self.sort);
        self.total_results = total;
        self.status = ResultsStatus::Ready;
        self.notice = None;
    }

    /// Takes a deleted file off the list.
    pub fn remove_row(&mut self, uid: &FileUid) {
        let canonical = uid.canonical();
        if let Some(index) = self
            .rows
            .iter()
            .position(|row| row.uid.canonical() == canonical)
        {
            self.rows.remove(index);
            self.order = sorted_order(&self.rows, &self.sort);
        }
        self.selected
            .retain(|selected| selected.canonical() != canonical);
    }

    /// True when the result is ticked for comparison.
    pub fn is_selected(&self, uid: &FileUid) -> bool {
        let canonical = uid.canonical();
        self.selected
            .iter()
            .any(|selected| selected.canonical() == canonical)
    }

    /// Ticks a result for comparison, or unticks it (at most [`MAX_COMPARED`] are ticked).
    pub fn toggle_selected(&mut self, uid: &FileUid) {
        toggle(&mut self.selected, uid);
    }

    /// The ticked results, in the order they were ticked.
    pub fn selected_rows(&self) -> Vec<ResultRow> {
        self.selected
            .iter()
            .filter_map(|uid| {
                self.rows
                    .iter()
                    .find(|row| row.uid.canonical() == uid.canonical())
            })
            .cloned()
            .collect()
    }

    /// The card of a 3D model under the pointer in the last frame, and where its picture is.
    pub fn hovered_model(&self) -> Option<&(ResultRow, Rect)> {
        self.hovered_model.as_ref()
    }

    /// Shows a file's new attributes (after they were saved).
    pub fn update_attributes(&mut self, uid: &FileUid, attributes: &[Attribute]) {
        let canonical = uid.canonical();
        let mut changed = false;
        for row in &mut self.rows {
            if row.uid.canonical() == canonical {
                row.attributes = attributes.to_vec();
                changed = true;
            }
        }
        if changed {
            self.attribute_columns = attribute_names(&self.rows);
            self.key_attributes = key_attribute_names(&self.rows, CARD_ATTRIBUTES);
            self.order = sorted_order(&self.rows, &self.sort);
        }
    }

    /// Back to the state before any search.
    pub fn reset(&mut self) {
        self.clear_rows();
        self.status = ResultsStatus::NotSearched;
    }

    fn clear_rows(&mut self) {
        self.cursor = ListCursor::default();
        self.selected.clear();
        self.hovered_model = None;
        self.rows.clear();
        self.order.clear();
        self.attribute_columns.clear();
        self.key_attributes.clear();
        self.total_results = None;
        self.notice = None;
    }

    /// The status.
    pub fn status(&self) -> &ResultsStatus {
        &self.status
    }

    /// The rows in the service's order.
    pub fn rows(&self) -> &[ResultRow] {
        &self.rows
    }

    /// The rows in display order.
    pub fn ordered_rows(&self) -> impl Iterator<Item = &ResultRow> {
        self.order.iter().map(|&index| &self.rows[index])
    }

    /// The attribute names that have a table column.
    pub fn attribute_columns(&self) -> &[String] {
        &self.attribute_columns
    }

    /// The attribute names a card shows.
    pub fn key_attributes(&self) -> &[String] {
        &self.key_attributes
    }

    /// The layout.
    pub fn layout(&self) -> ResultsLayout {
        self.layout
    }

    /// Switches between grid and table.
    pub fn set_layout(&mut self, layout: ResultsLayout) {
        self.layout = layout;
    }

    /// The current sort.
    pub fn sort(&self) -> &SortOrder {
        &self.sort
    }

    /// Sorts by `sort` (recomputes the display order once).
    pub fn set_sort(&mut self, sort: SortOrder) {
        self.sort = sort;
        self.order = sorted_order(&self.rows, &self.sort);
    }

    /// Sorts by a column the way a header click does: a new column in its natural direction, the same
    /// column again in the other direction.
    pub fn sort_by(&mut self, column: SortColumn) {
        let descending = if self.sort.column == column {
            !self.sort.descending
        } else {
            column.first_direction_descending()
        };
        self.set_sort(SortOrder { column, descending });
    }

    /// A line shown above the results (for example where the CSV was saved).
    pub fn set_notice(&mut self, notice: Option<String>) {
        self.notice = notice;
    }

    /// The CSV text of the list in display order.
    pub fn csv(&self) -> Result<String, csv::Error> {
        results_csv(self.ordered_rows(), &self.attribute_columns)
    }

    /// Draws the view and returns what the user asked for beyond it. Thumbnails come from
    /// `textures`; the ones it does not have yet, the file picker and the CSV export go to `commands`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<ResultsIntent> {
        let mut intents = Vec::new();
        self.hovered_model = None;
        match self.status.clone() {
            ResultsStatus::NotSearched => {
                state_message_ui(
                    ui,
                    "No search yet.",
                    "Add views of a part (drop images or 3D models on the window, or use \
                     \"Add views…\"), or type words, then press Enter or \"Find parts\".",
                    None,
                );
                ui.vertical_centered(|ui| {
                    if ui.button("Add views…").clicked() {
                        commands.backend(Command::PickViews);
                    }
                    ui.add_space(4.0);
                    if ui
                        .button("Browse the library")
                        .on_hover_text("Every file of your company, newest first (Ctrl+L).")
                        .clicked()
                    {
                        intents.push(ResultsIntent::OpenLibrary);
                    }
                    ui.add_space(8.0);
                    ui.weak("Press F1 for the keyboard shortcuts.");
                });
            }
            ResultsStatus::Loading { message } => {
                state_message_ui(ui, "Searching…", &message, Some(()));
                ui.vertical_centered(|ui| {
                    if ui.button("Cancel search").clicked() {
                        intents.push(ResultsIntent::CancelSearch);
                    }
                });
            }
            ResultsStatus::Failed { message, retry } => {
                state_message_ui(ui, "The search failed.", &message, None);
                ui.vertical_centered(|ui| {
                    if retry {
                        if ui.button("Try again").clicked() {
                            intents.push(ResultsIntent::RetrySearch);
                        }
                    } else if ui.button("Add views…").clicked() {
                        // The same file would fail again: ask for another.
                        commands.backend(Command::PickViews);
                    }
                });
            }
            ResultsStatus::Ready if self.rows.is_empty() => {
                state_message_ui(
                    ui,
                    "No part matched.",
                    "Remove a filter or use fewer words, or search by another view of the part.",
                    None,
                );
                ui.vertical_centered(|ui| {
                    if ui.button("Clear filters").clicked() {
                        intents.push(ResultsIntent::ClearFilters);
                    }
                });
            }
            ResultsStatus::Ready => {
                self.toolbar_ui(ui, commands, &mut intents);
                ui.separator();
                match self.layout {
                    ResultsLayout::Grid => self.grid_ui(ui, textures, commands, &mut intents),
                    ResultsLayout::Table => self.table_ui(ui, textures, commands, &mut intents),
                }
            }
        }
        intents
    }

    fn toolbar_ui(
        &mut self,
        ui: &mut egui::Ui,
        commands: &mut CommandQueue,
        intents: &mut Vec<ResultsIntent>,
    ) {
        ui.horizontal(|ui| {
            let shown = self.rows.len();
            let count = match self.total_results {
                Some(total) if total > shown as i64 => format!(
                    "{} of {} results",
                    thousands(shown as u64),
                    thousands(total.max(0) as u64)
                ),
                _ if shown == 1 => "1 result".to_owned(),
                _ => format!("{} results", thousands(shown as u64)),
            };
            ui.strong(count);
            ui.separator();
            let mut layout = self.layout;
            ui.selectable_value(&mut layout, ResultsLayout::Grid, "Grid");
            ui.selectable_value(&mut layout, ResultsLayout::Table, "Table");
            self.layout = layout;
            ui.separator();
            let mut chosen = None;
            let sort_label = ui.label("Sort by");
            egui::ComboBox::from_id_salt("results sort")
                .selected_text(self.sort.column.label())
                .show_ui(ui, |ui| {
                    let mut columns = vec![SortColumn::Rank, SortColumn::Score, SortColumn::Name];
                    columns.extend(
                        self.attribute_columns
                            .iter()
                            .map(|name| SortColumn::Attribute(name.clone())),
                    );
                    for column in columns {
                        let selected = self.sort.column == column;
                        if ui.selectable_label(selected, column.label()).clicked() {
                            chosen = Some(column);
                        }
                    }
                })
                .response
                .labelled_by(sort_label.id);
            if let Some(column) = chosen
                && column != self.sort.column
            {
                self.sort_by(column);
            }
            let direction = if self.sort.descending {
                "High to low"
            } else {
                "Low to high"
            };
            if ui
                .button(direction)
                .on_hover_text("Reverse the order")
                .clicked()
            {
                let mut sort = self.sort.clone();
                sort.descending = !sort.descending;
                self.set_sort(sort);
            }
            if self.sort != SortOrder::default() {
                ui.colored_label(super::theme::warning_color(ui), "Sorted by hand")
                    .on_hover_text("Not the order of the best match first.");
                if ui.button("Best match first").clicked() {
                    self.set_sort(SortOrder::default());
                }
            }
            ui.separator();
            if ui.button("Export CSV…").clicked() {
                match self.csv() {
                    Ok(csv) => commands.backend(Command::ExportCsv {
                        suggested_name: "search-results.csv".to_owned(),
                        csv,
                    }),
                    Err(error) => {
                        self.notice = Some(format!("The list could not be written as CSV: {error}"))
                    }
                }
            }
            ui.separator();
            let ticked = self.selected.len();
            let compare = ui
                .add_enabled(
                    ticked >= 2,
                    egui::Button::new(format!("Compare ({ticked})")),
                )
                .on_hover_text("Compare the ticked results side by side")
                .on_disabled_hover_text("Tick two or more results to compare them");
            if compare.clicked() {
                intents.push(ResultsIntent::Compare(self.selected_rows()));
            }
            if ticked > 0 && ui.button("Clear selection").clicked() {
                self.selected.clear();
            }
        });
        if let Some(notice) = &self.notice {
            ui.label(notice);
        }
    }
}

/// A centred state message: a headline, a sentence, and a spinner while loading.
pub(crate) fn state_message_ui(
    ui: &mut egui::Ui,
    headline: &str,
    sentence: &str,
    spinner: Option<()>,
) {
    ui.add_space(ui.available_height().min(400.0) * 0.25);
    ui.vertical_centered(|ui| {
        if spinner.is_some() {
            ui.spinner();
        }
        ui.heading(headline);
        ui.label(sentence);
        ui.add_space(8.0);
    });
}

/// Makes a card or table row the button that opens its result ("Open {name}" to assistive
/// technology and tests) and opens it when clicked.
pub(crate) fn opens_detail(
    response: &egui::Response,
    row: &ResultRow,
    intents: &mut Vec<ResultsIntent>,
) {
    // A table row's response is the union of its cells', which egui_extras makes reach past the
    // last cell in left-to-right cells: the part that can be clicked is what the row shows.
    let response = response.clone().with_new_rect(response.interact_rect);
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Button, true, format!("Open {}", row.name))
    });
    if response.clicked() {
        intents.push(ResultsIntent::OpenDetail(row.uid.clone()));
    }
}

/// Ticks `uid` in `selected`, or unticks it; at most [`MAX_COMPARED`] are ticked.
fn toggle(selected: &mut Vec<FileUid>, uid: &FileUid) {
    let canonical = uid.canonical();
    if let Some(index) = selected
        .iter()
        .position(|ticked| ticked.canonical() == canonical)
    {
        selected.remove(index);
    } else if selected.len() < MAX_COMPARED {
        selected.push(uid.clone());
    }
}

/// The checkbox that ticks a result for comparison (grid and table): "Compare {name}" to assistive
/// technology and tests; disabled when [`MAX_COMPARED`] others are ticked.
fn compare_checkbox_ui(ui: &mut egui::Ui, row: &ResultRow, selected: &mut Vec<FileUid>) {
    let canonical = row.uid.canonical();
    let mut ticked = selected.iter().any(|uid| uid.canonical() == canonical);
    let enabled = ticked || selected.len() < MAX_COMPARED;
    let response = ui
        .add_enabled(enabled, egui::Checkbox::without_text(&mut ticked))
        .on_hover_text("Tick to compare")
        .on_disabled_hover_text(format!("At most {MAX_COMPARED} results can be compared"));
    let name = row.name.clone();
    let shown = ticked;
    response.widget_info(|| {
        egui::WidgetInfo::selected(
            egui::Role::CheckBox,
            enabled,
            shown,
            format!("Compare {name}"),
        )
    });
    if response.changed() {
        toggle(selected, &row.uid);
    }
}

/// "More like this" under a result (grid and table), disabled when the result has no image.
pub(crate) fn more_like_this_button_ui(
    ui: &mut egui::Ui,
    row: &ResultRow,
    intents: &mut Vec<ResultsIntent>,
) {
    let response = ui
        .add(egui::Button::new("More like this").small())
        .on_hover_text(more_like_this_hint(&row.file_name));
    if response.clicked() {
        intents.push(ResultsIntent::MoreLikeThis {
            uid: row.uid.clone(),
            file_name: row.file_name.clone(),
        });
    }
}

/// What *More like this* does for the file stored as `file_name`, in words for its tooltip: the
/// file itself is searched by, as what it is.
pub fn more_like_this_hint(file_name: &str) -> String {
    let what = match crate::ui::search_bar::ViewKind::of_name(file_name) {
        crate::ui::search_bar::ViewKind::Model => "model (model to model)",
        crate::ui::search_bar::ViewKind::Drawing => "drawing",
        crate::ui::search_bar::ViewKind::Image => "picture",
    };
    format!("Search by this {what} itself, as stored in the library; nothing is uploaded")
}

/// The score with its band, coloured by the band (grid and table).
fn score_label_ui(ui: &mut egui::Ui, row: &ResultRow) {
    let Some(band) = row.band() else {
        ui.add(egui::Label::new(egui::RichText::new("no score").weak()).selectable(false));
        return;
    };
    let color = match band {
        ScoreBand::Identical => Color32::from_rgb(0x2e, 0x9e, 0x4f),
        ScoreBand::VerySimilar => Color32::from_rgb(0x3b, 0x82, 0xc4),
        ScoreBand::Similar => ui.visuals().text_color(),
        ScoreBand::Weak => ui.visuals().weak_text_color(),
    };
    // Not selectable: a click on the score opens the result like the rest of its row or card.
    ui.add(egui::Label::new(egui::RichText::new(row.score_text()).color(color)).selectable(false));
}

/// Paints a result's thumbnail fitted into `rect` (grid and table), or a placeholder that says why
/// there is none. An image not in the cache yet is asked for once.
pub(crate) fn thumbnail_ui(
    ui: &egui::Ui,
    rect: Rect,
    row: &ResultRow,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
) {
    let url = row.thumbnail_url.trim();
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let placeholder = |text: &str| paint_caption(ui, &painter, rect, text, 11.0);
    if url.is_empty() {
        placeholder("no image");
        return;
    }
    let request = ImageRequest::thumbnail(&row.thumbnail_url).of_record(row.uid.clone());
    match picture(textures, request, commands) {
        Picture::Ready(texture) => paint_fitted(&painter, rect, texture),
        Picture::Loading => placeholder("loading image…"),
        Picture::Failed(_) => placeholder("image unavailable"),
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;

    pub(super) fn uid(n: usize) -> FileUid {
        FileUid::from_reply(&format!("00000000-0000-4000-8000-{n:012}"))
    }

    pub(super) fn row(
        rank: usize,
        name: &str,
        score: Option<f64>,
        attributes: &[&str],
    ) -> ResultRow {
        ResultRow {
            rank,
            uid: uid(rank),
            name: name.to_owned(),
            file_name: format!("Parts/{name}.png"),
            score,
            query_kind: calibration::QueryKind::PictureToPicture,
            below_best: 0.0,
            thumbnail_url: format!("http://127.0.0.1:9/thumb/{rank}.png"),
            large_image_url: format!("http://127.0.0.1:9/large/{rank}.png"),
            attributes: attributes
                .iter()
                .map(|text| Attribute::parse(text).unwrap())
                .collect(),
            found_on_page: None,
            relations: Default::default(),
            mirrored: false,
        }
    }

    pub(super) fn sample_rows() -> Vec<ResultRow> {
        vec![
            row(
                1,
                "Bracket B",
                Some(0.99),
                &["material=steel", "weight(kg)=12.5"],
            ),
            row(
                2,
                "angle plate",
                Some(0.93),
                &["material=aluminium", "weight(kg)=3"],
            ),
            row(3, "Cover", Some(0.42), &["material=steel", "region=EU|US"]),
        ]
    }

    pub(super) type Fixture = view_harness::Fixture<ResultsView, ResultsIntent>;

    pub(super) fn harness(view: ResultsView) -> Harness<'static, Fixture> {
        view_harness::harness(view, [1000.0, 700.0], 1 << 24, ResultsView::ui)
    }

    /// A harness showing the sample rows in `layout`, after its first frames.
    pub(super) fn sample_harness(layout: ResultsLayout) -> Harness<'static, Fixture> {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        view.set_layout(layout);
        let mut harness = harness(view);
        harness.run();
        harness
    }

    #[test]
    fn csv_lists_rows_in_display_order_with_attribute_columns() {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        view.sort_by(SortColumn::Name);
        let csv = view.csv().unwrap();
        assert_eq!(
            csv,
            "rank,name,file name,uid,score,band,material,region,weight(kg)\n\
             2,angle plate,Parts/angle plate.png,00000000-0000-4000-8000-000000000002,0.9300,very similar,aluminium,,3\n\
             1,Bracket B,Parts/Bracket B.png,00000000-0000-4000-8000-000000000001,0.9900,identical,steel,,12.5\n\
             3,Cover,Parts/Cover.png,00000000-0000-4000-8000-000000000003,0.4200,weak match,steel,EU|US,\n"
        );
    }

    #[test]
    fn the_layout_toggle_switches_to_the_table() {
        let mut harness = sample_harness(ResultsLayout::Grid);
        harness.get_by_label("Table").click();
        harness.run();
        assert_eq!(harness.state().view.layout(), ResultsLayout::Table);
        harness.get_by_label("Actions");
    }

    #[test]
    fn export_hands_the_csv_text_to_the_app() {
        let mut harness = sample_harness(ResultsLayout::Grid);
        harness.get_by_label("Export CSV…").click();
        harness.run();
        let Some(Command::ExportCsv { csv, .. }) = harness
            .state()
            .commands
            .iter()
            .find(|command| matches!(command, Command::ExportCsv { .. }))
        else {
            panic!("no export command");
        };
        assert_eq!(csv.lines().count(), 4);
    }

    #[test]
    fn empty_and_error_states_say_what_to_do() {
        let mut harness = harness(ResultsView::new());
        harness.run();
        harness.get_by_label("Add views…").click();
        harness.run();
        assert_eq!(harness.state().commands, [Command::PickViews]);

        harness.state_mut().view.set_results(Vec::new(), Some(0));
        harness.run();
        harness.get_by_label("No part matched.");
        harness.get_by_label("Clear filters").click();
        harness.run();
        assert_eq!(
            harness.state().intents.last(),
            Some(&ResultsIntent::ClearFilters)
        );

        harness.state_mut().view.set_failed(
            "View 1 (empty.png) could not be indexed: the picture is empty; try another file.",
            false,
        );
        harness.run();
        assert!(harness.query_by_label("Try again").is_none());
        harness.get_by_label("Add views…");

        harness.state_mut().view.set_failed(
            "Could not reach the service: connection refused. Check the address in Settings.",
            true,
        );
        harness.run();
        harness.get_by_label_contains("connection refused");
        harness.get_by_label("Try again").click();
        harness.run();
        assert_eq!(
            harness.state().intents.last(),
            Some(&ResultsIntent::RetrySearch)
        );
    }

    #[test]
    fn the_loading_state_offers_cancel() {
        let mut view = ResultsView::new();
        view.set_loading("Uploading view 1 of 2…");
        let mut harness = harness(view);
        // The spinner keeps repainting, so step rather than run to rest.
        harness.run_steps(2);
        harness.get_by_label("Uploading view 1 of 2…");
        harness.get_by_label("Cancel search").click();
        harness.run_steps(2);
        assert!(
            harness
                .state()
                .intents
                .contains(&ResultsIntent::CancelSearch)
        );
    }
}
