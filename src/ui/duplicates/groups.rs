//! The duplicate groups as plain data for drawing: each group's score and its files as result rows
//! (what the thumbnails and the compare page take) with the card's line of format and size, and
//! where each file's record (its picture links and attributes, loaded after the groups) is. No egui
//! here.

use crate::ui::results::ResultRow;
use crate::ui::results::calibration::QueryKind;
use partlens_api::model::title_of;
use partlens_api::{FileMap, FileUid, RelationCounts};
use partlens_tasks::duplicates::{DuplicatePartFile, DuplicatePartGroup};

/// One group as the place shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCard {
    /// The weakest pair score that joined the group (0..1).
    pub score: f64,
    /// Its files, in the service's order.
    pub files: Vec<FileCard>,
}

/// One file of a group.
#[derive(Clone, Debug, PartialEq)]
pub struct FileCard {
    /// The file as a result row (thumbnail and image links from its record, the group's score).
    pub row: ResultRow,
    /// Its format in capitals, from its name ("STEP", "STL", "PNG").
    pub format: String,
    /// Its size in millimetres, smallest extent first ("6.8 × 13.0 × 14.4 mm"), or words saying
    /// it has none.
    pub size: String,
    /// Where its record is: the groups come without, the place asks for those it shows.
    pub record: RecordState,
}

/// Where a file's record is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordState {
    /// Not asked for yet.
    #[default]
    NotAsked,
    /// Asked for; the card shows a placeholder.
    Asked,
    /// Answered (the row holds what it gave; nothing when it could not be loaded).
    Answered,
}

impl GroupCard {
    /// The card of a group found by the task layer.
    pub fn from_group(group: &DuplicatePartGroup) -> Self {
        Self {
            score: group.score,
            files: group
                .files
                .iter()
                .enumerate()
                .map(|(index, file)| FileCard::from_file(index + 1, file, group.score))
                .collect(),
        }
    }

    /// The group's files as rows, for the compare page.
    pub fn rows(&self) -> Vec<ResultRow> {
        self.files.iter().map(|file| file.row.clone()).collect()
    }

    /// The score as people read it ("score 0.962").
    pub fn score_text(&self) -> String {
        format!("score {:.3}", self.score)
    }
}

impl FileCard {
    /// The card of `file`, at position `rank` (from 1) of a group joined at `score`; its record
    /// is answered when `file` holds one.
    pub fn from_file(rank: usize, file: &DuplicatePartFile, score: f64) -> Self {
        let duplicate = &file.file;
        let row = ResultRow {
            rank,
            uid: FileUid::from_reply(&duplicate.uid),
            name: title_of(&duplicate.display_name, &duplicate.file_name).to_owned(),
            file_name: duplicate.file_name.clone(),
            score: Some(score),
            query_kind: QueryKind::Mixed,
            below_best: 0.0,
            thumbnail_url: String::new(),
            large_image_url: String::new(),
            attributes: Vec::new(),
            found_on_page: None,
            relations: RelationCounts::default(),
            mirrored: false,
        };
        let mut card = Self {
            row,
            format: String::new(),
            size: size_text(&duplicate.size_mm),
            record: RecordState::NotAsked,
        };
        if let Some(record) = &file.record {
            card.take_record(Some(record));
        }
        card.format = format_of(&card.row.file_name);
        card
    }

    /// Takes the file's record (`None`: it could not be loaded): its picture links, attributes
    /// and relations, and its stored name when the group gave none.
    pub fn take_record(&mut self, record: Option<&FileMap>) {
        self.record = RecordState::Answered;
        let Some(record) = record else {
            return;
        };
        let row = &mut self.row;
        if row.file_name.is_empty() {
            row.file_name = record.file_name.clone();
            row.name = title_of(&row.name, &row.file_name).to_owned();
            self.format = format_of(&row.file_name);
        }
        row.thumbnail_url = record.thumbnail_url.clone();
        row.large_image_url = record.large_image_url.clone();
        row.attributes = record.parsed_attributes();
        row.relations = RelationCounts {
            components: record.components().len(),
            used_in: record.used_in().len(),
        };
    }

    /// The card's line under the name: format and size.
    pub fn caption(&self) -> String {
        format!("{} · {}", self.format, self.size)
    }
}

/// The format of a stored file name in capitals ("STEP" for `.stp` too, "IGES" for `.igs`).
pub fn format_of(file_name: &str) -> String {
    let extension = file_name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "stp" | "step" => "STEP".to_owned(),
        "igs" | "iges" => "IGES".to_owned(),
        "" => "no format".to_owned(),
        other => other.to_ascii_uppercase(),
    }
}

/// A part's extents in millimetres as people read them, or why there are none.
pub fn size_text(size_mm: &[f64]) -> String {
    if size_mm.is_empty() {
        return "no size (not a model)".to_owned();
    }
    let extents: Vec<String> = size_mm
        .iter()
        .map(|extent| {
            if *extent >= 100.0 {
                format!("{extent:.0}")
            } else {
                format!("{extent:.1}")
            }
        })
        .collect();
    format!("{} mm", extents.join(" × "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_api::FileMap;
    use partlens_api::duplicates::DuplicateFile;

    #[test]
    fn a_file_reads_as_format_and_size_and_takes_its_pictures_from_its_record() {
        let file = DuplicatePartFile {
            file: DuplicateFile {
                uid: "3f2504e0-4f89-41d3-9a0c-0305e82c3301".into(),
                file_name: "parts/nut.stp".into(),
                display_name: String::new(),
                size_mm: vec![6.8, 13.0, 150.0],
            },
            record: Some(FileMap {
                thumbnail_url: "http://127.0.0.1:9/thumb.png".into(),
                attributes: vec!["material=steel".into()],
                ..FileMap::default()
            }),
        };
        let card = FileCard::from_file(1, &file, 0.95);
        assert_eq!(card.caption(), "STEP · 6.8 × 13.0 × 150 mm");
        assert_eq!(card.row.name, "nut.stp");
        assert_eq!(card.row.thumbnail_url, "http://127.0.0.1:9/thumb.png");
        assert_eq!(card.row.attribute_text("material"), "steel");
        assert_eq!(card.row.score, Some(0.95));
        let picture = FileCard::from_file(
            2,
            &DuplicatePartFile {
                file: DuplicateFile {
                    file_name: "views/nut.png".into(),
                    ..DuplicateFile::default()
                },
                record: None,
            },
            0.9,
        );
        assert_eq!(picture.caption(), "PNG · no size (not a model)");
        assert!(picture.row.thumbnail_url.is_empty());
    }
}
