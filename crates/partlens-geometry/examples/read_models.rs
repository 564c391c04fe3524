//! Reads model files with the pure-Rust readers (or OpenCASCADE first, built with `occt`) in this
//! process and prints one line a file: time, triangles and size, or the reason it was not read;
//! for an assembly, how many products, usages and occurrences its tree has.
//! A tool for looking at a reader on real files, e.g. the STEP files of the real-world corpus:
//!
//! ```sh
//! cargo run -p partlens-geometry --example read_models -- ../shared/realworld/step/*.step
//! RUST_LOG=debug ...   # also truck's face counts (faces left out, faces given up on)
//! ```
//!
//! No limits beyond the readers' own: run it on files you trust to end, or under `timeout`.

use std::time::Instant;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) => {
                println!("{path}\tcannot be read: {error}");
                continue;
            }
        };
        let extension = format!(
            ".{}",
            path.rsplit('.').next().unwrap_or_default().to_lowercase()
        );
        let started = Instant::now();
        let reading = partlens_geometry::read_model(&extension, &bytes);
        let seconds = started.elapsed().as_secs_f64();
        let tree = reading.assembly.map_or(String::new(), |tree| {
            format!(
                "\tassembly of {} products, {} usages, {} occurrences",
                tree.products.len(),
                tree.usages.len(),
                tree.occurrences.len()
            )
        });
        match reading.mesh {
            Ok(mesh) => {
                let size = mesh
                    .bounds()
                    .map(|[low, high]| [0, 1, 2].map(|k| high[k] - low[k]));
                println!(
                    "{path}\t{seconds:.2} s\t{} triangles\t{size:?} mm{tree}",
                    mesh.triangles.len()
                );
            }
            Err(error) => println!("{path}\t{seconds:.2} s\tnot read: {error}"),
        }
    }
}
