//! The results as plain data: one [`ResultRow`] a result, how similar a score is in words
//! ([`ScoreBand`]), sorting by any column ([`sorted_order`]), the attribute columns, and the CSV
//! text of the list. No egui here; the grid and the table draw these rows.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use super::calibration::{QueryKind, SearchedBy, Thresholds};
use partlens_api::model::picture_url;
use partlens_api::search_options::is_mirrored;
use partlens_api::{Attribute, FileUid, RelationCounts, SearchResult, SearchResultItem};

/// A score at or above this is labelled "identical", whatever was searched.
pub const IDENTICAL_SCORE: f64 = 0.98;

/// How similar a result is, in the words the user reads next to the score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBand {
    /// Score ≥ [`IDENTICAL_SCORE`] and very similar: the same part.
    Identical,
    /// At or above the kind's "very similar" threshold ([`QueryKind::thresholds`]).
    VerySimilar,
    /// At or above the kind's "similar" threshold.
    Similar,
    /// Below it: shares little with the query.
    Weak,
}

impl ScoreBand {
    /// The band of a result with raw `score` in 0..1 read at `evidence`
    /// ([`QueryKind::evidence`](super::calibration::QueryKind::evidence)) for a search of a kind
    /// with these thresholds ("identical" only where the kind's chance is at least "very
    /// similar"'s too).
    pub fn of(score: f64, evidence: f64, thresholds: Thresholds) -> Self {
        if score >= IDENTICAL_SCORE && evidence >= thresholds.very_similar {
            Self::Identical
        } else if evidence >= thresholds.very_similar {
            Self::VerySimilar
        } else if evidence >= thresholds.similar {
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
    /// What kind of search found it (picture → model…): what its score means.
    pub query_kind: QueryKind,
    /// How far its score lies below the best other result of its kind in its search (0 for the
    /// best, never positive): a picture → model result far below its search's best model is less
    /// likely the part ([`QueryKind::evidence`]).
    pub below_best: f64,
    /// Thumbnail URL, used exactly as given.
    pub thumbnail_url: String,
    /// Large-image URL, used exactly as given.
    pub large_image_url: String,
    /// The result's attributes.
    pub attributes: Vec<Attribute>,
    /// The page of a drawing the search found it on (the result's `Page`, from 1), when it says.
    pub found_on_page: Option<u32>,
    /// How many components it has and how many assemblies use it (the card's badge).
    pub relations: RelationCounts,
    /// It is the mirror image of the model searched by (the result's `Mirrored`).
    pub mirrored: bool,
}

impl ResultRow {
    /// Builds a row from a result item at position `rank` (from 1), found by a search by `query`
    /// views (`None` for a search by text and attributes only).
    pub fn from_item(rank: usize, item: &SearchResultItem, query: Option<SearchedBy>) -> Self {
        Self {
            rank,
            uid: item.file_uid(),
            name: item.title().to_owned(),
            file_name: item.file_name.clone(),
            score: item.score,
            query_kind: query.map_or(QueryKind::Mixed, |query| {
                QueryKind::between(query, &item.file_name)
            }),
            below_best: 0.0,
            thumbnail_url: item.thumbnail_url.clone(),
            large_image_url: item.large_image_url.clone(),
            attributes: item.parsed_attributes(),
            found_on_page: item
                .extra
                .get("Page")
                .and_then(serde_json::Value::as_u64)
                .and_then(|page| u32::try_from(page).ok())
                .filter(|page| *page > 0),
            relations: item.relation_counts(),
            mirrored: is_mirrored(item),
        }
    }

    /// The band of the score, if there is a score.
    pub fn band(&self) -> Option<ScoreBand> {
        let thresholds = self.query_kind.thresholds();
        self.score
            .map(|score| ScoreBand::of(score, self.evidence(score), thresholds))
    }

    /// The calibrated chance (0–1) that this result is the same part as the query, if there is a
    /// score: one scale for every kind of search ([`QueryKind::same_part_chance`]), read from its
    /// score and how far it lies below its search's best ([`ResultRow::below_best`]).
    pub fn same_part_chance(&self) -> Option<f64> {
        self.score
            .map(|score| self.query_kind.same_part_chance(self.evidence(score)))
    }

    /// Where its kind's curve is read for a raw `score` of this row.
    fn evidence(&self, score: f64) -> f64 {
        self.query_kind.evidence(score, self.below_best)
    }

    /// "92 % · very similar" (the chance of being the same part and its label; "· mirrored" after
    /// it for the mirror image of the model searched by), or an empty string without a score. The
    /// raw score is in the detail and the CSV.
    pub fn score_text(&self) -> String {
        match (self.same_part_chance(), self.band()) {
            (Some(chance), Some(band)) => {
                let mirrored = if self.mirrored { " · mirrored" } else { "" };
                format!("{:.0} % · {}{mirrored}", chance * 100.0, band.label())
            }
            _ => String::new(),
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
        picture_url(&self.large_image_url, &self.thumbnail_url)
    }
}

/// The rows of a search result, in the service's order; `query` is what the search's views are
/// (`None` for a search by text and attributes only).
///
/// With scores, the best match is the most likely to be the same part: the rows are ranked by their
/// calibrated chance ([`ResultRow::same_part_chance`]), ties (and rows without a score) kept in the
/// service's order, because each kind's raw scores live in ranges of their own.
pub fn rows_from_result(result: &SearchResult, query: Option<SearchedBy>) -> Vec<ResultRow> {
    let mut rows: Vec<ResultRow> = result
        .results
        .iter()
        .enumerate()
        .map(|(index, item)| ResultRow::from_item(index + 1, item, query))
        .collect();
    set_below_best(&mut rows);
    if query.is_some() {
        // Stable: equal chances keep the service's order.
        rows.sort_by(|a, b| {
            let chance = |row: &ResultRow| row.same_part_chance().unwrap_or(-1.0);
            chance(b).total_cmp(&chance(a))
        });
        for (index, row) in rows.iter_mut().enumerate() {
            row.rank = index + 1;
        }
    }
    rows
}

/// Sets each scored row's [`ResultRow::below_best`]: its score less the best score of the rows of
/// its kind (the best other row's for every row but the best, whose shortfall is 0).
fn set_below_best(rows: &mut [ResultRow]) {
    let mut best: Vec<(QueryKind, f64)> = Vec::new();
    for row in rows.iter() {
        let Some(score) = row.score.filter(|score| score.is_finite()) else {
            continue;
        };
        match best.iter_mut().find(|(kind, _)| *kind == row.query_kind) {
            Some((_, best)) => *best = best.max(score),
            None => best.push((row.query_kind, score)),
        }
    }
    for row in rows.iter_mut() {
        let Some(score) = row.score.filter(|score| score.is_finite()) else {
            continue;
        };
        if let Some(&(_, best)) = best.iter().find(|(kind, _)| *kind == row.query_kind) {
            row.below_best = (score - best).min(0.0);
        }
    }
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
            Self::Score => "Same part".to_owned(),
            Self::Name => "Name".to_owned(),
            Self::Attribute(name) => name.clone(),
        }
    }

    /// The direction a first click sorts in: scores high to low, the rest in reading order.
    pub(super) fn first_direction_descending(&self) -> bool {
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
            SortColumn::Score => match (a.same_part_chance(), b.same_part_chance()) {
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
    use super::*;
    use crate::ui::results::calibration::{BELOW_BEST_WEIGHT, CHANCE_AT_VERY_SIMILAR};
    use crate::ui::results::tests::{row, sample_rows};
    use crate::ui::search_bar::ViewKind;

    #[test]
    fn a_result_found_on_a_later_page_says_which() {
        let item: SearchResultItem = serde_json::from_value(serde_json::json!({
            "UID": "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
            "FileName": "Drawings/three-pages.pdf",
            "Score": 0.9,
            "Page": 3,
        }))
        .unwrap();
        assert_eq!(ResultRow::from_item(1, &item, None).found_on_page, Some(3));
        for page in [
            serde_json::json!(0),
            serde_json::json!("3"),
            serde_json::Value::Null,
        ] {
            let mut other = item.clone();
            other.extra.insert("Page".into(), page);
            assert_eq!(ResultRow::from_item(1, &other, None).found_on_page, None);
        }
    }

    #[test]
    fn bands_follow_the_thresholds() {
        let thresholds = Thresholds {
            very_similar: 0.85,
            similar: 0.70,
        };
        let band = |score| ScoreBand::of(score, score, thresholds);
        assert_eq!(band(1.0), ScoreBand::Identical);
        assert_eq!(band(0.98), ScoreBand::Identical);
        assert_eq!(band(0.9799), ScoreBand::VerySimilar);
        assert_eq!(band(0.85), ScoreBand::VerySimilar);
        assert_eq!(band(0.8499), ScoreBand::Similar);
        assert_eq!(band(0.70), ScoreBand::Similar);
        assert_eq!(band(0.6999), ScoreBand::Weak);
        assert_eq!(band(0.0), ScoreBand::Weak);
        assert_eq!(ScoreBand::Weak.label(), "weak match");
        assert_eq!(row(1, "x", None, &[]).score_text(), "");
    }

    #[test]
    fn a_score_is_labelled_by_the_chance_its_kind_of_search_gives_it() {
        let mut sample = row(1, "x", Some(0.9), &[]);
        for kind in [
            QueryKind::PictureToPicture,
            QueryKind::PictureToModel,
            QueryKind::SketchToModel,
            QueryKind::ModelToModel,
            QueryKind::DrawingToDrawing,
            QueryKind::Mixed,
        ] {
            sample.query_kind = kind;
            for step in 0..=1000 {
                let score = f64::from(step) / 1000.0;
                sample.score = Some(score);
                let chance = kind.same_part_chance(score);
                // Away from the boundaries (where rounding decides), the label follows the chance.
                if [0.5, 0.9].iter().any(|at| (chance - at).abs() < 1e-6) {
                    continue;
                }
                let strong = matches!(
                    sample.band(),
                    Some(ScoreBand::VerySimilar | ScoreBand::Identical)
                );
                assert_eq!(strong, chance >= 0.9, "{kind:?} at {score}: {chance}");
                let weak = sample.band() == Some(ScoreBand::Weak);
                assert_eq!(weak, chance < 0.5, "{kind:?} at {score}: {chance}");
            }
        }
        // "Identical" only where the chance is "very similar"'s too.
        let never = Thresholds {
            very_similar: 1.01,
            similar: 0.9,
        };
        assert_eq!(ScoreBand::of(0.99, 0.99, never), ScoreBand::Similar);
        // Nor where the evidence is below "very similar" though the raw score is high.
        assert_eq!(
            ScoreBand::of(0.99, 0.80, thresholds_of_example()),
            ScoreBand::Similar
        );
        // The kind comes from the search's views and the result's file.
        let item: SearchResultItem = serde_json::from_value(
            serde_json::json!({"UID": "u", "FileName": "Parts/a.step", "Score": 0.8}),
        )
        .unwrap();
        assert_eq!(
            ResultRow::from_item(1, &item, Some(ViewKind::Image.into())).query_kind,
            QueryKind::PictureToModel
        );
        // A search by sketches from the pad is labelled by the sketch curve.
        let sketched = SearchedBy {
            kind: ViewKind::Image,
            sketched: true,
        };
        assert_eq!(
            ResultRow::from_item(1, &item, Some(sketched)).query_kind,
            QueryKind::SketchToModel
        );
        assert_eq!(
            ResultRow::from_item(1, &item, None).query_kind,
            QueryKind::Mixed
        );
    }

    fn thresholds_of_example() -> Thresholds {
        Thresholds {
            very_similar: 0.85,
            similar: 0.70,
        }
    }

    #[test]
    fn a_model_far_below_its_searchs_best_model_is_less_likely_the_part_and_the_best_keeps_its_score()
     {
        // A search by a photo: two models and a picture, in the service's order.
        let result: SearchResult = serde_json::from_value(serde_json::json!({
            "InputFileUID": "a",
            "TotalResults": 3,
            "ResultsList": [
                {"UID": "m1", "FileName": "Parts/flange.step", "Score": 0.975},
                {"UID": "p1", "FileName": "Parts/flange.png", "Score": 0.90},
                {"UID": "m2", "FileName": "Parts/washer.step", "Score": 0.96},
            ],
        }))
        .unwrap();
        let rows = rows_from_result(&result, Some(ViewKind::Image.into()));
        let by_name = |name: &str| {
            rows.iter()
                .find(|row| row.file_name.contains(name))
                .unwrap()
        };
        let (best, below, picture) = (by_name("flange.step"), by_name("washer"), by_name("png"));
        assert_eq!(best.below_best, 0.0);
        assert!(
            (below.below_best + 0.015).abs() < 1e-9,
            "{}",
            below.below_best
        );
        // Another kind's best does not count: the picture is the best of its kind.
        assert_eq!(picture.below_best, 0.0);
        let curve = QueryKind::PictureToModel;
        assert_eq!(best.same_part_chance(), Some(curve.same_part_chance(0.975)));
        let alone = curve.same_part_chance(0.96);
        let shown = below.same_part_chance().unwrap();
        assert!(shown < alone - 0.2, "{shown} against {alone} alone");
        assert_eq!(
            shown,
            curve.same_part_chance(0.96 - BELOW_BEST_WEIGHT * 0.015)
        );
        // Its label follows the chance shown, not its score alone.
        assert!(alone >= CHANCE_AT_VERY_SIMILAR, "{alone}");
        assert!(
            !matches!(
                below.band(),
                Some(ScoreBand::VerySimilar | ScoreBand::Identical)
            ),
            "{:?}",
            below.band()
        );
        // Other kinds read their curve at the score alone, however far below their best.
        for kind in [QueryKind::PictureToPicture, QueryKind::ModelToModel] {
            assert_eq!(kind.evidence(0.9, -0.05), 0.9);
        }
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
        let rows = rows_from_result(&result, None);
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
}
