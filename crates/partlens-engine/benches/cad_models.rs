//! CAD-model benchmark: `analyze` of each sample STEP model (read and meshed by truck, posed,
//! rendered from the model viewpoints, described, D2, product data) against a 512×512 PNG picture in
//! the same run; reading alone (parse, checks, meshing) by truck and, in a build with
//! `--features occt`, by OpenCASCADE, which also reads the IGES sample. Then the memory a large
//! STEP file takes while it is read (peak resident set growth, Linux). Prints markdown tables.
//!
//! ```text
//! cargo bench -p partlens-engine --bench cad_models
//! cargo bench -p partlens-engine --bench cad_models --features occt
//! ```

use std::time::{Duration, Instant};

use partlens_engine::analyze;
use partlens_engine::samples::parts::{Pose, draw_part, encode_png};
use partlens_geometry::step::read_step;

/// Rounds per measurement (the p50 is reported).
const ROUNDS: usize = 20;
/// Side of the picture compared against.
const SIDE: u32 = 512;
/// Copies of the flange in the large STEP file of the memory measurement.
const LARGE_FILE_COPIES: usize = 200;

fn main() {
    // First, while the process is small: the memory of reading a large file.
    let large = large_step_file();
    let before = peak_resident_kib();
    let started = Instant::now();
    let reading = read_step(large.as_bytes());
    let read_large = started.elapsed();
    let after = peak_resident_kib();
    let triangles = reading.mesh.as_ref().map_or(0, |mesh| mesh.triangles.len());
    drop(reading);

    let picture = draw_part("flange", &Pose::default(), SIDE).unwrap_or_default();
    let png = encode_png(&picture).unwrap_or_default();
    let picture_p50 = p50(|| {
        std::hint::black_box(analyze(".png", &png).ok());
    });
    println!("## partlens CAD model benchmark\n");
    println!(
        "`analyze` and reading, p50 over {ROUNDS} rounds, against a {SIDE}×{SIDE} PNG picture in the same run.\n"
    );
    println!(
        "| file | bytes | triangles | `analyze` p50 | × the picture | read + mesh p50 (truck) | read + mesh p50 (OpenCASCADE) |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {SIDE}×{SIDE} PNG picture | {} | – | {} ms | 1.00× | – | – |",
        png.len(),
        millis(picture_p50)
    );
    for file in [
        "washer.step",
        "flange.step",
        "stepped-shaft.step",
        "washer.igs",
    ] {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/models")
            .join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            println!("| `{file}` | missing | | | | | |");
            continue;
        };
        let extension = &file[file.rfind('.').unwrap_or(0)..];
        let analysed = analyze(extension, &bytes);
        let (analyse, ratio, triangles) = match &analysed {
            Ok(analysis) => {
                let time = p50(|| {
                    std::hint::black_box(analyze(extension, &bytes).ok());
                });
                let triangles = analysis
                    .extracted_attributes
                    .iter()
                    .find_map(|a| a.strip_prefix("triangles="))
                    .unwrap_or("?")
                    .to_owned();
                (
                    format!("{} ms", millis(time)),
                    format!(
                        "{:.2}×",
                        time.as_secs_f64() / picture_p50.as_secs_f64().max(1e-9)
                    ),
                    triangles,
                )
            }
            Err(error) => (format!("fails: {error}"), "–".into(), "–".into()),
        };
        let truck = if extension == ".step" {
            let time = p50(|| {
                std::hint::black_box(read_step(&bytes).mesh.ok());
            });
            format!("{} ms", millis(time))
        } else {
            "–".to_owned()
        };
        println!(
            "| `{file}` | {} | {triangles} | {analyse} | {ratio} | {truck} | {} |",
            bytes.len(),
            opencascade(extension, &bytes)
        );
    }
    println!();
    println!(
        "Large file: {LARGE_FILE_COPIES} copies of the flange's solid in one STEP file of {:.1} MB: read and meshed in {} ms into {triangles} triangles; peak resident memory grew by {} MB ({:.1}× the file).",
        large.len() as f64 / 1e6,
        millis(read_large),
        after.saturating_sub(before) / 1024,
        (after.saturating_sub(before) * 1024) as f64 / large.len() as f64
    );
}

/// The p50 of `ROUNDS` runs of `work`.
fn p50(mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// OpenCASCADE's read + mesh time of a STEP or IGES file, in a build with the `occt` feature.
#[cfg(feature = "occt")]
fn opencascade(extension: &str, bytes: &[u8]) -> String {
    use partlens_geometry::occt::{CadFormat, read_with_occt};
    use partlens_geometry::step::StepBudget;
    let format = if extension == ".igs" {
        CadFormat::Iges
    } else {
        CadFormat::Step
    };
    if let Err(error) = read_with_occt(format, bytes, StepBudget::default()) {
        return format!("fails: {error}");
    }
    let time = p50(|| {
        std::hint::black_box(read_with_occt(format, bytes, StepBudget::default()).ok());
    });
    format!("{} ms", millis(time))
}

#[cfg(not(feature = "occt"))]
fn opencascade(_extension: &str, _bytes: &[u8]) -> String {
    "(build with --features occt)".to_owned()
}

/// The flange's solid many times over in one file, each copy's `#id`s moved past the previous
/// copy's (the header and product data once).
fn large_step_file() -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("assets/samples/models/flange.step");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (head, rest) = text.split_once("DATA;\n").unwrap_or_default();
    let data: Vec<&str> = rest.lines().filter(|line| line.starts_with('#')).collect();
    let offset = data.len() + 1;
    let mut large = format!("{head}DATA;\n");
    for copy in 0..LARGE_FILE_COPIES {
        for line in &data {
            large.push_str(&renumber(line, copy * offset));
            large.push('\n');
        }
    }
    large.push_str("ENDSEC;\nEND-ISO-10303-21;\n");
    large
}

/// `line` with every `#n` turned into `#(n + by)`.
fn renumber(line: &str, by: usize) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '#' {
            let mut digits = String::new();
            while let Some(digit) = chars.next_if(char::is_ascii_digit) {
                digits.push(digit);
            }
            let number: usize = digits.parse().unwrap_or(0);
            out.push_str(&(number + by).to_string());
        }
    }
    out
}

/// The process's peak resident set in KiB (`VmHWM`), 0 where /proc is not there.
fn peak_resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn millis(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1000.0)
}
