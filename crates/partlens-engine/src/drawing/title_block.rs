//! Attributes a drawing states about its part: title-block ATTRIBs by their tag (`PART_NO` →
//! `part_number`) and texts of the form `LABEL: value` (`MATERIAL: S235JR` → `material=S235JR`).
//! Values are sanitised for the wire: `|` and `,` separate values and attributes there, so they
//! become `/` and `;`. A name found twice keeps each distinct value (`|`-joined, the multi-value form).

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
        "weight" | "mass" => "weight",
        "" => return None,
        other => other,
    };
    Some(known.to_owned())
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

/// The `name=value` attributes stated in the texts (already in reading order).
pub fn extracted_attributes(texts: &[&PlacedText]) -> Vec<String> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |name: String, value: String| {
        if value.is_empty() {
            return;
        }
        match found.iter_mut().find(|(known, _)| *known == name) {
            Some((_, values)) if !values.contains(&value) => values.push(value),
            Some(_) => {}
            None => found.push((name, vec![value])),
        }
    };
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
    found
        .into_iter()
        .map(|(name, values)| format!("{name}={}", values.join("|")))
        .collect()
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
            extracted_attributes(&references),
            [
                "part_number=PL-1002",
                "material=steel; 1.4301/A2|stainless",
                "finish=anodised",
            ]
        );
    }

    #[test]
    fn values_are_safe_for_the_wire() {
        assert_eq!(sanitise_value(" a|b,c \t d "), "a/b;c d");
        assert_eq!(sanitise_value(&"x".repeat(500)).len(), MAX_VALUE_CHARS);
    }
}
