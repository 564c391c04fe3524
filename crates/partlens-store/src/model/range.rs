//! A numeric range term (`length=40..60 mm`, `weight(kg)=..2,5`) as both engines compare it: which
//! number a term compares and the bounds it compares with, round-off tolerance included. The SQL of
//! each engine is in its `search.rs`.
//!
//! - `length`, `width`, `thickness`: the largest, middle and smallest extent of the model's
//!   [`EXTENTS_ATTRIBUTE`] (`a×b×c` in millimetres, read from the file by the engine; an STL, OBJ or
//!   PLY file's numbers are taken as millimetres), with the range converted to millimetres (no unit:
//!   millimetres). A file without that attribute (a picture, a drawing) never matches.
//! - any other name: some value of that attribute (a multi-valued one: any of them) that is a plain
//!   number (`12`, `12.5`, `12,5`, `-3`; anything else never matches). A length unit written after
//!   the range converts it to the unit in the attribute's name when that is a length unit too
//!   (`diameter(mm)=0.4..0.6cm`); otherwise the numbers are compared as written.

use partlens_api::FilterTerm;
use partlens_api::attribute::split_unit;
use partlens_api::range::{LengthUnit, SizeExtent};

pub use partlens_api::range::EXTENTS_ATTRIBUTE;

/// What a range compares: an extent of the model's size, or the values of an attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum RangeSubject<'a> {
    /// The extent of [`EXTENTS_ATTRIBUTE`] a size name stands for.
    Size(SizeExtent),
    /// The numeric values of the attribute of this name (`weight(kg)`, unit in the name).
    Attribute(&'a str),
}

/// A range ready for SQL: what it compares and its inclusive bounds, each widened by the tolerance
/// and in the subject's unit; `None` for an open end.
#[derive(Clone, Debug, PartialEq)]
pub struct NumericRange<'a> {
    /// What is compared.
    pub subject: RangeSubject<'a>,
    /// The lowest value kept.
    pub low: Option<f64>,
    /// The highest value kept.
    pub high: Option<f64>,
}

/// The share of a bound (of 1 for bounds below 1) by which it is widened: extents are stored as
/// 32-bit floats (40 mm as 40.000004) and a STEP file in inches is converted by the reader, so a
/// part exactly 1.5 in long is kept by `length=1.5..1.5 in`.
const TOLERANCE: f64 = 1e-6;

impl<'a> NumericRange<'a> {
    /// The range of a range term, `None` for any other term.
    pub fn of(term: &'a FilterTerm) -> Option<Self> {
        let FilterTerm::Range {
            name,
            low,
            high,
            unit,
        } = term
        else {
            return None;
        };
        let (subject, factor) = match SizeExtent::of_name(name) {
            Some(extent) => (
                RangeSubject::Size(extent),
                unit.map_or(1.0, LengthUnit::millimetres),
            ),
            None => {
                let attribute_unit = split_unit(name).1.and_then(LengthUnit::parse);
                let factor = match (unit, attribute_unit) {
                    (Some(unit), Some(attribute_unit)) => {
                        unit.millimetres() / attribute_unit.millimetres()
                    }
                    _ => 1.0,
                };
                (RangeSubject::Attribute(name), factor)
            }
        };
        let widen = |bound: f64, direction: f64| {
            let bound = bound * factor;
            bound + direction * TOLERANCE * bound.abs().max(1.0)
        };
        Some(Self {
            subject,
            low: low.map(|low| widen(low, -1.0)),
            high: high.map(|high| widen(high, 1.0)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(expression: &str) -> NumericRange<'static> {
        let term = Box::leak(Box::new(FilterTerm::parse(expression)));
        NumericRange::of(term).unwrap()
    }

    #[test]
    fn sizes_are_compared_in_millimetres_with_a_little_room() {
        let inches = range("length=1..2in");
        assert_eq!(inches.subject, RangeSubject::Size(SizeExtent::Length));
        let (low, high) = (inches.low.unwrap(), inches.high.unwrap());
        assert!(low < 25.4 && low > 25.4 - 1e-3, "{low}");
        assert!(high > 50.8 && high < 50.8 + 1e-3, "{high}");
        let open = range("Thickness=..3");
        assert_eq!(open.subject, RangeSubject::Size(SizeExtent::Thickness));
        assert_eq!(open.low, None);
        assert!(open.high.unwrap() > 3.0 && open.high.unwrap() < 3.001);
        assert!(range("width=0.5..cm").low.unwrap() < 5.0);
        assert!(NumericRange::of(&FilterTerm::parse("length=40")).is_none());
    }

    #[test]
    fn other_attributes_convert_only_between_lengths() {
        let converted = range("diameter(mm)=0.4..0.6cm");
        assert_eq!(converted.subject, RangeSubject::Attribute("diameter(mm)"));
        assert!((converted.low.unwrap() - 4.0).abs() < 1e-3);
        assert!((converted.high.unwrap() - 6.0).abs() < 1e-3);
        let as_written = range("weight(kg)=1..2");
        assert!((as_written.high.unwrap() - 2.0).abs() < 1e-3);
        assert!((range("count=1..2mm").high.unwrap() - 2.0).abs() < 1e-3);
    }
}
