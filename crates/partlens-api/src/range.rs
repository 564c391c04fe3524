//! Numeric range terms of a filter (`FT=length=40..60 mm`, `FT=weight(kg)=..2,5`): the shape of a
//! range value, its length units and the names that filter by a model's size.
//!
//! A value is a range when it is `low..high`, `low..` or `..high`, each end a plain number (digits,
//! optionally one decimal point or comma and more digits, optionally a leading `-`), optionally
//! followed by a length unit (`mm`, `cm`, `m`, `in` or `"`). Any other value is not a range (the
//! term stays a regular one), so only values of that exact shape changed meaning.
//!
//! The names `length`, `width` and `thickness` filter by a model's size: the largest, middle and
//! smallest extent of its `bounding_box(mm)` attribute, in millimetres (a range without a unit is in
//! millimetres). Any other name compares the numeric values of that attribute.

/// The name of the extracted attribute that holds a model's extents (`a×b×c`, millimetres), which
/// the size names compare.
pub const EXTENTS_ATTRIBUTE: &str = "bounding_box(mm)";

/// A length unit a range may be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LengthUnit {
    /// Millimetres (`mm`).
    Millimetre,
    /// Centimetres (`cm`).
    Centimetre,
    /// Metres (`m`).
    Metre,
    /// Inches (`in` or `"`).
    Inch,
}

impl LengthUnit {
    /// Every unit, in the order a picker lists them.
    pub const ALL: [Self; 4] = [Self::Millimetre, Self::Centimetre, Self::Metre, Self::Inch];

    /// How many millimetres one of this unit is.
    pub fn millimetres(self) -> f64 {
        match self {
            Self::Millimetre => 1.0,
            Self::Centimetre => 10.0,
            Self::Metre => 1000.0,
            Self::Inch => 25.4,
        }
    }

    /// The unit's symbol as written in a filter (`mm`, `cm`, `m`, `in`).
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Millimetre => "mm",
            Self::Centimetre => "cm",
            Self::Metre => "m",
            Self::Inch => "in",
        }
    }

    /// The unit a symbol names (case-insensitive; `"` is inches), `None` for anything else.
    pub fn parse(symbol: &str) -> Option<Self> {
        match symbol.trim().to_ascii_lowercase().as_str() {
            "mm" => Some(Self::Millimetre),
            "cm" => Some(Self::Centimetre),
            "m" => Some(Self::Metre),
            "in" | "\"" => Some(Self::Inch),
            _ => None,
        }
    }

    /// Splits a trailing unit symbol off `value` (`40..60 mm` → `40..60`, millimetres).
    fn strip_from(value: &str) -> (&str, Option<Self>) {
        // Longest symbols first, so `mm` is not read as `m`.
        for symbol in ["mm", "cm", "in", "m", "\""] {
            let split = value.len().checked_sub(symbol.len());
            if let Some(split) = split
                && value.is_char_boundary(split)
                && value[split..].eq_ignore_ascii_case(symbol)
            {
                return (value[..split].trim_end(), Self::parse(symbol));
            }
        }
        (value, None)
    }
}

/// Which extent of a model's size a size name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeExtent {
    /// `length`: the largest extent.
    Length,
    /// `width`: the middle extent.
    Width,
    /// `thickness`: the smallest extent.
    Thickness,
}

impl SizeExtent {
    /// Every size name, largest extent first.
    pub const ALL: [Self; 3] = [Self::Length, Self::Width, Self::Thickness];

    /// The extent a term's name stands for (`length`, `width`, `thickness`, case-insensitive), or
    /// `None` for any other attribute name.
    pub fn of_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "length" => Some(Self::Length),
            "width" => Some(Self::Width),
            "thickness" => Some(Self::Thickness),
            _ => None,
        }
    }

    /// The name as written in a filter.
    pub fn name(self) -> &'static str {
        match self {
            Self::Length => "length",
            Self::Width => "width",
            Self::Thickness => "thickness",
        }
    }

    /// The extent's place among a model's extents sorted smallest first (0, 1 or 2).
    pub fn rank(self) -> usize {
        match self {
            Self::Length => 2,
            Self::Width => 1,
            Self::Thickness => 0,
        }
    }
}

/// The ends and unit of a range value (`40..60 mm`, `..2,5`), `None` when the value is not a range.
pub fn parse_range(value: &str) -> Option<(Option<f64>, Option<f64>, Option<LengthUnit>)> {
    let (bounds, unit) = LengthUnit::strip_from(value.trim());
    let (low, high) = bounds.split_once("..")?;
    let end = |text: &str| -> Option<Option<f64>> {
        let text = text.trim();
        if text.is_empty() {
            Some(None)
        } else {
            parse_number(text).map(Some)
        }
    };
    let (low, high) = (end(low)?, end(high)?);
    (low.is_some() || high.is_some()).then_some((low, high, unit))
}

/// A plain number: an optional `-`, digits, optionally a decimal point or comma and more digits.
pub fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = match digits.split_once(['.', ',']) {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (digits, None),
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || fraction.is_some_and(|fraction| !all_digits(fraction)) {
        return None;
    }
    let number: f64 = text.replace(',', ".").parse().ok()?;
    number.is_finite().then_some(number)
}

/// A bound as written in a filter: the shortest decimal that reads back as the same number.
pub fn format_number(number: f64) -> String {
    format!("{number}")
}

/// The wire form of a range value (`40..60mm`, `..2.5`).
pub fn range_value(low: Option<f64>, high: Option<f64>, unit: Option<LengthUnit>) -> String {
    format!(
        "{}..{}{}",
        low.map(format_number).unwrap_or_default(),
        high.map(format_number).unwrap_or_default(),
        unit.map(LengthUnit::symbol).unwrap_or_default()
    )
}

/// A range as a person reads it: `length 40–60 mm`, `length ≥ 40 mm`, `weight(kg) ≤ 2.5`. A size
/// name without a unit is in millimetres, and says so.
pub fn range_label(
    name: &str,
    low: Option<f64>,
    high: Option<f64>,
    unit: Option<LengthUnit>,
) -> String {
    let unit = unit.or_else(|| SizeExtent::of_name(name).map(|_| LengthUnit::Millimetre));
    let unit = unit
        .map(|unit| format!(" {}", unit.symbol()))
        .unwrap_or_default();
    match (low, high) {
        (Some(low), Some(high)) => {
            format!(
                "{name} {}–{}{unit}",
                format_number(low),
                format_number(high)
            )
        }
        (Some(low), None) => format!("{name} ≥ {}{unit}", format_number(low)),
        (None, Some(high)) => format!("{name} ≤ {}{unit}", format_number(high)),
        (None, None) => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_values_are_told_from_other_values() {
        use LengthUnit::*;
        assert_eq!(parse_range("40..60"), Some((Some(40.0), Some(60.0), None)));
        assert_eq!(
            parse_range(" 40 .. 60 mm "),
            Some((Some(40.0), Some(60.0), Some(Millimetre)))
        );
        assert_eq!(
            parse_range("1,5..2.5cm"),
            Some((Some(1.5), Some(2.5), Some(Centimetre)))
        );
        assert_eq!(parse_range("40.."), Some((Some(40.0), None, None)));
        assert_eq!(parse_range("..0,5\""), Some((None, Some(0.5), Some(Inch))));
        assert_eq!(parse_range("..2 IN"), Some((None, Some(2.0), Some(Inch))));
        assert_eq!(parse_range("-5..5"), Some((Some(-5.0), Some(5.0), None)));
        assert_eq!(
            parse_range("1..2m"),
            Some((Some(1.0), Some(2.0), Some(Metre)))
        );
        for not_a_range in [
            "..", "1..2x", "a..b", "1...2", "1..2..3", "1.2", "40-60", "1e3..2", "1..2 kg",
            ".5..1", "1...", "nan..1", "inf..", "M6..M8", "",
        ] {
            assert_eq!(parse_range(not_a_range), None, "{not_a_range}");
        }
    }

    #[test]
    fn numbers_are_plain_decimals() {
        assert_eq!(parse_number("12"), Some(12.0));
        assert_eq!(parse_number("12,5"), Some(12.5));
        assert_eq!(parse_number("-0.25"), Some(-0.25));
        for not_a_number in [
            "", "-", "1.", ",5", "1.2.3", "1e3", "12 kg", "+1", "0x10", "∞",
        ] {
            assert_eq!(parse_number(not_a_number), None, "{not_a_number}");
        }
    }

    #[test]
    fn labels_read_as_a_person_writes_them() {
        let mm = Some(LengthUnit::Millimetre);
        assert_eq!(
            range_label("length", Some(40.0), Some(60.0), mm),
            "length 40–60 mm"
        );
        assert_eq!(
            range_label("width", Some(40.0), None, None),
            "width ≥ 40 mm"
        );
        assert_eq!(
            range_label("thickness", None, Some(0.5), Some(LengthUnit::Inch)),
            "thickness ≤ 0.5 in"
        );
        assert_eq!(
            range_label("weight(kg)", Some(1.5), Some(2.0), None),
            "weight(kg) 1.5–2"
        );
        assert_eq!(range_value(Some(40.0), None, mm), "40..mm");
        assert_eq!(range_value(None, Some(2.5), None), "..2.5");
    }

    #[test]
    fn size_names_stand_for_sorted_extents() {
        assert_eq!(SizeExtent::of_name(" Length "), Some(SizeExtent::Length));
        assert_eq!(SizeExtent::of_name("size"), None);
        assert_eq!(SizeExtent::of_name("length(mm)"), None);
        assert_eq!(
            SizeExtent::ALL.map(SizeExtent::rank),
            [2, 1, 0],
            "length is the largest extent"
        );
        for extent in SizeExtent::ALL {
            assert_eq!(SizeExtent::of_name(extent.name()), Some(extent));
        }
        for unit in LengthUnit::ALL {
            assert_eq!(LengthUnit::parse(unit.symbol()), Some(unit));
        }
    }
}
