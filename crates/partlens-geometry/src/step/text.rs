//! The first look at a STEP file, byte by byte, before any parser sees it: it must be an ISO 10303-21
//! exchange structure that ends, its brackets may nest only [`MAX_NESTING`] deep (the parser recurses
//! once a bracket) and it may hold at most [`MAX_ENTITIES`] instances. What passes is handed on as
//! text: UTF-8 as it is, other bytes read as ISO 8859-1 (what older exporters write), a quote
//! doubled inside a string (`'Bob''s'`) replaced by [`QUOTE_IN_STRING`], which the parser would
//! otherwise take for the end of the string, and an empty list parameter (`()`, which the parser
//! refuses) written as an omitted one (`$`). What follows `END-ISO-10303-21;` (the padding or
//! signature some tools and transfers add) is left out: the file ends there.

use crate::GeometryError;

/// Deepest bracket nesting taken (real files nest about five deep: a list of lists in a complex
/// instance).
pub const MAX_NESTING: usize = 32;
/// Most entity instances a file may hold.
pub const MAX_ENTITIES: usize = 2_000_000;
/// The last statement of an exchange structure.
const END_MARK: &str = "END-ISO-10303-21;";
/// Stands for `''` inside a string while the parser reads the text (a private-use character).
pub const QUOTE_IN_STRING: char = '\u{E000}';

/// Where the scan is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Code,
    /// Inside `'…'`.
    Text,
    /// Inside `"…"` (a binary value).
    Binary,
    /// Inside `/* … */`.
    Comment,
}

/// Checks the file's shape within the limits and returns the text for the parser.
pub fn prepare(bytes: &[u8]) -> Result<String, GeometryError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.iter().map(|&byte| char::from(byte)).collect(),
    };
    check_begins_as_step(&text)?;
    let mut prepared = String::with_capacity(text.len());
    let mut place = Place::Code;
    let mut depth = 0_usize;
    let mut statements = 0_usize;
    let mut line = 1_usize;
    // The last character outside strings and comments that is not white space.
    let mut last_code: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        }
        match place {
            Place::Code => match c {
                '\'' => place = Place::Text,
                '"' => place = Place::Binary,
                '/' if chars.peek() == Some(&'*') => place = Place::Comment,
                '(' if matches!(last_code, Some('(' | ',')) && opens_empty_list(&chars) => {
                    // An empty list parameter: `$` instead, and the `)` is skipped.
                    for skipped in chars.by_ref() {
                        if skipped == '\n' {
                            line += 1;
                        }
                        if skipped == ')' {
                            break;
                        }
                    }
                    prepared.push('$');
                    last_code = Some('$');
                    continue;
                }
                '(' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Err(GeometryError::OverLimit(format!(
                            "brackets nest deeper than {MAX_NESTING} on line {line}"
                        )));
                    }
                }
                ')' => {
                    depth = depth.checked_sub(1).ok_or_else(|| {
                        GeometryError::Malformed(format!(
                            "a bracket closes on line {line} that was never opened"
                        ))
                    })?;
                }
                ';' => {
                    if depth != 0 {
                        return Err(GeometryError::Malformed(format!(
                            "a statement ends on line {line} inside brackets"
                        )));
                    }
                    statements += 1;
                    if statements > MAX_ENTITIES {
                        return Err(GeometryError::OverLimit(format!(
                            "more than {MAX_ENTITIES} entity instances"
                        )));
                    }
                }
                _ => {}
            },
            Place::Text => {
                if c == '\'' {
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                        prepared.push(QUOTE_IN_STRING);
                        continue;
                    }
                    place = Place::Code;
                }
            }
            Place::Binary => {
                if c == '"' {
                    place = Place::Code;
                }
            }
            Place::Comment => {
                if c == '*' && chars.peek() == Some(&'/') {
                    prepared.push(c);
                    prepared.push('/');
                    chars.next();
                    place = Place::Code;
                    continue;
                }
            }
        }
        if place == Place::Code && !c.is_whitespace() {
            last_code = Some(c);
        }
        prepared.push(c);
        if c == ';' && place == Place::Code && depth == 0 && prepared.ends_with(END_MARK) {
            // The exchange structure ends here; what some tools add after it (padding, a
            // signature, another copy cut short) is not part of it.
            break;
        }
    }
    check_ends_complete(place, depth, &prepared)?;
    Ok(prepared)
}

/// A STEP file begins (after white space or a byte order mark) with `ISO-10303-21;`.
fn check_begins_as_step(text: &str) -> Result<(), GeometryError> {
    let start = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if !start.starts_with("ISO-10303-21;") {
        return Err(GeometryError::Malformed(
            "not a STEP file: it does not begin with ISO-10303-21;".to_owned(),
        ));
    }
    Ok(())
}

/// A complete STEP file ends outside strings, comments and brackets, with `END-ISO-10303-21;`.
fn check_ends_complete(place: Place, depth: usize, prepared: &str) -> Result<(), GeometryError> {
    let unfinished = match place {
        Place::Text => Some("inside a string"),
        Place::Binary => Some("inside a binary value"),
        Place::Comment => Some("inside a comment"),
        Place::Code if depth > 0 => Some("inside brackets"),
        Place::Code => None,
    };
    if let Some(inside) = unfinished {
        return Err(GeometryError::Malformed(format!(
            "the STEP file is truncated: it ends {inside}"
        )));
    }
    if !prepared.trim_end().ends_with(END_MARK) {
        return Err(GeometryError::Malformed(
            "the STEP file is truncated: it does not end with END-ISO-10303-21;".to_owned(),
        ));
    }
    Ok(())
}

/// True when the characters after a `(` are white space and then `)`.
fn opens_empty_list(rest: &std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    rest.clone()
        .find(|c| !c.is_whitespace())
        .is_some_and(|c| c == ')')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(data: &str) -> String {
        format!(
            "ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\nENDSEC;\nDATA;\n{data}\nENDSEC;\nEND-ISO-10303-21;\n"
        )
    }

    #[test]
    fn what_follows_the_end_is_left_out_and_a_file_without_an_end_is_still_truncated() {
        let mut bytes = wrap("#1=PRODUCT('p','p',$,());").into_bytes();
        bytes.extend_from_slice(b"\0\0\x1a-----BEGIN SIGNATURE----- it's (unbalanced\n");
        let text = prepare(&bytes).unwrap();
        assert!(text.ends_with("END-ISO-10303-21;"), "{text}");
        assert!(ruststep::parser::parse(&text).is_ok());
        let cut = wrap("#1=PRODUCT('p','p',$,());");
        let cut = &cut[..cut.len() - "END-ISO-10303-21;\n".len()];
        assert!(matches!(
            prepare(cut.as_bytes()),
            Err(GeometryError::Malformed(_))
        ));
    }

    #[test]
    fn a_doubled_quote_in_a_string_survives_for_the_parser() {
        let text = prepare(wrap("#1=PRODUCT('Bob''s part','a;b(c',$,());").as_bytes()).unwrap();
        assert!(text.contains("'Bob\u{e000}s part'"), "{text}");
        assert!(text.contains("'a;b(c'"));
    }

    #[test]
    fn empty_lists_become_omitted_parameters_and_empty_records_stay() {
        let text =
            prepare(wrap("#1=X('',(),( ),#2);\n#3=(LENGTH_UNIT()NAMED_UNIT(*));").as_bytes())
                .unwrap();
        assert!(text.contains("#1=X('',$,$,#2);"), "{text}");
        assert!(text.contains("#3=(LENGTH_UNIT()NAMED_UNIT(*));"), "{text}");
        let exchange = ruststep::parser::parse(&text).unwrap();
        assert_eq!(exchange.data[0].entities.len(), 2);
    }

    #[test]
    fn latin1_bytes_are_read_as_latin1() {
        let mut bytes = wrap("#1=PRODUCT('M\u{fc}ller',$,$,());").into_bytes();
        // Turn the UTF-8 ü (0xC3 0xBC) into the ISO 8859-1 byte 0xFC.
        let at = bytes
            .windows(2)
            .position(|pair| pair == [0xC3, 0xBC])
            .unwrap();
        bytes.splice(at..at + 2, [0xFC]);
        assert!(prepare(&bytes).unwrap().contains("M\u{fc}ller"));
    }

    #[test]
    fn truncated_files_say_where_they_end() {
        let whole = wrap("#1=CARTESIAN_POINT('',(0.,0.,0.));");
        for cut in [
            whole.len() - 30,
            whole.find("0.,0.").unwrap(),
            whole.find("('',").unwrap() + 2,
        ] {
            let error = prepare(&whole.as_bytes()[..cut]).unwrap_err();
            assert!(error.to_string().contains("truncated"), "{cut}: {error}");
        }
        assert!(
            prepare(b"solid cube\n")
                .unwrap_err()
                .to_string()
                .contains("not a STEP file")
        );
    }

    #[test]
    fn nesting_and_instance_counts_are_limited() {
        let deep = format!(
            "#1=X({}1{});",
            "(".repeat(MAX_NESTING),
            ")".repeat(MAX_NESTING)
        );
        let error = prepare(wrap(&deep).as_bytes()).unwrap_err();
        assert!(matches!(error, GeometryError::OverLimit(_)), "{error}");
        let fine = format!(
            "#1=X({}1{});",
            "(".repeat(MAX_NESTING - 1),
            ")".repeat(MAX_NESTING - 1)
        );
        assert!(prepare(wrap(&fine).as_bytes()).is_ok());
        let many = "#1=X();".repeat(MAX_ENTITIES + 1);
        let error = prepare(wrap(&many).as_bytes()).unwrap_err();
        assert!(error.to_string().contains("entity instances"), "{error}");
    }
}
