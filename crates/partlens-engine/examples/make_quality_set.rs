//! Writes the photo → model quality set (`tests/engine/quality_set/`) to a folder, to look at or to try by
//! hand: every part as a binary STL file and a few photographs of each as JPEG files, the same bytes
//! the benchmark (`benches/photo_quality.rs`) searches with. Nothing here is committed; the benchmark
//! makes the set in memory.
//!
//! ```text
//! cargo run --release -p partlens-engine --example make_quality_set -- /tmp/quality-set [PHOTOS_PER_PART]
//! ```

#[path = "../tests/engine/quality_set/mod.rs"]
mod quality_set;

use std::path::PathBuf;

use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let mut arguments = std::env::args().skip(1);
    let folder = PathBuf::from(
        arguments
            .next()
            .context("usage: make_quality_set FOLDER [PHOTOS_PER_PART]")?,
    );
    let photos_per_part: usize = match arguments.next() {
        Some(count) => count.parse().context("PHOTOS_PER_PART is a whole number")?,
        None => 3,
    };
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let parts = quality_set::parts();
    let shots = quality_set::shots(quality_set::QUERY_SEED, parts.len() * photos_per_part);
    for (number, part) in parts.iter().enumerate() {
        let stl = folder.join(format!("{}.stl", part.name));
        std::fs::write(&stl, part.stl())
            .with_context(|| format!("cannot write {}", stl.display()))?;
        for (photo, shot) in shots[number * photos_per_part..(number + 1) * photos_per_part]
            .iter()
            .enumerate()
        {
            let path = folder.join(format!("{}-photo-{photo}.jpg", part.name));
            let bytes = quality_set::jpeg(&part.photograph(shot), shot.jpeg_quality);
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    println!(
        "{} parts and {} photographs in {}",
        parts.len(),
        parts.len() * photos_per_part,
        folder.display()
    );
    Ok(())
}
