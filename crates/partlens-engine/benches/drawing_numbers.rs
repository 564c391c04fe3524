//! Drawing-text benchmark (issue 24): for every PDF and DXF of the real-world corpus
//! (`../shared/realworld/{pdf,dxf}`, or `PARTLENS_REALWORLD_DIR`), the numbers written on the drawing
//! as independent readers see them (`drawing_reference.py` beside this file: poppler's `pdftotext`,
//! ezdxf's TEXT/MTEXT/ATTRIB/DIMENSION texts) against the numbers that reach partlens's PMI items,
//! free text and extracted attributes, and how many PMI items carry text that is on the page.
//! Prints a markdown table. Needs `pdftotext` (poppler-utils) and Python's `ezdxf`; no test uses it.
//!
//! ```text
//! cargo test -p partlens-engine --bench drawing_numbers     # a debug build (the engine is optimised)
//! PARTLENS_DRAWING_DUMP=Bottom_Panel cargo test -p partlens-engine --bench drawing_numbers
//! ```
//!
//! `PARTLENS_DRAWING_DUMP` (part of a file name) prints that file's PMI items, attributes and
//! reference text on stderr.

use std::collections::BTreeMap;
use std::path::PathBuf;

#[path = "support/drawing_reference.rs"]
mod drawing_reference;

use drawing_reference::{analysis_text, corpus_dir, matched, numbers, reference};

/// Missed numbers shown per file.
const MISSED_SHOWN: usize = 8;

/// True when every word of an item is on the page (layout splits an item's words across columns,
/// so the item as a whole need not appear in the reference's text).
fn on_page(item: &str, page_words: &std::collections::HashSet<&str>, page: &str) -> bool {
    item.split_whitespace()
        .all(|word| page_words.contains(word) || page.contains(word))
}

#[derive(Default)]
struct Tally {
    files: usize,
    on_page: usize,
    found: usize,
    items: usize,
    items_on_page: usize,
    files_with_text: usize,
    files_with_text_and_items: usize,
}

fn main() {
    let dir = corpus_dir();
    let mut groups: BTreeMap<&str, Tally> = BTreeMap::new();
    println!("## Numbers on the corpus's drawings found by partlens\n");
    println!(
        "| file | numbers on the drawing | found | PMI items | items on the page | missed (examples) | items not on the page (examples) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (group, extension) in [("PDF", "pdf"), ("DXF", "dxf")] {
        let Ok(entries) = std::fs::read_dir(dir.join(extension)) else {
            println!("(no {group} folder in {})", dir.display());
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let Some(reference) = reference(&path) else {
                println!("| {} | reference reader failed | | | | | |", path.display());
                continue;
            };
            let bytes = std::fs::read(&path).unwrap_or_default();
            let analysis = partlens_engine::analyze(&format!(".{extension}"), &bytes);
            let (ours, items) = match &analysis {
                Ok(analysis) => {
                    let items: Vec<String> = analysis
                        .pmi_pages
                        .iter()
                        .flat_map(|page| page.items.iter().map(|item| item.text.clone()))
                        .collect();
                    (numbers(&analysis_text(analysis)), items)
                }
                Err(_) => (Vec::new(), Vec::new()),
            };
            let (found, missed) = matched(&reference.numbers, ours);
            let page_words = reference.text.split_whitespace().collect();
            let foreign: Vec<&String> = items
                .iter()
                .filter(|item| !on_page(item, &page_words, &reference.text))
                .collect();
            if std::env::var("PARTLENS_DRAWING_DUMP")
                .is_ok_and(|dump| path.to_string_lossy().contains(&dump))
            {
                if let Ok(analysis) = &analysis {
                    for page in &analysis.pmi_pages {
                        for item in &page.items {
                            eprintln!("{} {:?} {:?}", item.type_id, item.box_in_page, item.text);
                        }
                    }
                    eprintln!("attributes {:?}", analysis.extracted_attributes);
                }
                eprintln!("reference {:?}", reference.text);
            }
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let status = if analysis.is_err() { " (refused)" } else { "" };
            println!(
                "| {name}{status} | {} | {found} | {} | {} | {} | {} |",
                reference.numbers.len(),
                items.len(),
                items.len() - foreign.len(),
                missed
                    .iter()
                    .take(MISSED_SHOWN)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" "),
                foreign
                    .iter()
                    .take(4)
                    .map(|t| format!("`{}`", t.replace('|', "/")))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            let tally = groups.entry(group).or_default();
            tally.files += 1;
            tally.on_page += reference.numbers.len();
            tally.found += found;
            tally.items += items.len();
            tally.items_on_page += items.len() - foreign.len();
            if !reference.text.trim().is_empty() {
                tally.files_with_text += 1;
                if !items.is_empty() {
                    tally.files_with_text_and_items += 1;
                }
            }
        }
    }
    println!(
        "\n| group | files | numbers found / on the drawings | PMI items on the page / items | drawings with text that give PMI |"
    );
    println!("|---|---|---|---|---|");
    for (group, tally) in &groups {
        println!(
            "| {group} | {} | {} / {} ({:.0} %) | {} / {} ({:.0} %) | {} / {} |",
            tally.files,
            tally.found,
            tally.on_page,
            percent(tally.found, tally.on_page),
            tally.items_on_page,
            tally.items,
            percent(tally.items_on_page, tally.items),
            tally.files_with_text_and_items,
            tally.files_with_text,
        );
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
