//! What the drawing benches share: where the real-world corpus is, how numbers are counted on
//! both sides, and the reference reader (`drawing_reference.py`: poppler's `pdftotext`, ezdxf).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The real-world corpus: `../shared/realworld` beside the repository, or
/// `PARTLENS_REALWORLD_DIR`.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("PARTLENS_REALWORLD_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld"),
        PathBuf::from,
    )
}

/// The numbers of a text (`12`, `3.5`, `0,25` as `0.25`), normalised: no leading or trailing zeros.
pub fn numbers(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut number = String::new();
        while i < chars.len() && chars[i].is_ascii_digit() {
            number.push(chars[i]);
            i += 1;
        }
        if i + 1 < chars.len() && matches!(chars[i], '.' | ',') && chars[i + 1].is_ascii_digit() {
            number.push('.');
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                number.push(chars[i]);
                i += 1;
            }
        }
        found.push(normalise(&number));
    }
    found
}

fn normalise(number: &str) -> String {
    let number = if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    };
    let number = number.trim_start_matches('0');
    if number.is_empty() || number.starts_with('.') {
        format!("0{number}")
    } else {
        number.to_owned()
    }
}

/// What the reference readers see: the page's text and its numbers.
pub struct Reference {
    /// The page's text.
    pub text: String,
    /// Its numbers, normalised.
    pub numbers: Vec<String>,
}

/// What the reference readers see of the drawing at `path`; `None` when they failed.
pub fn reference(path: &Path) -> Option<Reference> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/drawing_reference.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(path)
        .output()
        .ok()?;
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    // The numbers are counted here, as partlens's are, so that both sides normalise alike.
    let text = value.get("text")?.as_str()?.to_owned();
    Some(Reference {
        numbers: numbers(&text),
        text,
    })
}

/// How many of the `reference` numbers are among `ours` (each of ours counted once), and the
/// ones missed.
pub fn matched(reference: &[String], mut ours: Vec<String>) -> (usize, Vec<String>) {
    let mut missed = Vec::new();
    let mut found = 0;
    for number in reference {
        if let Some(at) = ours.iter().position(|n| n == number) {
            ours.swap_remove(at);
            found += 1;
        } else {
            missed.push(number.clone());
        }
    }
    (found, missed)
}

/// Everything of an analysis that carries text: its PMI items, free text and extracted attributes,
/// one a line.
pub fn analysis_text(analysis: &partlens_engine::Analysis) -> String {
    let mut all: Vec<&str> = analysis
        .pmi_pages
        .iter()
        .flat_map(|page| page.items.iter().map(|item| item.text.as_str()))
        .collect();
    all.push(&analysis.text);
    all.extend(analysis.extracted_attributes.iter().map(String::as_str));
    all.join("\n")
}
