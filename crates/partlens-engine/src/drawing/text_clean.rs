//! Turning the text a DXF file stores into the text a reader sees: MTEXT formatting codes
//! (`\P`, `{\fArial|b1;…}`, `\S1^2;`, `\U+2205`), the `%%c`/`%%d`/`%%p` control codes (Ø, °, ±), and
//! a dimension's displayed text (its measured value, or the override with `<>` standing for the value).

/// Replaces the `%%` control codes of TEXT, ATTRIB and dimension text: `%%c` Ø, `%%d` °, `%%p` ±,
/// `%%%` a percent sign, `%%nnn` the character with that code; `%%u`/`%%o` (underline/overline
/// toggles) vanish. An unknown code is kept as written.
pub fn replace_control_codes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("%%") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let mut chars = after.chars();
        match chars.next().map(|c| c.to_ascii_lowercase()) {
            Some('c') => {
                out.push('Ø');
                rest = &after[1..];
            }
            Some('d') => {
                out.push('°');
                rest = &after[1..];
            }
            Some('p') => {
                out.push('±');
                rest = &after[1..];
            }
            Some('%') => {
                out.push('%');
                rest = &after[1..];
            }
            Some('u' | 'o' | 'k') => rest = &after[1..],
            Some(digit) if digit.is_ascii_digit() => {
                let digits: String = after
                    .chars()
                    .take(3)
                    .take_while(char::is_ascii_digit)
                    .collect();
                match digits.parse::<u32>().ok().and_then(char::from_u32) {
                    Some(decoded) if !decoded.is_control() => out.push(decoded),
                    _ => {}
                }
                rest = &after[digits.len()..];
            }
            _ => {
                out.push_str("%%");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The plain text of an MTEXT value: formatting codes stripped, `\P` as a line break, stacked
/// fractions as `1/2`, `\U+XXXX` decoded, then the `%%` control codes replaced. Lines are trimmed and
/// empty lines dropped.
pub fn clean_mtext(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '}' => {}
            '\\' => {
                let Some(code) = chars.next() else { break };
                match code {
                    'P' | 'X' => out.push('\n'),
                    '~' => out.push(' '),
                    '\\' | '{' | '}' => out.push(code),
                    'L' | 'l' | 'O' | 'o' | 'K' | 'k' | 'N' => {}
                    'S' => {
                        // Stacked text `\Snum^den;`, `\Snum/den;` or `\Snum#den;`.
                        for part in chars.by_ref() {
                            match part {
                                ';' => break,
                                '^' | '#' | '/' => out.push('/'),
                                other => out.push(other),
                            }
                        }
                    }
                    'U' if chars.peek() == Some(&'+') => {
                        chars.next();
                        let hex: String = chars.by_ref().take(4).collect();
                        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                            Some(decoded) if !decoded.is_control() => out.push(decoded),
                            _ => {}
                        }
                    }
                    // Codes with an argument up to `;`: \A1; \C1; \Farial|b0; \H2.5x; \Q15; \T1.2; \W0.8; …
                    _ => {
                        for skipped in chars.by_ref() {
                            if skipped == ';' {
                                break;
                            }
                        }
                    }
                }
            }
            '\r' => {}
            other => out.push(other),
        }
    }
    tidy_lines(&replace_control_codes(&out))
}

/// The plain text of a TEXT or ATTRIB value (single line; `%%` codes replaced).
pub fn clean_single_line(raw: &str) -> String {
    replace_control_codes(raw).trim().to_owned()
}

/// A measured value as a drawing shows it: at most two decimals, no trailing zeros (`25`, `12.5`).
pub fn format_measurement(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// The text a dimension displays. `override_text` is the DIMENSION's text field: empty or `<>` shows
/// the measured value (`prefix` first: `Ø` for diameters, `R` for radii), otherwise `<>` inside it is
/// replaced by the value. A single space (AutoCAD's "suppress the text") gives an empty string.
pub fn dimension_text(override_text: &str, prefix: &str, measured: &str) -> String {
    if override_text == " " {
        return String::new();
    }
    if override_text.is_empty() {
        return format!("{prefix}{measured}");
    }
    // An override that writes the prefix itself (`%%c<>`) does not get it twice.
    let written = replace_control_codes(override_text);
    let value = if !prefix.is_empty() && written.contains(&format!("{prefix}<>")) {
        measured.to_owned()
    } else {
        format!("{prefix}{measured}")
    };
    clean_mtext(&written.replace("<>", &value))
}

fn tidy_lines(text: &str) -> String {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_codes_become_symbols() {
        assert_eq!(replace_control_codes("%%c25 %%p0.1"), "Ø25 ±0.1");
        assert_eq!(replace_control_codes("45%%D"), "45°");
        assert_eq!(replace_control_codes("100%%% %%uunder%%u"), "100% under");
        assert_eq!(replace_control_codes("%%065"), "A");
        assert_eq!(replace_control_codes("50%% off %%"), "50%% off %%");
    }

    #[test]
    fn mtext_formatting_is_stripped() {
        assert_eq!(
            clean_mtext("{\\fArial|b1|i0;NOTE:} \\H2.5x;BREAK\\PALL EDGES"),
            "NOTE: BREAK\nALL EDGES"
        );
        assert_eq!(clean_mtext("\\A1;%%c20\\S+0.1^-0.2;"), "Ø20+0.1/-0.2");
        assert_eq!(clean_mtext("a\\~b \\\\ \\{x\\}"), "a b \\ {x}");
        assert_eq!(clean_mtext("\\U+2205 10\\P\\P"), "∅ 10");
        assert_eq!(clean_mtext("\\C1;\\LRED\\l"), "RED");
        // A code cut off at the end of the text is not a panic.
        assert_eq!(clean_mtext("TEXT\\"), "TEXT");
        assert_eq!(clean_mtext("\\U+12"), "");
    }

    #[test]
    fn dimension_text_shows_the_value_or_the_override() {
        assert_eq!(dimension_text("", "", "25"), "25");
        assert_eq!(dimension_text("<>", "Ø", "40"), "Ø40");
        assert_eq!(dimension_text("%%c<> %%p0.05", "", "40"), "Ø40 ±0.05");
        assert_eq!(dimension_text("%%C<> H7", "Ø", "60"), "Ø60 H7");
        assert_eq!(dimension_text("<> H7", "Ø", "20"), "Ø20 H7");
        assert_eq!(dimension_text("TYP 4X", "", "8"), "TYP 4X");
        assert_eq!(dimension_text(" ", "", "8"), "");
    }

    #[test]
    fn measurements_are_formatted_like_a_drawing() {
        assert_eq!(format_measurement(25.0), "25");
        assert_eq!(format_measurement(12.5), "12.5");
        assert_eq!(format_measurement(1.0 / 3.0), "0.33");
        assert_eq!(format_measurement(-0.001), "0");
        assert_eq!(format_measurement(f64::NAN), "");
    }
}
