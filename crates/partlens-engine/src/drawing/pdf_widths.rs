//! Glyph widths of a PDF font, so that a shown string advances the text position as far as it does
//! on the page. With a fixed advance a word of a proportional font ends in the wrong place, and
//! the runs that follow it are split or joined wrongly (`89. 5`, `7. 0 T` + `YP` on the corpus's
//! Trident build plates, where SolidWorks shows each kerned piece of a word separately).
//!
//! Simple fonts: `/FirstChar` and `/Widths` (one byte a code). Composite (Type0) fonts: the
//! descendant font's `/W` and `/DW` (two bytes a code, the Identity-H encoding CAD exporters use).
//! Limits: at most [`MAX_WIDTHS`] codes a font.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

/// Most codes whose widths one font defines.
pub const MAX_WIDTHS: usize = 65_536;

/// A font's advance widths in thousandths of an em.
#[derive(Debug)]
pub struct FontWidths {
    code_bytes: usize,
    widths: HashMap<u32, f64>,
    default: f64,
}

fn number(object: &Object) -> Option<f64> {
    match object {
        Object::Integer(value) => Some(*value as f64),
        Object::Real(value) => Some(f64::from(*value)),
        _ => None,
    }
}

fn array<'a>(
    dictionary: &'a Dictionary,
    key: &[u8],
    document: &'a Document,
) -> Option<&'a [Object]> {
    dictionary
        .get_deref(key, document)
        .ok()?
        .as_array()
        .ok()
        .map(Vec::as_slice)
}

fn code_of(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0, |code, &byte| (code << 8) | u32::from(byte))
}

impl FontWidths {
    /// The widths a font dictionary states; `None` when it states none (the standard 14 fonts).
    pub fn of(font: &Dictionary, document: &Document) -> Option<Self> {
        let composite = font
            .get(b"Subtype")
            .and_then(Object::as_name)
            .is_ok_and(|subtype| subtype == b"Type0");
        if composite {
            let descendant = array(font, b"DescendantFonts", document)?
                .first()
                .and_then(|object| document.dereference(object).ok())
                .and_then(|(_, object)| object.as_dict().ok())?;
            let default = descendant
                .get(b"DW")
                .ok()
                .and_then(number)
                .unwrap_or(1000.0);
            let mut widths = HashMap::new();
            if let Some(entries) = array(descendant, b"W", document) {
                let mut i = 0;
                while i < entries.len() && widths.len() < MAX_WIDTHS {
                    let Some(first) = number(&entries[i]) else {
                        break;
                    };
                    let first = first.max(0.0) as u32;
                    match entries
                        .get(i + 1)
                        .map(|object| document.dereference(object))
                    {
                        Some(Ok((_, Object::Array(list)))) => {
                            for (offset, width) in list.iter().take(MAX_WIDTHS).enumerate() {
                                if let Some(width) = number(width) {
                                    widths.insert(first + offset as u32, width);
                                }
                            }
                            i += 2;
                        }
                        Some(Ok((_, last))) => {
                            let (Some(last), Some(width)) =
                                (number(last), entries.get(i + 2).and_then(number))
                            else {
                                break;
                            };
                            let last = (last.max(0.0) as u32).min(first + MAX_WIDTHS as u32);
                            for code in first..=last {
                                widths.insert(code, width);
                            }
                            i += 3;
                        }
                        _ => break,
                    }
                }
            }
            return Some(Self {
                code_bytes: 2,
                widths,
                default,
            });
        }
        let first = font.get(b"FirstChar").ok().and_then(number)?.max(0.0) as u32;
        let listed = array(font, b"Widths", document)?;
        let widths = listed
            .iter()
            .take(MAX_WIDTHS)
            .enumerate()
            .filter_map(|(offset, object)| {
                let width = document
                    .dereference(object)
                    .ok()
                    .and_then(|(_, object)| number(object))?;
                Some((first + offset as u32, width))
            })
            .collect();
        let default = font
            .get_deref(b"FontDescriptor", document)
            .ok()
            .and_then(|object| object.as_dict().ok())
            .and_then(|descriptor| descriptor.get(b"MissingWidth").ok())
            .and_then(number)
            .unwrap_or(0.0);
        Some(Self {
            code_bytes: 1,
            widths,
            default,
        })
    }

    /// The advance of a shown string in ems, and how many codes it holds.
    pub fn advance(&self, bytes: &[u8]) -> (f64, usize) {
        let mut total = 0.0;
        let mut codes = 0;
        for code in bytes.chunks(self.code_bytes) {
            total += self
                .widths
                .get(&code_of(code))
                .copied()
                .unwrap_or(self.default);
            codes += 1;
        }
        (total / 1000.0, codes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    #[test]
    fn simple_and_composite_fonts_give_their_widths() {
        let mut document = Document::with_version("1.5");
        let simple = dictionary! {
            "Type" => "Font", "Subtype" => "TrueType",
            "FirstChar" => 48, "Widths" => vec![500.into(), 250.into()],
        };
        let widths = FontWidths::of(&simple, &document).unwrap();
        assert_eq!(widths.advance(b"0101"), (1.5, 4));
        let descendant = document.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "CIDFontType2", "DW" => 600,
            "W" => vec![
                3.into(), vec![278.into(), 556.into()].into(),
                20.into(), 22.into(), 500.into(),
            ],
        });
        let composite = dictionary! {
            "Type" => "Font", "Subtype" => "Type0",
            "DescendantFonts" => vec![descendant.into()],
        };
        let widths = FontWidths::of(&composite, &document).unwrap();
        // Codes 3, 4, 21 and 99 (default).
        let (ems, codes) = widths.advance(&[0, 3, 0, 4, 0, 21, 0, 99]);
        assert_eq!(codes, 4);
        assert!((ems - (0.278 + 0.556 + 0.5 + 0.6)).abs() < 1e-9, "{ems}");
        let standard =
            dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" };
        assert!(FontWidths::of(&standard, &document).is_none());
    }
}
