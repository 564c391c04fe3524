//! Attributes a drawing states about its part: title-block ATTRIBs by their tag (`PART_NO` →
//! `part_number`), texts of the form `LABEL: value` (`MATERIAL: S235JR` → `material=S235JR`), and
//! title-block cells: a label item (`DWG NO`, `Teil-Nr.`, `Benennung`, `Werkstoff`, `SCALE:` … in
//! English, German and French, [`label_attribute`]) whose value is the nearest item to its right
//! on its row or just below it, as title blocks put them (`title_block_items`).
//! Values are sanitised for the wire: `|` and `,` separate values and attributes there, so they
//! become `/` and `;`. A name found twice keeps each distinct value (`|`-joined, the multi-value form).

use partlens_api::PmiItem;

use super::PmiItemKind;
use super::scene::PlacedText;

/// Longest label read from a `LABEL: value` text, in characters.
const MAX_LABEL_CHARS: usize = 24;
/// Longest value kept, in characters.
const MAX_VALUE_CHARS: usize = 120;

/// The attribute name a title-block tag or label stands for: the common spellings of part number,
/// drawing number, revision, material, scale, title, … map to one name; others are lower-cased with
/// every run of other characters as `_`.
pub fn attribute_name(label: &str) -> Option<String> {
    let mut key = String::new();
    for c in label.trim().chars() {
        if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.ends_with('_') && !key.is_empty() {
            key.push('_');
        }
    }
    let key = key.trim_end_matches('_').to_owned();
    let known = match key.as_str() {
        "part_no" | "part_number" | "partno" | "part_nr" | "pn" | "p_n" | "part" | "item_no" => {
            "part_number"
        }
        "dwg_no" | "dwg_nr" | "dwgno" | "drawing_no" | "drawing_number" | "drawing_nr"
        | "dwg_number" | "drawing" | "dwg" => "drawing_number",
        "rev" | "revision" | "rev_no" | "revision_no" => "revision",
        "material" | "mat" | "matl" | "material_spec" => "material",
        "scale" => "scale",
        "title" | "description" | "desc" | "name" | "part_name" => "title",
        "sheet" | "sheet_no" => "sheet",
        "drawn" | "drawn_by" | "author" => "drawn_by",
        "date" => "date",
        "finish" | "surface_finish" => "finish",
        "weight" | "mass" => "mass",
        "" => return None,
        other => other,
    };
    Some(known.to_owned())
}

/// The attribute a title-block label word stands for (English, German, French; case, a trailing
/// colon or full stop and spacing ignored): `PART NO` / `Teil-Nr.` → `part_number`, `DWG NO` /
/// `FILE NO` / `Zeichnungsnummer` → `drawing_number`, `TITLE` / `Benennung` → `title`, `MATERIAL` /
/// `Werkstoff` → `material`, `REV` → `revision`, `SCALE` / `Maßstab` → `scale`, `MASS` / `Gewicht` →
/// `mass`, `DRAWN` / `DWN` / `Gezeichnet` → `drawn_by`, `DATE` / `Datum` → `date`.
pub fn label_attribute(text: &str) -> Option<&'static str> {
    let key: String = text
        .trim()
        .trim_end_matches([':', '.', ' '])
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '_' | '/' | ':'))
        .flat_map(char::to_uppercase)
        .collect();
    let name = match key.as_str() {
        "PARTNO" | "PARTNUMBER" | "PARTNR" | "PN" | "TEILNR" | "TEILENR" | "TEILNUMMER"
        | "TEILENUMMER" | "ARTIKELNR" | "ARTIKELNUMMER" | "SACHNUMMER" | "SACHNR" | "RÉFÉRENCE"
        | "REFERENCE" | "NUMÉRODEPIÈCE" => "part_number",
        "DWGNO" | "DWGNR" | "DRAWINGNO" | "DRAWINGNUMBER" | "DRAWINGNR" | "FILENO"
        | "ZEICHNUNGSNR" | "ZEICHNUNGSNUMMER" | "ZNR" | "NUMÉRODEPLAN" => "drawing_number",
        "TITLE" | "DRAWINGTITLE" | "DESCRIPTION" | "PARTNAME" | "BENENNUNG" | "BEZEICHNUNG"
        | "TITRE" | "DÉSIGNATION" | "DESIGNATION" => "title",
        "MATERIAL" | "MATL" | "WERKSTOFF" | "MATÉRIAU" | "MATIÈRE" => "material",
        "REV" | "REVISION" | "REVNO" | "INDEX" | "ÄNDERUNGSINDEX" | "IND" | "RÉVISION" => {
            "revision"
        }
        "SCALE" | "MASSSTAB" | "MAẞSTAB" | "MASTAB" | "ÉCHELLE" | "ECHELLE" => "scale",
        "MASS" | "WEIGHT" | "GEWICHT" | "MASSE" | "POIDS" => "mass",
        "DRAWN" | "DRAWNBY" | "DWN" | "DRN" | "GEZEICHNET" | "GEZ" | "BEARBEITET" | "BEARB"
        | "DESSINÉPAR" | "DESSINÉ" => "drawn_by",
        "DATE" | "DATUM" => "date",
        "SHEET" | "PGNO" | "BLATT" | "FEUILLE" => "sheet",
        _ => return None,
    };
    Some(name)
}

/// Title-block cells among a page's items: for each label item ([`label_attribute`]) the item
/// that holds its value — the nearest one starting to its right on its row (its middle between
/// half a label height above the label and one below; within 12 label heights), else the nearest one just below it (within 3 label heights, overlapping it
/// horizontally). Returns `(attribute name, value, label index, value index)`.
pub fn title_block_items(items: &[PmiItem]) -> Vec<(&'static str, String, usize, usize)> {
    let labels: Vec<(usize, &'static str)> = items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| Some((index, label_attribute(&item.text)?)))
        .collect();
    let mut found = Vec::new();
    for &(label_index, name) in &labels {
        let [left, top, right, bottom] = items[label_index].box_in_page;
        let height = (bottom - top).max(1);
        let candidates = items.iter().enumerate().filter(|(index, item)| {
            *index != label_index
                && !labels.iter().any(|(label, _)| label == index)
                && !sanitise_value(&item.text).is_empty()
        });
        // The nearest item to the right on the row, unless that is the next cell's label.
        let beside = items
            .iter()
            .enumerate()
            .filter(|(index, item)| *index != label_index && !sanitise_value(&item.text).is_empty())
            .filter(|(_, item)| {
                let [l, t, _, b] = item.box_in_page;
                let middle = (t + b) / 2;
                l >= right - height / 2
                    && l - right <= 12 * height
                    && middle >= top - height / 2
                    && middle <= bottom + height
            })
            .min_by_key(|(_, item)| item.box_in_page[0] - right)
            .filter(|(index, _)| !labels.iter().any(|(label, _)| label == index));
        let below = || {
            candidates
                .clone()
                .filter(|(_, item)| {
                    let [l, t, r, _] = item.box_in_page;
                    t >= bottom - height / 2
                        && t - bottom <= 3 * height
                        && r >= left
                        && l <= right + 8 * height
                })
                .min_by_key(|(_, item)| (item.box_in_page[1], (item.box_in_page[0] - left).abs()))
        };
        if let Some((value_index, item)) = beside.or_else(below) {
            let value = words_under_label(items, &labels, label_index, item);
            if !sanitise_value(&value).is_empty() {
                found.push((name, sanitise_value(&value), label_index, value_index));
            }
        }
    }
    found
}

/// The words of a value line found beside or below a label that belong to that label: when the line also
/// runs under other labels of the label's row (a writer that joined the `DATE` and `FILE NO`
/// cells' values into one line: `2/19/2022 VRN-BP-V2.4-250`), each word goes to the label whose
/// left edge is nearest to where the word starts (estimated from its place in the line, the line's
/// width shared evenly among its characters).
fn words_under_label(
    items: &[PmiItem],
    labels: &[(usize, &'static str)],
    label_index: usize,
    value: &PmiItem,
) -> String {
    let [_, top, _, bottom] = items[label_index].box_in_page;
    let height = (bottom - top).max(1);
    let [value_left, _, value_right, _] = value.box_in_page;
    let row_lefts: Vec<(usize, i64)> = labels
        .iter()
        .map(|(index, _)| (*index, items[*index].box_in_page))
        .filter(|(_, [l, t, _, b])| {
            let middle = (t + b) / 2;
            middle >= top - height / 2
                && middle <= bottom + height / 2
                && *l <= value_right
                && *l >= value_left - 12 * height
        })
        .map(|(index, [l, ..])| (index, l))
        .collect();
    if row_lefts.len() < 2 {
        return value.text.clone();
    }
    let characters = value.text.chars().count().max(1) as f64;
    let per_character = (value_right - value_left) as f64 / characters;
    let mut kept = Vec::new();
    let mut offset = 0usize;
    for word in value.text.split(' ') {
        let start = value_left as f64 + per_character * offset as f64;
        offset += word.chars().count() + 1;
        if word.is_empty() {
            continue;
        }
        let nearest = row_lefts
            .iter()
            .min_by(|a, b| {
                (a.1 as f64 - start)
                    .abs()
                    .total_cmp(&(b.1 as f64 - start).abs())
            })
            .map(|(index, _)| *index);
        if nearest == Some(label_index) {
            kept.push(word);
        }
    }
    kept.join(" ")
}

/// The attributes a page's items state as title-block cells or `LABEL: value` items, in the
/// wire's `name=value` form (a name found twice keeps each distinct value, `|`-joined). A drawing
/// number stands for the part number when no part number is stated (drawings are most often
/// numbered by the part they draw); with neither, the title block's identifier
/// ([`identifier_in_title_block`]). Used for pages read by OCR.
#[cfg(any(feature = "ocr", test))]
pub fn attributes_of_items(items: &[PmiItem], page_size: [i64; 2]) -> Vec<String> {
    let mut found = Attributes::default();
    for (name, value, _, _) in title_block_items(items) {
        found.add(name.to_owned(), value);
    }
    for item in items {
        if let Some((name, value)) = labelled_value(&item.text) {
            found.add(name, value);
        }
    }
    if !found.has_part_number()
        && let Some(identifier) = identifier_in_title_block(items, page_size)
    {
        found.add("part_number".to_owned(), identifier);
    }
    found.into_wire()
}

/// A part number read from where title blocks are when no label names one (a label too small for
/// OCR, a block without labels): in the bottom-right of the page (right of 55 % of its width,
/// below 70 % of its height), the word that looks like an identifier — letters and digits joined
/// by `-` or `_` (`VRN-BP-VT-250`, `PL-1003`; not `250x250` or a date) — nearest the corner.
pub fn identifier_in_title_block(items: &[PmiItem], page_size: [i64; 2]) -> Option<String> {
    let [width, height] = page_size;
    items
        .iter()
        .filter(|item| {
            let [l, t, r, b] = item.box_in_page;
            (l + r) / 2 * 100 >= width * 55 && (t + b) / 2 * 100 >= height * 70
        })
        .flat_map(|item| {
            item.text
                .split_whitespace()
                .map(move |word| (word.trim_matches(|c: char| !c.is_alphanumeric()), item))
        })
        .filter(|(word, _)| {
            (5..=40).contains(&word.chars().count())
                && word.chars().any(|c| c.is_ascii_digit())
                && word.chars().any(char::is_alphabetic)
                && word.contains(['-', '_'])
                && word
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
        .max_by_key(|(_, item)| item.box_in_page[2] + item.box_in_page[3])
        .map(|(word, _)| word.to_owned())
}

/// Attributes collected in the order found, each with its distinct values.
#[derive(Default)]
pub struct Attributes(Vec<(String, Vec<String>)>);

impl Attributes {
    /// Adds a value (an empty one is ignored, a repeated one kept once).
    pub fn add(&mut self, name: String, value: String) {
        if value.is_empty() {
            return;
        }
        match self.0.iter_mut().find(|(known, _)| *known == name) {
            Some((_, values)) if !values.contains(&value) => values.push(value),
            Some(_) => {}
            None => self.0.push((name, vec![value])),
        }
    }

    /// True when a part number or a drawing number was found.
    #[cfg(any(feature = "ocr", test))]
    pub fn has_part_number(&self) -> bool {
        self.0
            .iter()
            .any(|(name, _)| name == "part_number" || name == "drawing_number")
    }

    /// `name=value|value` strings; `part_number` from `drawing_number` when only that is stated.
    pub fn into_wire(mut self) -> Vec<String> {
        let has =
            |attributes: &Self, name: &str| attributes.0.iter().any(|(known, _)| known == name);
        if !has(&self, "part_number")
            && let Some((_, values)) = self.0.iter().find(|(known, _)| known == "drawing_number")
        {
            let values = values.clone();
            self.0.push(("part_number".to_owned(), values));
        }
        self.0
            .into_iter()
            .map(|(name, values)| format!("{name}={}", values.join("|")))
            .collect()
    }
}

/// A value made safe for the wire's `name=value,name=value|value` forms.
pub fn sanitise_value(value: &str) -> String {
    let replaced: String = value
        .chars()
        .map(|c| match c {
            '|' => '/',
            ',' => ';',
            c if c.is_control() => ' ',
            c => c,
        })
        .take(MAX_VALUE_CHARS)
        .collect();
    replaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `name=value` attributes stated in the texts (already in reading order), then the title-block
/// cells found among the pages' items (`cells`: name and value).
pub fn extracted_attributes(
    texts: &[&PlacedText],
    cells: &[(&'static str, String)],
) -> Vec<String> {
    let mut found = Attributes::default();
    let mut add = |name: String, value: String| found.add(name, value);
    for text in texts {
        match (&text.kind, &text.tag) {
            (PmiItemKind::TitleBlockAttribute, Some(tag)) => {
                if let Some(name) = attribute_name(tag) {
                    add(name, sanitise_value(&text.text));
                }
            }
            (PmiItemKind::Note | PmiItemKind::TitleBlockAttribute, _) => {
                for line in text.text.lines() {
                    if let Some((name, value)) = labelled_value(line) {
                        add(name, value);
                    }
                }
            }
            _ => {}
        }
    }
    for (name, value) in cells {
        add((*name).to_owned(), value.clone());
    }
    found.into_wire()
}

/// `LABEL: value` on one line: a short label of letters (no digits: `SCALE 1:2` is not a label; spaces, `.`, `#`, `_`, `-` inside), a colon,
/// and a value.
fn labelled_value(line: &str) -> Option<(String, String)> {
    let (label, value) = line.split_once(':')?;
    let label = label.trim();
    let first_is_letter = label.chars().next().is_some_and(char::is_alphabetic);
    let label_ok = first_is_letter
        && label.chars().count() <= MAX_LABEL_CHARS
        && label.split_whitespace().count() <= 3
        && label
            .chars()
            .all(|c| c.is_alphabetic() || matches!(c, ' ' | '.' | '#' | '_' | '-'));
    let value = sanitise_value(value);
    if !label_ok || value.is_empty() {
        return None;
    }
    Some((attribute_name(label)?, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drawing::scene::Transform;

    fn text(kind: PmiItemKind, tag: Option<&str>, value: &str) -> PlacedText {
        PlacedText {
            text: value.into(),
            kind,
            tag: tag.map(str::to_owned),
            frame: Transform::IDENTITY,
            height: 1.0,
            char_width: 0.6,
            line_pitch: 1.6,
            visible: true,
        }
    }

    #[test]
    fn title_block_tags_map_to_attribute_names() {
        assert_eq!(attribute_name("PART_NO").as_deref(), Some("part_number"));
        assert_eq!(
            attribute_name("Dwg. No.").as_deref(),
            Some("drawing_number")
        );
        assert_eq!(attribute_name("REV").as_deref(), Some("revision"));
        assert_eq!(
            attribute_name("Heat Treatment").as_deref(),
            Some("heat_treatment")
        );
        assert_eq!(attribute_name(" :: "), None);
    }

    #[test]
    fn attributes_come_from_tags_and_labelled_texts() {
        let texts = [
            text(PmiItemKind::TitleBlockAttribute, Some("PART_NO"), "PL-1002"),
            text(
                PmiItemKind::TitleBlockAttribute,
                Some("MATERIAL"),
                "steel, 1.4301|A2",
            ),
            text(
                PmiItemKind::Note,
                None,
                "NOTES:\nFINISH: anodised\nSee sheet 2",
            ),
            text(PmiItemKind::Note, None, "MATERIAL: stainless"),
            text(PmiItemKind::Note, None, "RATIO 1:2"),
            text(PmiItemKind::Dimension, None, "Ø40"),
        ];
        let references: Vec<&PlacedText> = texts.iter().collect();
        assert_eq!(
            extracted_attributes(&references, &[]),
            [
                "part_number=PL-1002",
                "material=steel; 1.4301/A2|stainless",
                "finish=anodised",
            ]
        );
    }

    fn cell(text: &str, box_in_page: [i64; 4]) -> PmiItem {
        PmiItem {
            box_in_page,
            type_id: 1,
            text: text.into(),
            confidence: None,
            dimension: None,
        }
    }

    #[test]
    fn title_block_cells_pair_labels_with_the_value_beside_or_below() {
        let items = [
            // Label and value on one row (German), a value below its label, a colon label.
            cell("Teil-Nr.", [600, 500, 650, 510]),
            cell("4711-02", [660, 500, 720, 510]),
            cell("Werkstoff", [600, 520, 660, 530]),
            cell("S235JR", [602, 534, 650, 544]),
            cell("SCALE:", [740, 520, 770, 525]),
            cell("1:2", [772, 519, 790, 527]),
            cell("DWN:", [740, 540, 760, 545]),
            cell("WILE.E", [765, 543, 800, 551]),
            // Far from every label: not a value.
            cell("Ø40", [100, 100, 130, 110]),
        ];
        let cells: Vec<(&str, String)> = title_block_items(&items)
            .into_iter()
            .map(|(name, value, _, _)| (name, value))
            .collect();
        assert_eq!(
            cells,
            [
                ("part_number", "4711-02".to_owned()),
                ("material", "S235JR".to_owned()),
                ("scale", "1:2".to_owned()),
                ("drawn_by", "WILE.E".to_owned()),
            ]
        );
        // One value line under two labels of a row: each label keeps the words under it.
        let joined = [
            cell("DATE:", [776, 635, 787, 639]),
            cell("FILE NO:", [850, 635, 866, 639]),
            cell("REV:", [972, 635, 981, 639]),
            cell("2/19/2022 VRN-BP-V2.4-250", [789, 638, 917, 646]),
            cell("0", [988, 637, 995, 647]),
        ];
        let cells: Vec<(&str, String)> = title_block_items(&joined)
            .into_iter()
            .map(|(name, value, _, _)| (name, value))
            .collect();
        assert_eq!(
            cells,
            [
                ("date", "2/19/2022".to_owned()),
                ("drawing_number", "VRN-BP-V2.4-250".to_owned()),
                ("revision", "0".to_owned()),
            ]
        );
        assert_eq!(
            attributes_of_items(
                &[
                    cell("DWG NO", [0, 0, 40, 10]),
                    cell("VRN-1", [0, 12, 40, 22])
                ],
                [1000, 500]
            ),
            ["drawing_number=VRN-1", "part_number=VRN-1"]
        );
        // No label: the identifier-looking word of the bottom-right corner.
        let unlabelled = [
            cell("250x250", [800, 420, 860, 430]),
            cell("8/12/2021", [600, 470, 660, 480]),
            cell("FILED VRN-BP-VT-250", [700, 470, 800, 480]),
            cell("M3-0.5", [100, 100, 130, 110]),
        ];
        assert_eq!(
            attributes_of_items(&unlabelled, [1000, 500]),
            ["part_number=VRN-BP-VT-250"]
        );
    }

    #[test]
    fn values_are_safe_for_the_wire() {
        assert_eq!(sanitise_value(" a|b,c \t d "), "a/b;c d");
        assert_eq!(sanitise_value(&"x".repeat(500)).len(), MAX_VALUE_CHARS);
    }
}
