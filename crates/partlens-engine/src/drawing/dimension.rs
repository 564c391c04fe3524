//! Structured dimensions: a dimension item's text (`Ø60 H7 ±0.015`, `R8.00`, `50°`, `(150)`,
//! `%%c12 +0.1/-0.05`, `R0,1...0,2`) read into its kind (linear, diameter, radius, angle), value,
//! tolerance (symmetric ±, deviations +a/-b, limits a/b or a...b) and fit class (`H7`). A pure
//! function of the text: what it does not recognise (a thread `M3x0.5`, a note) gives `None`.
//!
//! What is read, in order: an optional count (`4X`, `2 x`), the kind's sign (`Ø`, `⌀`, `∅`, `%%c`,
//! `DIA`; `R`, `SR`; `°`, `%%d`), the value (a decimal point or comma), then a tolerance and a fit
//! class in either order, and words after them (`TYP`, `THRU`, `2 PLCS`) which are left out. A
//! value in parentheses is a reference dimension.

use partlens_api::{PmiDimension, PmiTolerance};

/// The kinds of dimension, as written in the item JSON's `dimension.kind`.
pub const KINDS: [&str; 4] = ["linear", "diameter", "radius", "angle"];

/// The dimension of a PMI item: its text read by [`parse_dimension`] when the item is a
/// dimension (`type_id` 2), else `None`.
pub fn dimension_of(type_id: i64, text: &str) -> Option<PmiDimension> {
    if type_id == super::PmiItemKind::Dimension.type_id() {
        parse_dimension(text)
    } else {
        None
    }
}

/// The dimension a PMI item's text states, or `None` when it states none.
pub fn parse_dimension(text: &str) -> Option<PmiDimension> {
    let text = normalised(text);
    let mut rest = text.trim();
    // A reference dimension: the whole value in parentheses.
    let reference = rest.starts_with('(') && rest.contains(')');
    if reference {
        rest = rest.trim_start_matches('(');
    }
    // A count: "4X " / "4 x " before the dimension.
    if let Some((count, after)) = split_number(rest)
        && count.fract() == 0.0
    {
        let after = after.trim_start();
        if let Some(after) = after
            .strip_prefix(['X', 'x', '×'])
            .filter(|after| after.starts_with(char::is_whitespace))
        {
            rest = after.trim_start();
        }
    }
    let mut kind = "linear";
    for (sign, named) in [("Ø", "diameter"), ("SR", "radius"), ("R", "radius")] {
        if let Some(after) = rest.strip_prefix(sign)
            && after
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit() || c == '.')
        {
            kind = named;
            rest = after.trim_start();
            break;
        }
    }
    let (value, after) = split_number(rest)?;
    let mut rest = after;
    // A thread or a size ("M3x0.5", "250x250") is not a dimension of these kinds.
    if rest
        .strip_prefix(['x', 'X', '×'])
        .is_some_and(|after| after.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    {
        return None;
    }
    if let Some(after) = rest.strip_prefix('°') {
        kind = "angle";
        rest = after;
    }
    let mut tolerance = None;
    let mut fit = None;
    for _ in 0..2 {
        rest = rest.trim_start().trim_start_matches(')').trim_start();
        if tolerance.is_none()
            && let Some((read, after)) = tolerance_at(rest, value)
        {
            tolerance = Some(read);
            rest = after;
            continue;
        }
        if fit.is_none()
            && let Some((read, after)) = fit_at(rest)
        {
            fit = Some(read);
            rest = after;
            continue;
        }
    }
    let rest = rest.trim_start().trim_start_matches(')').trim_start();
    if kind == "linear" && rest.starts_with("DIA") {
        kind = "diameter";
    }
    // Limits "a...b" (a range) or "a/b" (the upper limit over the lower) state the value's range.
    let (value, tolerance) = match tolerance {
        Some(PmiTolerance { kind, upper, lower }) if kind == "limits" => (
            (upper + lower) / 2.0,
            Some(PmiTolerance {
                kind,
                upper: upper.max(lower),
                lower: upper.min(lower),
            }),
        ),
        other => (value, other),
    };
    Some(PmiDimension {
        kind: kind.to_owned(),
        value,
        tolerance,
        fit,
        reference,
    })
}

/// The text with the DXF control codes and the other spellings of the signs made one: `%%c`,
/// `⌀`, `∅` → `Ø`; `%%d` → `°`; `%%p`, `+/-` → `±`; a decimal comma between digits → a point.
fn normalised(text: &str) -> String {
    let mut text = text.to_owned();
    for (from, to) in [
        ("%%c", "Ø"),
        ("%%C", "Ø"),
        ("⌀", "Ø"),
        ("∅", "Ø"),
        ("%%d", "°"),
        ("%%D", "°"),
        ("%%p", "±"),
        ("%%P", "±"),
        ("+/-", "±"),
        ("−", "-"),
    ] {
        text = text.replace(from, to);
    }
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let between_digits = i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c == ',' && between_digits { '.' } else { c }
        })
        .collect()
}

/// The unsigned decimal number at the start of `text` and what follows it.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || (c == '.'
                    && !text[..i].contains('.')
                    && text[i + 1..].starts_with(|next: char| next.is_ascii_digit())))
        })
        .map_or(text.len(), |(i, _)| i);
    let number = &text[..end];
    if !number.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((number.parse().ok()?, &text[end..]))
}

/// A signed number (`+0.1`, `-0.05`, `0`) at the start of `text`.
fn split_signed(text: &str) -> Option<(f64, &str)> {
    let text = text.trim_start();
    let (sign, digits) = match text.chars().next()? {
        '+' => (1.0, &text[1..]),
        '-' => (-1.0, &text[1..]),
        _ => (1.0, text),
    };
    let (number, rest) = split_number(digits.trim_start())?;
    Some((sign * number, rest))
}

/// A tolerance at the start of `text`: `±a`, `+a/-b` (or `+a -b`, either order), a range
/// `...b` after the value, or an upper limit over the lower `/b`.
fn tolerance_at(text: &str, value: f64) -> Option<(PmiTolerance, &str)> {
    if let Some(after) = text.strip_prefix('±') {
        let (deviation, rest) = split_number(after.trim_start())?;
        return Some((
            PmiTolerance {
                kind: "symmetric".to_owned(),
                upper: deviation,
                lower: -deviation,
            },
            rest,
        ));
    }
    if let Some(after) = text.strip_prefix("...").or_else(|| text.strip_prefix('…')) {
        let (other, rest) = split_number(after.trim_start())?;
        return Some((limits(value, other), rest));
    }
    if let Some(after) = text.strip_prefix('/') {
        let (other, rest) = split_number(after.trim_start())?;
        return Some((limits(value, other), rest));
    }
    if text.starts_with(['+', '-']) {
        let (first, rest) = split_signed(text)?;
        let rest = rest.trim_start();
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let (second, rest) = split_signed(rest)?;
        return Some((
            PmiTolerance {
                kind: "deviations".to_owned(),
                upper: first.max(second),
                lower: first.min(second),
            },
            rest,
        ));
    }
    None
}

fn limits(a: f64, b: f64) -> PmiTolerance {
    PmiTolerance {
        kind: "limits".to_owned(),
        upper: a,
        lower: b,
    }
}

/// An ISO fit class at the start of `text`: one or two letters and a grade (`H7`, `h14`, `js6`),
/// followed by the end or a space.
fn fit_at(text: &str) -> Option<(String, &str)> {
    let letters = text.chars().take_while(char::is_ascii_alphabetic).count();
    if !(1..=2).contains(&letters) {
        return None;
    }
    let digits = text[letters..]
        .chars()
        .take_while(char::is_ascii_digit)
        .count();
    let end = letters + digits;
    if !(1..=2).contains(&digits)
        || text[end..]
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != ')')
    {
        return None;
    }
    Some((text[..end].to_owned(), &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kind, value, tolerance (kind, upper, lower), fit, reference.
    type Read = (
        String,
        f64,
        Option<(String, f64, f64)>,
        Option<String>,
        bool,
    );

    fn read(text: &str) -> Read {
        let dimension = parse_dimension(text).unwrap_or_else(|| panic!("{text:?}"));
        (
            dimension.kind,
            dimension.value,
            dimension
                .tolerance
                .map(|tolerance| (tolerance.kind, tolerance.upper, tolerance.lower)),
            dimension.fit,
            dimension.reference,
        )
    }

    fn kind_and_value(text: &str) -> (String, f64) {
        let (kind, value, ..) = read(text);
        (kind, value)
    }

    #[test]
    fn the_corpus_dimensions_are_read() {
        // Texts of dimension items of ../shared/realworld (Voron and Trident plate PDFs, Voron
        // panels, LibreCAD and AutoCAD-family DXF), as the readers give them.
        assert_eq!(kind_and_value("254.0"), ("linear".into(), 254.0));
        assert_eq!(kind_and_value("196.91"), ("linear".into(), 196.91));
        assert_eq!(kind_and_value("R8.00"), ("radius".into(), 8.0));
        assert_eq!(kind_and_value("R21.5"), ("radius".into(), 21.5));
        assert_eq!(kind_and_value("50°"), ("angle".into(), 50.0));
        assert_eq!(kind_and_value("7.0 TYP"), ("linear".into(), 7.0));
        assert_eq!(kind_and_value("R2.00 TYP"), ("radius".into(), 2.0));
        assert_eq!(kind_and_value("6.00 2Plc"), ("linear".into(), 6.0));
        // LibreCAD's Russian drawing: a decimal comma.
        assert_eq!(kind_and_value("3,2"), ("linear".into(), 3.2));
        // A reference dimension in parentheses.
        let (kind, value, tolerance, _, reference) = read("(150)");
        assert_eq!(
            (kind.as_str(), value, tolerance, reference),
            ("linear", 150.0, None, true)
        );
        assert!(read("(37.5)").4);
        // A thread, a size and words are not dimensions of these kinds.
        assert!(parse_dimension("M3x0.5 THRU").is_none());
        assert!(parse_dimension("M3x0.5 - 6H").is_none());
        assert!(parse_dimension("250x250").is_none());
        assert!(parse_dimension("TYP 3 PLCS").is_none());
        assert!(parse_dimension("").is_none());
    }

    #[test]
    fn tolerances_and_fits_are_read() {
        // The sample flange drawing's bore, and the DXF codes for Ø and ±.
        assert_eq!(
            read("Ø60 H7 ±0.015"),
            (
                "diameter".into(),
                60.0,
                Some(("symmetric".into(), 0.015, -0.015)),
                Some("H7".into()),
                false
            )
        );
        assert_eq!(read("%%c60 %%p0.015"), read("Ø60 ±0.015"));
        assert_eq!(
            read("⌀12 +0.1/-0.05").2,
            Some(("deviations".into(), 0.1, -0.05))
        );
        assert_eq!(
            read("12 -0.05 +0.1").2,
            Some(("deviations".into(), 0.1, -0.05))
        );
        assert_eq!(read("25 +0.2/0").2, Some(("deviations".into(), 0.2, 0.0)));
        assert_eq!(read("12 h14").3, Some("h14".into()));
        assert_eq!(read("12 +/- 0.5").2, Some(("symmetric".into(), 0.5, -0.5)));
        // Limits: the upper over the lower, or a range (LibreCAD's "R0,1...0,2" edge radius).
        let (kind, value, tolerance, ..) = read("25.02/24.98");
        assert_eq!(kind, "linear");
        assert!((value - 25.0).abs() < 1e-9);
        assert_eq!(tolerance, Some(("limits".into(), 25.02, 24.98)));
        let (kind, value, tolerance, ..) = read("R0,1...0,2");
        assert_eq!(kind, "radius");
        assert!((value - 0.15).abs() < 1e-9);
        assert_eq!(tolerance, Some(("limits".into(), 0.2, 0.1)));
        // Angles: the DXF code for the degree sign too.
        assert_eq!(kind_and_value("30%%d"), ("angle".into(), 30.0));
        assert_eq!(read("45° ±0.5").2, Some(("symmetric".into(), 0.5, -0.5)));
        // A count before the dimension, a diameter named after it.
        assert_eq!(kind_and_value("4X Ø6.6 THRU"), ("diameter".into(), 6.6));
        assert_eq!(kind_and_value("12.5 DIA"), ("diameter".into(), 12.5));
        assert_eq!(kind_and_value("SR5"), ("radius".into(), 5.0));
        assert_eq!(KINDS.len(), 4);
    }
}
