//! What an IGES file says about the part in words, read in pure Rust from its Start and Global
//! sections (every build, with or without OpenCASCADE): the product id (as `part_number`), the
//! file name, the CAD system, author and organisation, and the Start section's free text. Meshing
//! IGES needs the `occt` feature.
//!
//! Limits: only the first [`MAX_HEADER_LINES`] lines are looked at (the Start and Global sections
//! come first and are a few lines long); values are one line of at most
//! [`MAX_VALUE_CHARS`](super::step::MAX_VALUE_CHARS) characters without `|`.

use super::ModelDescription;
use super::step::MAX_VALUE_CHARS;

/// Lines of the file looked at for the Start and Global sections.
pub const MAX_HEADER_LINES: usize = 1_000;

/// The Start and Global sections of an IGES file as a description; empty when the file has none.
pub fn describe_iges(bytes: &[u8]) -> ModelDescription {
    let mut start = Vec::new();
    let mut global = String::new();
    for line in bytes.split(|&byte| byte == b'\n').take(MAX_HEADER_LINES) {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_end_matches('\r');
        // Columns 1-72 hold the data, column 73 the section letter.
        let (Some(data), Some(section)) = (line.get(..72), line.get(72..73)) else {
            continue;
        };
        match section {
            "S" => start.push(data.trim().to_owned()),
            "G" => global.push_str(data),
            "D" | "P" | "T" => break,
            _ => {}
        }
    }
    let fields = global_fields(&global);
    let field = |number: usize| -> Option<String> {
        fields
            .get(number - 1)
            .map(|value| one_line(value))
            .filter(|value| !value.is_empty())
    };
    let mut attributes = Vec::new();
    for (name, number) in [
        ("part_number", 3),
        ("cad_system", 5),
        ("author", 21),
        ("organization", 22),
    ] {
        if let Some(value) = field(number) {
            attributes.push(format!("{name}={}", value.replace('|', "/")));
        }
    }
    let mut text: Vec<String> = start.into_iter().filter(|line| !line.is_empty()).collect();
    text.extend([3, 4].into_iter().filter_map(field));
    ModelDescription {
        text: text.join("\n"),
        attributes,
    }
}

/// The Global section's parameters: strings (`nH…`) decoded, numbers as written. The delimiters
/// are `,` and `;` unless the first two parameters name others.
fn global_fields(global: &str) -> Vec<String> {
    let mut delimiter = ',';
    let mut end = ';';
    let mut fields = Vec::new();
    let chars: Vec<char> = global.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        // A Hollerith string: digits, `H`, that many characters.
        let digits: String = chars[at..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let value = if !digits.is_empty() && chars.get(at + digits.len()) == Some(&'H') {
            let length: usize = digits.parse().unwrap_or(0);
            let begin = at + digits.len() + 1;
            let finish = (begin + length).min(chars.len());
            at = finish;
            chars[begin..finish].iter().collect::<String>()
        } else {
            let rest = &chars[at..];
            let length = rest
                .iter()
                .position(|&c| c == delimiter || c == end)
                .unwrap_or(rest.len());
            at += length;
            rest[..length].iter().collect::<String>().trim().to_owned()
        };
        // The first two parameters may redefine the delimiters.
        match fields.len() {
            0 if value.chars().count() == 1 => delimiter = value.chars().next().unwrap_or(','),
            1 if value.chars().count() == 1 => end = value.chars().next().unwrap_or(';'),
            _ => {}
        }
        fields.push(value);
        match chars.get(at) {
            Some(&c) if c == end => break,
            Some(_) => at += 1,
            None => break,
        }
    }
    fields
}

fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.chars().take(MAX_VALUE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_iges_header_becomes_attributes_and_text() {
        let bytes = std::fs::read(concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/assets/samples/models/washer.igs"
        ))
        .unwrap();
        let description = describe_iges(&bytes);
        assert_eq!(
            description.attributes,
            [
                "part_number=PL-1004",
                "cad_system=partlens make_sample_cad_models",
                "author=partlens",
                "organization=partlens samples",
            ]
        );
        assert!(description.text.contains("four surfaces of revolution"));
        assert!(description.text.contains("washer.igs"));
    }

    #[test]
    fn other_delimiters_strings_holding_them_and_junk() {
        let global = "1H/,1H!,4Ha,b;/9Hfile.iges/8Hsystem 1/";
        let fields = global_fields(global);
        assert_eq!(fields[..5], ["/", "!", "a,b;", "file.iges", "system 1"]);
        assert!(describe_iges(b"not an iges file at all").is_empty());
        assert!(describe_iges(&[0xff; 300]).is_empty());
    }
}
