//! The results of a search: a virtualised grid of cards and a sortable table over a plain model
//! ([`ResultRow`]), with empty, loading and error states, "More like this", and CSV export.
//!
//! The view never touches the backend: [`ResultsView::ui`] returns [`ResultsIntent`]s (open a
//! result, search by it, export, fetch a thumbnail) for the app to carry out. Only the rows on screen
//! are laid out (`ScrollArea::show_rows`, `TableBuilder` `body.rows`), and sorting happens when the
//! sort changes, never per frame, so a frame costs the same for 100 or 10,000 results.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use egui::{Align, Align2, Color32, FontId, Layout, Rect, Sense, UiBuilder, Vec2};
use egui_extras::{Column, TableBuilder};

use super::texture_cache::{Lookup, TextureCache};
use crate::api::{Attribute, FileUid, SearchResult, SearchResultItem};

/// A score at or above this is labelled "identical".
pub const IDENTICAL_SCORE: f64 = 0.98;

/// A score at or above this (and below [`IDENTICAL_SCORE`]) is labelled "very similar".
///
/// Calibrated on the sample library with the local engine: other pictures of the same part score
/// 0.81–0.97, different parts at most about 0.76 (a washer against a flange).
pub const VERY_SIMILAR_SCORE: f64 = 0.85;

/// A score at or above this (and below [`VERY_SIMILAR_SCORE`]) is labelled "similar"; below it a
/// result is a weak match, shown so that nothing is hidden but not called similar.
pub const SIMILAR_SCORE: f64 = 0.70;

/// Width of a card in the grid, in points.
pub const CARD_WIDTH: f32 = 196.0;

/// Height of a card in the grid, in points.
pub const CARD_HEIGHT: f32 = 244.0;

/// Height of the thumbnail area of a card.
const CARD_THUMBNAIL_HEIGHT: f32 = 128.0;

/// Height of a table row (fits a small thumbnail).
pub const TABLE_ROW_HEIGHT: f32 = 36.0;

/// How many attributes a card shows.
pub const CARD_ATTRIBUTES: usize = 2;

/// How similar a result is, in the words the user reads next to the score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBand {
    /// Score ≥ 0.98: the same part.
    Identical,
    /// Score ≥ 0.85.
    VerySimilar,
    /// Score ≥ 0.70.
    Similar,
    /// Below 0.70: shares little with the query.
    Weak,
}

impl ScoreBand {
    /// The band of a score in 0..1.
    pub fn of(score: f64) -> Self {
        if score >= IDENTICAL_SCORE {
            Self::Identical
        } else if score >= VERY_SIMILAR_SCORE {
            Self::VerySimilar
        } else if score >= SIMILAR_SCORE {
            Self::Similar
        } else {
            Self::Weak
        }
    }

    /// The label shown next to the score.
    pub fn label(self) -> &'static str {
        match self {
            Self::Identical => "identical",
            Self::VerySimilar => "very similar",
            Self::Similar => "similar",
            Self::Weak => "weak match",
        }
    }
}

/// One result as the views show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    /// Position in the service's order, from 1 (best match first).
    pub rank: usize,
    /// UID of the matching file.
    pub uid: FileUid,
    /// The name to show.
    pub name: String,
    /// The stored file name.
    pub file_name: String,
    /// Similarity in 0..1, when the search had views.
    pub score: Option<f64>,
    /// Thumbnail URL, used exactly as given.
    pub thumbnail_url: String,
    /// Large-image URL, used exactly as given.
    pub large_image_url: String,
    /// The result's attributes.
    pub attributes: Vec<Attribute>,
}

impl ResultRow {
    /// Builds a row from a result item at position `rank` (from 1).
    pub fn from_item(rank: usize, item: &SearchResultItem) -> Self {
        Self {
            rank,
            uid: item.file_uid(),
            name: item.title().to_owned(),
            file_name: item.file_name.clone(),
            score: item.score,
            thumbnail_url: item.thumbnail_url.clone(),
            large_image_url: item.large_image_url.clone(),
            attributes: item.parsed_attributes(),
        }
    }

    /// The band of the score, if there is a score.
    pub fn band(&self) -> Option<ScoreBand> {
        self.score.map(ScoreBand::of)
    }

    /// "0.953 · very similar", or an empty string without a score.
    pub fn score_text(&self) -> String {
        match self.score {
            Some(score) => format!("{score:.3} · {}", ScoreBand::of(score).label()),
            None => String::new(),
        }
    }

    /// The attribute with this wire name (`weight(kg)`), compared without regard to case.
    pub fn attribute(&self, wire_name: &str) -> Option<&Attribute> {
        self.attributes
            .iter()
            .find(|attribute| attribute.wire_name().eq_ignore_ascii_case(wire_name))
    }

    /// The values of an attribute joined for reading (`EU, US`), empty when absent.
    pub fn attribute_text(&self, wire_name: &str) -> String {
        self.attribute(wire_name)
            .map(|attribute| attribute.values.join(", "))
            .unwrap_or_default()
    }

    /// The image to search by for "More like this": the large image, else the thumbnail.
    pub fn search_image_url(&self) -> Option<&str> {
        [&self.large_image_url, &self.thumbnail_url]
            .into_iter()
            .map(|url| url.trim())
            .find(|url| !url.is_empty())
    }
}

/// The rows of a search result, in the service's order.
pub fn rows_from_result(result: &SearchResult) -> Vec<ResultRow> {
    result
        .results
        .iter()
        .enumerate()
        .map(|(index, item)| ResultRow::from_item(index + 1, item))
        .collect()
}

/// What the rows are sorted by.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SortColumn {
    /// The service's order (best match first).
    Rank,
    /// The similarity score.
    Score,
    /// The display name.
    Name,
    /// An attribute, by wire name.
    Attribute(String),
}

impl SortColumn {
    /// The label of the column or sort option.
    pub fn label(&self) -> String {
        match self {
            Self::Rank => "Best match".to_owned(),
            Self::Score => "Score".to_owned(),
            Self::Name => "Name".to_owned(),
            Self::Attribute(name) => name.clone(),
        }
    }

    /// The direction a first click sorts in: scores high to low, the rest in reading order.
    fn first_direction_descending(&self) -> bool {
        matches!(self, Self::Score)
    }
}

/// A sort column and its direction.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SortOrder {
    /// The column.
    pub column: SortColumn,
    /// High to low (Z to A) when true.
    pub descending: bool,
}

impl Default for SortOrder {
    fn default() -> Self {
        Self {
            column: SortColumn::Rank,
            descending: false,
        }
    }
}

/// Compares two attribute texts: as numbers when both are numbers, else as text ignoring case.
fn compare_values(a: &str, b: &str) -> Ordering {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.to_lowercase().cmp(&b.to_lowercase()),
    }
}

/// The display order of `rows` under `sort`: indices into `rows`. Rows without the sorted value come
/// last in either direction; ties keep the service's order, so the order is always the same.
pub fn sorted_order(rows: &[ResultRow], sort: &SortOrder) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let directed = |ordering: Ordering| {
        if sort.descending {
            ordering.reverse()
        } else {
            ordering
        }
    };
    order.sort_by(|&i, &j| {
        let (a, b) = (&rows[i], &rows[j]);
        let by_column = match &sort.column {
            SortColumn::Rank => directed(a.rank.cmp(&b.rank)),
            SortColumn::Score => match (a.score, b.score) {
                (Some(x), Some(y)) => directed(x.total_cmp(&y)),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            SortColumn::Name => directed(
                a.name
                    .to_lowercase()
                    .cmp(&b.name.to_lowercase())
                    .then_with(|| a.name.cmp(&b.name)),
            ),
            SortColumn::Attribute(name) => match (a.attribute(name), b.attribute(name)) {
                (Some(x), Some(y)) => {
                    directed(compare_values(&x.joined_values(), &y.joined_values()))
                }
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
        };
        by_column.then_with(|| a.rank.cmp(&b.rank))
    });
    order
}

/// The attribute names (wire form) found in the rows, sorted without regard to case.
pub fn attribute_names(rows: &[ResultRow]) -> Vec<String> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for row in rows {
        for attribute in &row.attributes {
            let name = attribute.wire_name();
            seen.entry(name.to_lowercase()).or_insert(name);
        }
    }
    seen.into_values().collect()
}

/// The names of the attributes most results carry (most common first, then by name): the ones a card
/// shows.
pub fn key_attribute_names(rows: &[ResultRow], count: usize) -> Vec<String> {
    let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for row in rows {
        let mut names_of_row = BTreeSet::new();
        for attribute in &row.attributes {
            let name = attribute.wire_name();
            if names_of_row.insert(name.to_lowercase()) {
                counts.entry(name.to_lowercase()).or_insert((0, name)).0 += 1;
            }
        }
    }
    let mut ranked: Vec<(usize, String)> = counts.into_values().collect();
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1.to_lowercase().cmp(&b.1.to_lowercase()))
    });
    ranked
        .into_iter()
        .take(count)
        .map(|(_, name)| name)
        .collect()
}

/// The CSV text of `rows` in the given order: rank, name, file name, UID, score, band, then one column
/// per attribute name (values joined with `|`, the interface's own form).
pub fn results_csv<'a>(
    rows: impl IntoIterator<Item = &'a ResultRow>,
    attribute_columns: &[String],
) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "rank".to_owned(),
        "name".to_owned(),
        "file name".to_owned(),
        "uid".to_owned(),
        "score".to_owned(),
        "band".to_owned(),
    ];
    header.extend(attribute_columns.iter().cloned());
    writer.write_record(&header)?;
    for row in rows {
        let mut record = vec![
            row.rank.to_string(),
            row.name.clone(),
            row.file_name.clone(),
            row.uid.to_string(),
            row.score
                .map(|score| format!("{score:.4}"))
                .unwrap_or_default(),
            row.band()
                .map(|band| band.label().to_owned())
                .unwrap_or_default(),
        ];
        record.extend(attribute_columns.iter().map(|name| {
            row.attribute(name)
                .map(Attribute::joined_values)
                .unwrap_or_default()
        }));
        writer.write_record(&record)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|error| csv::Error::from(error.into_error()))?;
    // Every field written is a Rust string, so the bytes are UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

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
    },
    /// Results are in (possibly none).
    Ready,
}

/// What the user asked the results view to do; the app carries it out.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultsIntent {
    /// Open the detail view of a result.
    OpenDetail(FileUid),
    /// Search by this result's image as the single view of a new search.
    MoreLikeThis {
        /// The result's UID.
        uid: FileUid,
        /// Its name, for the view slot.
        name: String,
        /// The image to search by (large image, else thumbnail).
        image_url: String,
    },
    /// Save the CSV text of the list to a file the user picks.
    ExportCsv {
        /// A file name to offer.
        suggested_file_name: String,
        /// The CSV text.
        csv: String,
    },
    /// Fetch a thumbnail: the cache has just marked this URL pending.
    NeedThumbnail {
        /// The thumbnail URL, exactly as the result gave it.
        url: String,
        /// The result's file, to renew the URL when its own token has expired.
        uid: FileUid,
    },
    /// Open the picker to add views to the search.
    PickViews,
    /// Run the last search again.
    RetrySearch,
    /// Stop the running search.
    CancelSearch,
    /// Remove the text and attribute filters (after a search found nothing).
    ClearFilters,
}

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
}

impl ResultsView {
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

    /// Shows the error state; the rows are dropped.
    pub fn set_failed(&mut self, message: impl Into<String>) {
        self.clear_rows();
        self.status = ResultsStatus::Failed {
            message: message.into(),
        };
    }

    /// Shows new results, keeping the chosen sort and layout. `total` is the service's TotalResults.
    pub fn set_results(&mut self, rows: Vec<ResultRow>, total: Option<i64>) {
        self.attribute_columns = attribute_names(&rows);
        self.key_attributes = key_attribute_names(&rows, CARD_ATTRIBUTES);
        if let SortColumn::Attribute(name) = &self.sort.column
            && !self
                .attribute_columns
                .iter()
                .any(|column| column.eq_ignore_ascii_case(name))
        {
            self.sort = SortOrder::default();
        }
        self.rows = rows;
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

    /// Draws the view and returns what the user asked for. Thumbnails come from `textures`; the ones
    /// it does not have yet are returned as [`ResultsIntent::NeedThumbnail`].
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
    ) -> Vec<ResultsIntent> {
        let mut intents = Vec::new();
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
                        intents.push(ResultsIntent::PickViews);
                    }
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
            ResultsStatus::Failed { message } => {
                state_message_ui(ui, "The search failed.", &message, None);
                ui.vertical_centered(|ui| {
                    if ui.button("Try again").clicked() {
                        intents.push(ResultsIntent::RetrySearch);
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
                self.toolbar_ui(ui, &mut intents);
                ui.separator();
                match self.layout {
                    ResultsLayout::Grid => self.grid_ui(ui, textures, &mut intents),
                    ResultsLayout::Table => self.table_ui(ui, textures, &mut intents),
                }
            }
        }
        intents
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, intents: &mut Vec<ResultsIntent>) {
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
            ui.separator();
            if ui.button("Export CSV…").clicked() {
                match self.csv() {
                    Ok(csv) => intents.push(ResultsIntent::ExportCsv {
                        suggested_file_name: "search-results.csv".to_owned(),
                        csv,
                    }),
                    Err(error) => {
                        self.notice = Some(format!("The list could not be written as CSV: {error}"))
                    }
                }
            }
        });
        if let Some(notice) = &self.notice {
            ui.label(notice);
        }
    }

    fn grid_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        intents: &mut Vec<ResultsIntent>,
    ) {
        let spacing = ui.spacing().item_spacing;
        let columns = (((ui.available_width() + spacing.x) / (CARD_WIDTH + spacing.x)).floor()
            as usize)
            .max(1);
        let row_count = self.rows.len().div_ceil(columns);
        egui::ScrollArea::vertical()
            .id_salt("results grid")
            .auto_shrink(false)
            .show_rows(ui, CARD_HEIGHT, row_count, |ui, visible_rows| {
                for grid_row in visible_rows {
                    ui.horizontal(|ui| {
                        let first = grid_row * columns;
                        let last = (first + columns).min(self.order.len());
                        for &index in &self.order[first..last] {
                            let row = &self.rows[index];
                            result_card_ui(ui, row, &self.key_attributes, textures, intents);
                        }
                    });
                }
            });
    }

    fn table_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        intents: &mut Vec<ResultsIntent>,
    ) {
        let mut clicked_column = None;
        let columns = self.attribute_columns.clone();
        let sort = self.sort.clone();
        let rows = &self.rows;
        let order = &self.order;
        egui::ScrollArea::horizontal()
            .id_salt("results table scroll")
            .show(ui, |ui| {
                let mut table = TableBuilder::new(ui)
                    .id_salt("results table")
                    .striped(true)
                    .resizable(true)
                    .sense(Sense::click())
                    .cell_layout(Layout::left_to_right(Align::Center))
                    .column(Column::exact(32.0))
                    .column(Column::exact(TABLE_ROW_HEIGHT + 8.0))
                    .column(Column::initial(220.0).at_least(80.0).clip(true))
                    .column(Column::initial(150.0).at_least(60.0))
                    .columns(
                        Column::initial(120.0).at_least(50.0).clip(true),
                        columns.len(),
                    )
                    .column(Column::exact(120.0));
                table = table.min_scrolled_height(0.0);
                table
                    .header(24.0, |mut header| {
                        header.col(|ui| {
                            sort_header_ui(ui, "#", &SortColumn::Rank, &sort, &mut clicked_column);
                        });
                        header.col(|ui| {
                            ui.label("Image");
                        });
                        header.col(|ui| {
                            sort_header_ui(
                                ui,
                                "Name",
                                &SortColumn::Name,
                                &sort,
                                &mut clicked_column,
                            );
                        });
                        header.col(|ui| {
                            sort_header_ui(
                                ui,
                                "Score",
                                &SortColumn::Score,
                                &sort,
                                &mut clicked_column,
                            );
                        });
                        for name in &columns {
                            header.col(|ui| {
                                sort_header_ui(
                                    ui,
                                    name,
                                    &SortColumn::Attribute(name.clone()),
                                    &sort,
                                    &mut clicked_column,
                                );
                            });
                        }
                        header.col(|ui| {
                            ui.label("Actions");
                        });
                    })
                    .body(|body| {
                        body.rows(TABLE_ROW_HEIGHT, order.len(), |mut table_row| {
                            let row = &rows[order[table_row.index()]];
                            table_row.col(|ui| {
                                ui.label(row.rank.to_string());
                            });
                            table_row.col(|ui| {
                                let (rect, _) = ui.allocate_exact_size(
                                    Vec2::splat(TABLE_ROW_HEIGHT - 4.0),
                                    Sense::hover(),
                                );
                                thumbnail_ui(ui, rect, row, textures, intents);
                            });
                            table_row.col(|ui| {
                                ui.add(egui::Label::new(&row.name).truncate());
                            });
                            table_row.col(|ui| {
                                score_label_ui(ui, row);
                            });
                            for name in &columns {
                                table_row.col(|ui| {
                                    ui.add(egui::Label::new(row.attribute_text(name)).truncate());
                                });
                            }
                            table_row.col(|ui| {
                                more_like_this_button_ui(ui, row, intents);
                            });
                            let response = table_row.response();
                            let name = row.name.clone();
                            response.widget_info(|| {
                                egui::WidgetInfo::labeled(
                                    egui::Role::Button,
                                    true,
                                    format!("Open {name}"),
                                )
                            });
                            if response.clicked() {
                                intents.push(ResultsIntent::OpenDetail(row.uid.clone()));
                            }
                        });
                    });
            });
        if let Some(column) = clicked_column {
            self.sort_by(column);
        }
    }
}

/// A header cell that sorts by its column when clicked; the sorted column gets a small triangle
/// pointing the way of the order (painted: the bundled font has no arrow glyphs).
fn sort_header_ui(
    ui: &mut egui::Ui,
    label: &str,
    column: &SortColumn,
    sort: &SortOrder,
    clicked: &mut Option<SortColumn>,
) {
    let response = ui
        .add(egui::Button::new(egui::RichText::new(label).strong()).frame(false))
        .on_hover_text(format!("Sort by {}", column.label()));
    if &sort.column == column {
        let (rect, _) = ui.allocate_exact_size(Vec2::splat(10.0), Sense::hover());
        direction_triangle(ui, rect, sort.descending);
    }
    if response.clicked() {
        *clicked = Some(column.clone());
    }
}

/// Paints a small triangle: pointing down for high-to-low, up for low-to-high.
fn direction_triangle(ui: &egui::Ui, rect: Rect, descending: bool) {
    let c = rect.center();
    let (w, h) = (4.0, 3.0);
    let points = if descending {
        vec![
            egui::pos2(c.x - w, c.y - h),
            egui::pos2(c.x + w, c.y - h),
            egui::pos2(c.x, c.y + h),
        ]
    } else {
        vec![
            egui::pos2(c.x - w, c.y + h),
            egui::pos2(c.x + w, c.y + h),
            egui::pos2(c.x, c.y - h),
        ]
    };
    ui.painter().add(egui::Shape::convex_polygon(
        points,
        ui.visuals().strong_text_color(),
        egui::Stroke::NONE,
    ));
}

/// A centred state message: a headline, a sentence, and a spinner while loading.
fn state_message_ui(ui: &mut egui::Ui, headline: &str, sentence: &str, spinner: Option<()>) {
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

/// One card of the grid: thumbnail, name, score with band, key attributes, "More like this". A click
/// anywhere else on the card opens the detail view.
fn result_card_ui(
    ui: &mut egui::Ui,
    row: &ResultRow,
    key_attributes: &[String],
    textures: &mut TextureCache<egui::TextureHandle>,
    intents: &mut Vec<ResultsIntent>,
) {
    // The card's own click area is registered first, so the button drawn on top of it gets its clicks.
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(CARD_WIDTH, CARD_HEIGHT), Sense::click());
    let name = row.name.clone();
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Button, true, format!("Open {name}"))
    });
    if !ui.is_rect_visible(rect) {
        return;
    }
    let visuals = ui.visuals();
    let (fill, stroke) = if response.hovered() {
        (visuals.faint_bg_color, visuals.widgets.hovered.bg_stroke)
    } else {
        (
            visuals.faint_bg_color,
            visuals.widgets.noninteractive.bg_stroke,
        )
    };
    ui.painter()
        .rect(rect, 6.0, fill, stroke, egui::StrokeKind::Inside);

    let inner = rect.shrink(8.0);
    let mut card = ui.new_child(
        UiBuilder::new()
            .max_rect(inner)
            .layout(Layout::top_down(Align::Min)),
    );
    let (thumbnail_rect, _) = card.allocate_exact_size(
        Vec2::new(inner.width(), CARD_THUMBNAIL_HEIGHT),
        Sense::hover(),
    );
    thumbnail_ui(&card, thumbnail_rect, row, textures, intents);
    card.add(egui::Label::new(egui::RichText::new(&row.name).strong()).truncate());
    score_label_ui(&mut card, row);
    for name in key_attributes {
        let value = row.attribute_text(name);
        let text = if value.is_empty() {
            format!("{name}: —")
        } else {
            format!("{name}: {value}")
        };
        card.add(egui::Label::new(egui::RichText::new(text).small()).truncate());
    }
    card.with_layout(Layout::bottom_up(Align::Min), |ui| {
        more_like_this_button_ui(ui, row, intents);
    });
    if response.clicked() {
        intents.push(ResultsIntent::OpenDetail(row.uid.clone()));
    }
}

fn more_like_this_button_ui(ui: &mut egui::Ui, row: &ResultRow, intents: &mut Vec<ResultsIntent>) {
    let image_url = row.search_image_url().map(str::to_owned);
    let response = ui
        .add_enabled(
            image_url.is_some(),
            egui::Button::new("More like this").small(),
        )
        .on_hover_text("Search by this part's image")
        .on_disabled_hover_text("This result has no image to search by");
    if response.clicked()
        && let Some(image_url) = image_url
    {
        intents.push(ResultsIntent::MoreLikeThis {
            uid: row.uid.clone(),
            name: row.name.clone(),
            image_url,
        });
    }
}

fn score_label_ui(ui: &mut egui::Ui, row: &ResultRow) {
    let Some(score) = row.score else {
        ui.weak("no score");
        return;
    };
    let band = ScoreBand::of(score);
    let color = match band {
        ScoreBand::Identical => Color32::from_rgb(0x2e, 0x9e, 0x4f),
        ScoreBand::VerySimilar => Color32::from_rgb(0x3b, 0x82, 0xc4),
        ScoreBand::Similar => ui.visuals().text_color(),
        ScoreBand::Weak => ui.visuals().weak_text_color(),
    };
    ui.label(egui::RichText::new(row.score_text()).color(color));
}

/// Paints a thumbnail fitted into `rect`, or a placeholder that says why there is none. An image not
/// in the cache yet is asked for once ([`ResultsIntent::NeedThumbnail`]).
fn thumbnail_ui(
    ui: &egui::Ui,
    rect: Rect,
    row: &ResultRow,
    textures: &mut TextureCache<egui::TextureHandle>,
    intents: &mut Vec<ResultsIntent>,
) {
    let url = row.thumbnail_url.as_str();
    let painter = ui.painter_at(rect);
    let background = ui.visuals().extreme_bg_color;
    painter.rect_filled(rect, 4.0, background);
    let placeholder = |text: &str| {
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            text,
            FontId::proportional(11.0),
            ui.visuals().weak_text_color(),
        );
    };
    if url.trim().is_empty() {
        placeholder("no image");
        return;
    }
    match textures.request(url) {
        Lookup::Ready(texture) => {
            let size = texture.size_vec2();
            let scale = (rect.width() / size.x).min(rect.height() / size.y);
            let fitted = Rect::from_center_size(rect.center(), size * scale);
            painter.image(
                texture.id(),
                fitted,
                Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        Lookup::Pending => placeholder("loading image…"),
        Lookup::Failed(_) => placeholder("image unavailable"),
        Lookup::NeedsFetch => {
            placeholder("loading image…");
            intents.push(ResultsIntent::NeedThumbnail {
                url: url.to_owned(),
                uid: row.uid.clone(),
            });
        }
    }
}

/// 12345 → "12,345".
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;

    fn uid(n: usize) -> FileUid {
        FileUid::from_reply(&format!("00000000-0000-4000-8000-{n:012}"))
    }

    fn row(rank: usize, name: &str, score: Option<f64>, attributes: &[&str]) -> ResultRow {
        ResultRow {
            rank,
            uid: uid(rank),
            name: name.to_owned(),
            file_name: format!("Parts/{name}.png"),
            score,
            thumbnail_url: format!("http://127.0.0.1:9/thumb/{rank}.png"),
            large_image_url: format!("http://127.0.0.1:9/large/{rank}.png"),
            attributes: attributes
                .iter()
                .map(|text| Attribute::parse(text).unwrap())
                .collect(),
        }
    }

    fn sample_rows() -> Vec<ResultRow> {
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

    type Fixture = view_harness::Fixture<ResultsView, ResultsIntent>;

    fn harness(view: ResultsView) -> Harness<'static, Fixture> {
        view_harness::harness(view, [1000.0, 700.0], 1 << 24, ResultsView::ui)
    }

    #[test]
    fn bands_follow_the_thresholds() {
        assert_eq!(ScoreBand::of(1.0), ScoreBand::Identical);
        assert_eq!(ScoreBand::of(0.98), ScoreBand::Identical);
        assert_eq!(ScoreBand::of(0.9799), ScoreBand::VerySimilar);
        assert_eq!(ScoreBand::of(0.85), ScoreBand::VerySimilar);
        assert_eq!(ScoreBand::of(0.8499), ScoreBand::Similar);
        assert_eq!(ScoreBand::of(0.70), ScoreBand::Similar);
        assert_eq!(ScoreBand::of(0.6999), ScoreBand::Weak);
        assert_eq!(ScoreBand::of(0.0), ScoreBand::Weak);
        assert_eq!(ScoreBand::Weak.label(), "weak match");
        assert_eq!(
            row(1, "x", Some(0.953), &[]).score_text(),
            "0.953 · very similar"
        );
        assert_eq!(row(1, "x", None, &[]).score_text(), "");
    }

    #[test]
    fn rows_come_from_result_items_in_the_service_order() {
        let result: SearchResult = serde_json::from_value(serde_json::json!({
            "InputFileUID": "a",
            "TotalResults": 2,
            "ResultsList": [
                {"UID": "u1", "DisplayName": "first", "Score": 0.5,
                 "ShapeResult": {"Attributes": ["region=EU|US"]}},
                {"UID": "u2", "FileName": "Parts/second.stl", "Score": "0.25"}
            ]
        }))
        .unwrap();
        let rows = rows_from_result(&result);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].rank, 1);
        assert_eq!(rows[0].attribute_text("region"), "EU, US");
        assert_eq!(rows[1].name, "second.stl");
        assert_eq!(rows[1].score, Some(0.25));
    }

    #[test]
    fn sorting_is_deterministic_and_puts_missing_values_last() {
        let mut rows = sample_rows();
        rows.push(row(4, "bracket b", None, &[]));
        let names = |order: Vec<usize>| -> Vec<usize> {
            order.into_iter().map(|index| rows[index].rank).collect()
        };
        let by = |column, descending| SortOrder { column, descending };
        assert_eq!(
            names(sorted_order(&rows, &by(SortColumn::Rank, false))),
            [1, 2, 3, 4]
        );
        assert_eq!(
            names(sorted_order(&rows, &by(SortColumn::Score, true))),
            [1, 2, 3, 4]
        );
        assert_eq!(
            names(sorted_order(&rows, &by(SortColumn::Score, false))),
            [3, 2, 1, 4]
        );
        // Case-insensitive names, ties in the service's order.
        assert_eq!(
            names(sorted_order(&rows, &by(SortColumn::Name, false))),
            [2, 1, 4, 3]
        );
        // Numbers sort as numbers (3 < 12.5), rows without the attribute last either way.
        let weight = SortColumn::Attribute("weight(kg)".into());
        assert_eq!(
            names(sorted_order(&rows, &by(weight.clone(), false))),
            [2, 1, 3, 4]
        );
        assert_eq!(names(sorted_order(&rows, &by(weight, true))), [1, 2, 3, 4]);
    }

    #[test]
    fn key_attributes_are_the_most_common_names() {
        let rows = sample_rows();
        assert_eq!(key_attribute_names(&rows, 2), ["material", "weight(kg)"]);
        assert_eq!(attribute_names(&rows), ["material", "region", "weight(kg)"]);
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
    fn csv_quotes_commas_and_quotes() {
        let rows = vec![row(1, "plate, \"thin\"", None, &["note=a,b"])];
        let csv = results_csv(&rows, &["note".to_owned()]).unwrap();
        assert!(csv.contains("\"plate, \"\"thin\"\"\""), "{csv}");
        assert!(csv.contains("\"a,b\""), "{csv}");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn cards_show_score_band_and_key_attributes() {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label("0.990 · identical");
        harness.get_by_label("0.930 · very similar");
        harness.get_by_label("0.420 · weak match");
        harness.get_by_label("material: aluminium");
        harness.get_by_label("weight(kg): 12.5");
        harness.get_by_label("3 results");
    }

    #[test]
    fn clicking_a_card_opens_it_and_more_like_this_searches_by_its_image() {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label("Open Cover").click();
        harness.run();
        let more = harness.get_all_by_label("More like this").next().unwrap();
        more.click();
        harness.run();
        let intents = &harness.state().intents;
        assert!(intents.contains(&ResultsIntent::OpenDetail(uid(3))));
        assert!(intents.contains(&ResultsIntent::MoreLikeThis {
            uid: uid(1),
            name: "Bracket B".into(),
            image_url: "http://127.0.0.1:9/large/1.png".into(),
        }));
    }

    #[test]
    fn only_visible_cards_ask_for_thumbnails() {
        let rows: Vec<ResultRow> = (1..=1000)
            .map(|rank| row(rank, &format!("part {rank}"), Some(0.5), &[]))
            .collect();
        let mut view = ResultsView::new();
        view.set_results(rows, Some(1000));
        let mut harness = harness(view);
        harness.run();
        let asked = harness
            .state()
            .intents
            .iter()
            .filter(|intent| matches!(intent, ResultsIntent::NeedThumbnail { .. }))
            .count();
        assert!(asked > 0 && asked < 60, "{asked} thumbnails asked for");
        // Each is asked for once, however many frames run.
        harness.run_steps(3);
        let again = harness
            .state()
            .intents
            .iter()
            .filter(|intent| matches!(intent, ResultsIntent::NeedThumbnail { .. }))
            .count();
        assert_eq!(asked, again);
    }

    #[test]
    fn the_table_sorts_by_a_clicked_header() {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        view.set_layout(ResultsLayout::Table);
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label("Name").click();
        harness.run();
        let ranks: Vec<usize> = harness
            .state()
            .view
            .ordered_rows()
            .map(|r| r.rank)
            .collect();
        assert_eq!(ranks, [2, 1, 3]);
        harness.get_by_label("Name").click();
        harness.run();
        let ranks: Vec<usize> = harness
            .state()
            .view
            .ordered_rows()
            .map(|r| r.rank)
            .collect();
        assert_eq!(ranks, [3, 1, 2]);
        harness.get_by_label("weight(kg)").click();
        harness.run();
        let ranks: Vec<usize> = harness
            .state()
            .view
            .ordered_rows()
            .map(|r| r.rank)
            .collect();
        assert_eq!(ranks, [2, 1, 3]);
        harness.get_by_label("Open Cover").click();
        harness.run();
        assert!(
            harness
                .state()
                .intents
                .contains(&ResultsIntent::OpenDetail(uid(3)))
        );
    }

    #[test]
    fn the_layout_toggle_switches_to_the_table() {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label("Table").click();
        harness.run();
        assert_eq!(harness.state().view.layout(), ResultsLayout::Table);
        harness.get_by_label("Actions");
    }

    #[test]
    fn export_hands_the_csv_text_to_the_app() {
        let mut view = ResultsView::new();
        view.set_results(sample_rows(), Some(3));
        let mut harness = harness(view);
        harness.run();
        harness.get_by_label("Export CSV…").click();
        harness.run();
        let Some(ResultsIntent::ExportCsv { csv, .. }) = harness
            .state()
            .intents
            .iter()
            .find(|intent| matches!(intent, ResultsIntent::ExportCsv { .. }))
        else {
            panic!("no export intent");
        };
        assert_eq!(csv.lines().count(), 4);
    }

    #[test]
    fn empty_and_error_states_say_what_to_do() {
        let mut harness = harness(ResultsView::new());
        harness.run();
        harness.get_by_label("Add views…").click();
        harness.run();
        assert_eq!(harness.state().intents, [ResultsIntent::PickViews]);

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
            "Could not reach the service: connection refused. Check the address in Settings.",
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
