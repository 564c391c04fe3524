//! Scanned-drawing benchmark (issue 24): the corpus's vector PDF drawings (`../shared/realworld/pdf`
//! or `PARTLENS_REALWORLD_DIR`) made into scans — page 1 rendered by poppler's `pdftoppm` (real
//! fonts, not partlens's renderer) in grey at 150, 200 and 300 dpi, turned by a degree or so and
//! sprinkled with noise, saved as PNG and (at 200 dpi) TIFF and an image-only PDF (the page a JPEG
//! on an otherwise empty page, as scanners save) — then read by the OCR build. Printed: the numbers of the page (poppler's `pdftotext`, as in `drawing_numbers`) found
//! in partlens's PMI items, free text and attributes; the part number of the title block (the one
//! the vector reader extracts from the same PDF) extracted again; the time of a read; and whether
//! any picture of the sample library (photos and renders of parts) was sent to OCR.
//!
//! ```text
//! cargo bench -p partlens-engine --features ocr --bench scanned_drawings   # optimised, as shipped
//! cargo test -p partlens-engine --features ocr --bench scanned_drawings    # a debug build
//! ```
//!
//! `PARTLENS_SCAN_DPI=200` scans at one resolution only; `PARTLENS_SCAN_DUMP` (part of a file
//! name) prints that file's PMI items and attributes on stderr.
//!
//! Needs `pdftoppm`/`pdftotext` (poppler-utils), Python's `ezdxf` (the reference script) and, for
//! the OCR itself, the `tesseract` program with English data. No test uses it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use image::{DynamicImage, GrayImage, ImageFormat, Luma};
use imageproc::geometric_transformations::{Border, Interpolation, rotate_about_center};
use rand::{RngExt, SeedableRng};

#[path = "support/drawing_reference.rs"]
mod drawing_reference;

use drawing_reference::{analysis_text, corpus_dir, matched, numbers, reference};

/// Resolutions a page is scanned at (`PARTLENS_SCAN_DPI=200` for one).
const DPIS: [u32; 3] = [150, 200, 300];

/// The classifier's view of a picture: tones and character-sized blobs.
fn classified(picture: &DynamicImage) -> String {
    let tones = partlens_engine::drawing::raster::Tones::of(picture);
    format!(
        "paper {:.3} ink {:.4} mid {:.3} blobs {}",
        tones.paper,
        tones.ink,
        tones.midtones,
        partlens_engine::drawing::raster::character_blobs(picture)
    )
}
/// The resolution the TIFF copy and the reported time are made at.
const TIMED_DPI: u32 = 200;

/// Page 1 of a PDF as a grey scan at `dpi`: rendered by `pdftoppm`, turned by `degrees`, with
/// ±25 grey levels of seeded noise.
fn scan(path: &Path, dpi: u32, degrees: f32, seed: u64) -> Option<GrayImage> {
    let out = tempfile::tempdir().ok()?;
    let stem = out.path().join("page");
    let status = Command::new("pdftoppm")
        .args(["-f", "1", "-l", "1", "-gray", "-png", "-singlefile", "-r"])
        .arg(dpi.to_string())
        .arg(path)
        .arg(&stem)
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    let page = image::open(stem.with_extension("png")).ok()?.to_luma8();
    let mut turned = rotate_about_center(
        &page,
        degrees.to_radians(),
        Interpolation::Bilinear,
        Border::Constant(Luma([255])),
    );
    let mut noise = rand::rngs::StdRng::seed_from_u64(seed);
    for pixel in turned.pixels_mut() {
        let jitter: i16 = noise.random_range(-25..=25);
        pixel.0[0] = (i16::from(pixel.0[0]) + jitter).clamp(0, 255) as u8;
    }
    Some(turned)
}

fn encoded(page: &GrayImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    DynamicImage::ImageLuma8(page.clone())
        .write_to(&mut std::io::Cursor::new(&mut bytes), format)
        .unwrap_or_default();
    bytes
}

/// A PDF whose one page is only the scan (a scanner's "save as PDF"): the page as a JPEG image
/// XObject (`DCTDecode`) over the whole page, no text.
fn image_only_pdf(page: &GrayImage, dpi: u32) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let jpeg = encoded(page, ImageFormat::Jpeg);
    let points = |pixels: u32| (f64::from(pixels) * 72.0 / f64::from(dpi)).round() as i64;
    let (width, height) = (points(page.width()), points(page.height()));
    let mut document = Document::with_version("1.5");
    let pages_id = document.new_object_id();
    let image_id = document.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => i64::from(page.width()),
            "Height" => i64::from(page.height()), "ColorSpace" => "DeviceGray",
            "BitsPerComponent" => 8, "Filter" => "DCTDecode",
        },
        jpeg,
    ));
    let content = document.add_object(Stream::new(
        dictionary! {},
        format!("q {width} 0 0 {height} 0 0 cm /Im1 Do Q").into_bytes(),
    ));
    let page_id = document.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "MediaBox" => vec![0.into(), 0.into(), width.into(), height.into()],
        "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image_id } },
    });
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
        }),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    document.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).unwrap_or_default();
    bytes
}

/// The value of an extracted attribute (`name=value`).
fn attribute(analysis: &partlens_engine::Analysis, name: &str) -> Option<String> {
    analysis.extracted_attributes.iter().find_map(|pair| {
        pair.split_once('=')
            .filter(|(key, _)| *key == name)
            .map(|(_, value)| value.to_owned())
    })
}

/// A part number compared as a reader would: letters and digits only, upper-case.
fn same_part_number(a: &str, b: &str) -> bool {
    let plain = |text: &str| -> String {
        text.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    !plain(a).is_empty() && plain(a) == plain(b)
}

#[derive(Default)]
struct Tally {
    pages: usize,
    on_page: usize,
    found: usize,
    with_part_number: usize,
    part_number_read: usize,
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The sample library's pictures (photos and renders of parts): how many of them were read as
/// drawings (given PMI items or the "text not read" attribute).
fn photos_read_as_drawings() -> (usize, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/samples");
    let mut pictures: Vec<PathBuf> = ["", "views"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(dir.join(sub)).ok())
        .flatten()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| matches!(ext.to_str(), Some("png" | "jpg" | "jpeg")))
        })
        .collect();
    pictures.sort();
    let mut read = 0;
    for path in &pictures {
        let bytes = std::fs::read(path).unwrap_or_default();
        let extension = format!(
            ".{}",
            path.extension().and_then(|e| e.to_str()).unwrap_or("png")
        );
        if let Ok(analysis) = partlens_engine::analyze(&extension, &bytes) {
            let as_drawing = !analysis.pmi_pages.is_empty()
                || attribute(&analysis, partlens_engine::drawing::TEXT_NOT_READ_ATTRIBUTE)
                    .is_some();
            if as_drawing {
                println!("photo read as a drawing: {}", path.display());
                read += 1;
            }
            if let Ok(picture) = image::load_from_memory(&bytes) {
                println!("photo {}: {}", path.display(), classified(&picture));
            }
        }
    }
    (read, pictures.len())
}

fn main() {
    if !partlens_engine::drawing::READS_RASTER_TEXT {
        println!("scanned_drawings: needs the ocr feature (--features ocr)");
        return;
    }
    let dir = corpus_dir().join("pdf");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("scanned_drawings: no corpus at {}", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut times: Vec<(String, Duration, (u32, u32))> = Vec::new();
    println!("## Scanned drawings read by OCR\n");
    println!(
        "| file | scan | numbers on the page | found | part number | read as | time | missed (examples) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (index, path) in paths.iter().enumerate() {
        let Some(reference) = reference(path) else {
            println!("| {} | reference reader failed |", path.display());
            continue;
        };
        if reference.text.trim().is_empty() {
            // Nothing written on it: no measure of a reader.
            continue;
        }
        let vector = std::fs::read(path)
            .ok()
            .and_then(|bytes| partlens_engine::analyze(".pdf", &bytes).ok());
        let part_number = vector
            .as_ref()
            .and_then(|analysis| attribute(analysis, "part_number"));
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let only: Option<u32> = std::env::var("PARTLENS_SCAN_DPI")
            .ok()
            .and_then(|dpi| dpi.parse().ok());
        for dpi in DPIS
            .into_iter()
            .filter(|dpi| only.is_none_or(|only| only == *dpi))
        {
            // A degree or so either way, different for each page.
            let degrees = [0.8_f32, -1.2, 1.5][index % 3];
            let Some(page) = scan(path, dpi, degrees, index as u64) else {
                println!("| {name} | {dpi} dpi | pdftoppm failed |");
                continue;
            };
            let mut formats = vec![".png"];
            if dpi == TIMED_DPI {
                formats.extend([".tiff", ".pdf"]);
            }
            for extension in formats {
                let bytes = match extension {
                    ".pdf" => image_only_pdf(&page, dpi),
                    ".tiff" => encoded(&page, ImageFormat::Tiff),
                    _ => encoded(&page, ImageFormat::Png),
                };
                let started = Instant::now();
                let analysis = partlens_engine::analyze(extension, &bytes);
                let elapsed = started.elapsed();
                let (ours, read_part_number) = match &analysis {
                    Ok(analysis) => (
                        numbers(&analysis_text(analysis)),
                        attribute(analysis, "part_number"),
                    ),
                    Err(_) => (Vec::new(), None),
                };
                let (found, missed) = matched(&reference.numbers, ours);
                if let (Ok(analysis), Ok(dump)) = (&analysis, std::env::var("PARTLENS_SCAN_DUMP"))
                    && name.contains(&dump)
                {
                    for item in analysis.pmi_pages.iter().flat_map(|page| &page.items) {
                        eprintln!("{} {:?} {:?}", item.type_id, item.box_in_page, item.text);
                    }
                    eprintln!("attributes {:?}", analysis.extracted_attributes);
                }
                let part_number_cell = match (&part_number, &read_part_number) {
                    (None, _) => "—".to_owned(),
                    (Some(expected), Some(read)) if same_part_number(expected, read) => {
                        format!("`{read}` ✓")
                    }
                    (Some(expected), read) => format!(
                        "`{}` ✗ (is `{expected}`)",
                        read.as_deref().unwrap_or("none")
                    ),
                };
                let key = format!("{} dpi {}", dpi, &extension[1..]);
                let tally = tallies.entry(key.clone()).or_default();
                tally.pages += 1;
                tally.on_page += reference.numbers.len();
                tally.found += found;
                if let Some(expected) = &part_number {
                    tally.with_part_number += 1;
                    if read_part_number
                        .as_deref()
                        .is_some_and(|read| same_part_number(expected, read))
                    {
                        tally.part_number_read += 1;
                    }
                }
                if dpi == TIMED_DPI && extension == ".png" {
                    times.push((name.clone(), elapsed, page.dimensions()));
                }
                println!(
                    "| {name} | {key} ({}×{}, {degrees}°) | {} | {found} | {part_number_cell} | {} | {} ms | {} | {} |",
                    page.width(),
                    page.height(),
                    reference.numbers.len(),
                    match &analysis {
                        Ok(analysis) if !analysis.pmi_pages.is_empty() => "drawing",
                        Ok(_) => "picture",
                        Err(_) => "refused",
                    },
                    elapsed.as_millis(),
                    missed.iter().take(6).cloned().collect::<Vec<_>>().join(" "),
                    classified(&DynamicImage::ImageLuma8(page.clone())),
                );
            }
        }
    }
    println!(
        "\n| scans | pages | numbers found / on the pages | part numbers read / pages with one |"
    );
    println!("|---|---|---|---|");
    for (key, tally) in &tallies {
        println!(
            "| {key} | {} | {} / {} ({:.0} %) | {} / {} ({:.0} %) |",
            tally.pages,
            tally.found,
            tally.on_page,
            percent(tally.found, tally.on_page),
            tally.part_number_read,
            tally.with_part_number,
            percent(tally.part_number_read, tally.with_part_number),
        );
    }
    times.sort_by_key(|(_, elapsed, _)| *elapsed);
    if let Some((name, median, (width, height))) = times.get(times.len() / 2) {
        println!(
            "\nRead time of a page at {TIMED_DPI} dpi (decode, classify, clean, OCR, PMI): median {} ms ({name}, {width}×{height} px), slowest {} ms.",
            median.as_millis(),
            times
                .last()
                .map_or(0, |(_, elapsed, _)| elapsed.as_millis()),
        );
    }
    let (read, pictures) = photos_read_as_drawings();
    println!("Sample-library pictures read as drawings: {read} of {pictures} (the goal is none).");
}
