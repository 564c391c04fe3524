//! Saving a company's graph beside the database and loading it back, so that a restart does not build
//! it again.
//!
//! Under `DATA/visual/` each company has four files: `<company>-<id>.graph`, the graph as `usearch`
//! writes it (vectors and links), `<company>-<id>.beside`, the half-precision vectors of the views
//! kept beside the graph (`graph_views.rs`; file by file in the table's order, empty when every
//! view is in the graph), `<company>-<id>.held`, the view the graph holds of each file
//! (`ann/held.rs`; file by file in the table's order, each as a 4-byte length, 0 for none, and the
//! engine's stored descriptor; a snapshot saved before views were held has none, and loads holding
//! none), and `<company>.files`, the file table that names that id, the journal
//! position the snapshot includes (see `library.rs`), the quantiser and the settings, with a
//! checksum. A save writes the graph and beside files under a fresh id, then the table to a
//! temporary file, syncs them and renames the table into place (the commit point), then removes the
//! old id's files: a save killed at any moment leaves the previous snapshot whole. Loading checks
//! the table's checksum, that the graph has exactly the table's views in the graph and that every
//! one is in it, and that the beside file is exactly as long as the table's views beside the graph;
//! a snapshot that fails a check is not used (the graph is built again from the store).
//!
//! Limits: a table is read only up to [`MAX_TABLE_BYTES`]; graph files are read by `usearch`, which
//! checks their header; a beside file is read only when its length is the table's; a held file
//! only up to [`MAX_TABLE_BYTES`], each view up to [`MAX_HELD_VIEW_BYTES`], and only when it holds
//! an entry for each of the table's files and nothing after them.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use usearch::Index;

use partlens_engine::ViewDescriptor;

use super::ann::{AnnIndex, AnnSettings, SavedFile, view_key};
use super::graph_views::GraphViews;
use super::quantise::Quantiser;
use crate::error::VisualError;

/// The folder of the data directory the graphs are saved in.
pub const SNAPSHOT_FOLDER: &str = "visual";
/// First bytes of a file table. Tables of earlier versions are not read (the graph is built again):
/// `…B1` held `i8` vectors, `…B2` did not say which files are meshes, `…B3` had no views beside
/// the graph (six settings).
const MAGIC: &[u8; 8] = b"PLVISTB4";
/// Bytes of one file entry: GUID, slot, view count, flags (bit 0: a mesh's views).
const ENTRY_BYTES: usize = 16 + 4 + 2 + 1;
/// The flag of a mesh's views in an entry's flags.
const MESH_FLAG: u8 = 1;
/// Bytes of the header after the magic: snapshot id, journal position, dimensions, scale, seven
/// settings, file count.
const HEADER_BYTES: usize = 8 + 8 + 4 + 4 + 7 * 4 + 8;
/// The largest file table read (a billion files' worth is far past any graph this service holds).
pub const MAX_TABLE_BYTES: u64 = 22 * 1024 * 1024 * 1024;
/// The largest held view read (today's stored descriptor is under 2 KB).
pub const MAX_HELD_VIEW_BYTES: usize = 64 * 1024;

/// A loaded snapshot: the graph and the journal position it includes.
pub struct Snapshot {
    /// The company's graph as saved.
    pub index: AnnIndex,
    /// The last journal entry the graph includes.
    pub journal_position: i64,
}

/// A name safe on every file system for a company id (GUIDs pass unchanged).
fn file_stem(company: &str) -> String {
    if !company.is_empty()
        && company
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        company.to_owned()
    } else {
        company.bytes().map(|byte| format!("{byte:02x}")).collect()
    }
}

fn table_path(folder: &Path, company: &str) -> PathBuf {
    folder.join(format!("{}.files", file_stem(company)))
}

fn graph_name(company: &str, id: u64) -> String {
    format!("{}-{id:016x}.graph", file_stem(company))
}

fn beside_name(company: &str, id: u64) -> String {
    format!("{}-{id:016x}.beside", file_stem(company))
}

fn held_name(company: &str, id: u64) -> String {
    format!("{}-{id:016x}.held", file_stem(company))
}

/// Writes the view held of each file of `files`, in their order, and syncs them.
fn save_held(path: &Path, index: &AnnIndex, files: &[SavedFile]) -> Result<(), VisualError> {
    let mut writer = BufWriter::new(std::fs::File::create(path)?);
    for &(_, slot, _, _) in files {
        let bytes = index.held_of(slot).map(ViewDescriptor::to_bytes);
        let bytes = bytes.as_deref().unwrap_or_default();
        writer.write_all(&(bytes.len() as u32).to_le_bytes())?;
        writer.write_all(bytes)?;
    }
    writer
        .into_inner()
        .map_err(|error| damaged(format!("cannot write {}: {error}", path.display())))?
        .sync_all()?;
    Ok(())
}

/// Reads the views held of `files` (see [`save_held`]); empty when the snapshot has none (saved
/// before views were held). Refused when an entry is missing, too long or not a descriptor.
fn load_held(path: &Path, files: &[SavedFile]) -> Result<Vec<Option<ViewDescriptor>>, VisualError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let length = std::fs::metadata(path)?.len();
    if length > MAX_TABLE_BYTES {
        return Err(damaged(format!("{} is {length} bytes", path.display())));
    }
    let mut reader = BufReader::new(std::fs::File::open(path)?);
    let mut held = Vec::with_capacity(files.len());
    let mut bytes = Vec::new();
    for _ in files {
        let mut prefix = [0_u8; 4];
        reader.read_exact(&mut prefix)?;
        let count = u32::from_le_bytes(prefix) as usize;
        if count > MAX_HELD_VIEW_BYTES {
            return Err(damaged(format!(
                "{} holds a view of {count} bytes",
                path.display()
            )));
        }
        if count == 0 {
            held.push(None);
            continue;
        }
        bytes.resize(count, 0);
        reader.read_exact(&mut bytes)?;
        let view = ViewDescriptor::from_bytes(&bytes)
            .map_err(|error| damaged(format!("{}: {error}", path.display())))?;
        held.push(Some(view));
    }
    if reader.read(&mut [0_u8; 1])? != 0 {
        return Err(damaged(format!(
            "{} is longer than its table",
            path.display()
        )));
    }
    Ok(held)
}

/// Writes the vectors kept beside the graph, file by file in `files`' order, and syncs them.
fn save_beside(path: &Path, index: &AnnIndex, files: &[SavedFile]) -> Result<(), VisualError> {
    let handle = std::fs::File::create(path)?;
    let mut writer = BufWriter::new(handle);
    let dimensions = index.quantiser().dimensions();
    for &(_, slot, views, _) in files {
        // In the order of the views (the block in memory has the coarse ones first).
        let block = index.beside_of(slot);
        for position in 0..usize::from(views) {
            let at = index.placement().beside_index(usize::from(views), position);
            write_halves(
                &mut writer,
                block
                    .get(at * dimensions..(at + 1) * dimensions)
                    .unwrap_or(&[]),
            )?;
        }
    }
    writer
        .into_inner()
        .map_err(|error| damaged(format!("cannot write {}: {error}", path.display())))?
        .sync_all()?;
    Ok(())
}

/// Writes `values` as little-endian half-precision values.
fn write_halves(writer: &mut impl Write, values: &[half::f16]) -> std::io::Result<()> {
    if cfg!(target_endian = "big") {
        for value in values {
            writer.write_all(&value.to_bits().to_le_bytes())?;
        }
        Ok(())
    } else {
        writer.write_all(bytemuck::cast_slice(values))
    }
}

/// Reads the vectors kept beside the graph for `files` (see [`save_beside`]); refused unless the
/// file is exactly as long as they are. Each file's block is read in one call straight into its
/// values (a 100,000-part library keeps gigabytes beside its graph), then put in the order held.
fn load_beside(
    path: &Path,
    files: &[SavedFile],
    placement: &GraphViews,
    dimensions: usize,
) -> Result<Vec<Box<[half::f16]>>, VisualError> {
    let lengths: Vec<usize> = files
        .iter()
        .map(|&(_, _, views, _)| placement.beside(usize::from(views)) * dimensions)
        .collect();
    let expected: u64 = lengths.iter().map(|&length| length as u64 * 2).sum();
    let found = std::fs::metadata(path).map(|meta| meta.len()).unwrap_or(0);
    if found != expected {
        return Err(damaged(format!(
            "{} has {found} bytes, the table says {expected}",
            path.display()
        )));
    }
    let mut reader = std::fs::File::open(path)?;
    let mut saved = Vec::new();
    files
        .iter()
        .zip(lengths)
        .map(|(&(_, _, views, _), length)| {
            // Saved in the order of the views; held with the coarse ones first.
            Ok(match placement.beside_order(usize::from(views)) {
                Some(order) if length > 0 => {
                    saved.resize(length, half::f16::ZERO);
                    read_halves(&mut reader, &mut saved)?;
                    let mut block = Vec::with_capacity(length);
                    for &position in order {
                        block.extend_from_slice(
                            saved
                                .get(position * dimensions..(position + 1) * dimensions)
                                .unwrap_or(&[]),
                        );
                    }
                    block.into_boxed_slice()
                }
                _ => {
                    let mut block = vec![half::f16::ZERO; length].into_boxed_slice();
                    read_halves(&mut reader, &mut block)?;
                    block
                }
            })
        })
        .collect()
}

/// Fills `values` with as many little-endian half-precision values read from `reader`.
fn read_halves(reader: &mut impl Read, values: &mut [half::f16]) -> std::io::Result<()> {
    reader.read_exact(bytemuck::cast_slice_mut(values))?;
    if cfg!(target_endian = "big") {
        for value in values.iter_mut() {
            *value = half::f16::from_bits(u16::from_le(value.to_bits()));
        }
    }
    Ok(())
}

fn damaged(why: impl std::fmt::Display) -> VisualError {
    VisualError::Internal(format!("saved visual index: {why}"))
}

/// FNV-1a, 64 bits: damage detection for the file table.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn sync_folder(folder: &Path) {
    // Directories cannot be opened for syncing on every platform; where they can, the rename is
    // made durable.
    if let Ok(handle) = std::fs::File::open(folder) {
        let _ = handle.sync_all();
    }
}

/// Saves a company's graph with the journal position it includes.
pub fn save(
    folder: &Path,
    company: &str,
    index: &AnnIndex,
    journal_position: i64,
) -> Result<(), VisualError> {
    std::fs::create_dir_all(folder)?;
    let id: u64 = rand::random();
    let graph_file = graph_name(company, id);
    let graph_path = folder.join(&graph_file);
    let path_text = graph_path
        .to_str()
        .ok_or_else(|| damaged("the data directory's path is not UTF-8"))?;
    index
        .graph()
        .save(path_text)
        .map_err(|error| damaged(format!("cannot write {graph_file}: {error}")))?;
    std::fs::File::open(&graph_path)?.sync_all()?;

    let files: Vec<SavedFile> = index.files().collect();
    save_beside(&folder.join(beside_name(company, id)), index, &files)?;
    save_held(&folder.join(held_name(company, id)), index, &files)?;
    let quantiser = index.quantiser();
    let settings = index.settings();
    let mut table = Vec::with_capacity(MAGIC.len() + HEADER_BYTES + files.len() * ENTRY_BYTES + 8);
    table.extend_from_slice(MAGIC);
    table.extend_from_slice(&id.to_le_bytes());
    table.extend_from_slice(&journal_position.to_le_bytes());
    table.extend_from_slice(&(quantiser.dimensions() as u32).to_le_bytes());
    table.extend_from_slice(&quantiser.scale().to_le_bytes());
    for setting in [
        settings.connectivity,
        settings.expansion_add,
        settings.expansion_search,
        settings.views_per_query_view,
        settings.views_per_view_of_several,
        settings.direct_views,
        settings.graph_directions,
    ] {
        table.extend_from_slice(&(setting as u32).to_le_bytes());
    }
    table.extend_from_slice(&(files.len() as u64).to_le_bytes());
    for (uid, slot, views, mesh) in &files {
        table.extend_from_slice(&uid.to_le_bytes());
        table.extend_from_slice(&slot.to_le_bytes());
        table.extend_from_slice(&views.to_le_bytes());
        table.push(if *mesh { MESH_FLAG } else { 0 });
    }
    let checksum = fnv1a64(&table);
    table.extend_from_slice(&checksum.to_le_bytes());

    let final_path = table_path(folder, company);
    let temporary = folder.join(format!(".{}.files.{id:016x}.tmp", file_stem(company)));
    {
        let mut handle = std::fs::File::create(&temporary)?;
        handle.write_all(&table)?;
        handle.sync_all()?;
    }
    let previous = read_table(&final_path).ok().map(|table| table.graph_id);
    std::fs::rename(&temporary, &final_path)?;
    sync_folder(folder);
    if let Some(previous) = previous.filter(|&previous| previous != id) {
        let _ = std::fs::remove_file(folder.join(graph_name(company, previous)));
        let _ = std::fs::remove_file(folder.join(beside_name(company, previous)));
        let _ = std::fs::remove_file(folder.join(held_name(company, previous)));
    }
    Ok(())
}

/// What a file table holds.
struct Table {
    graph_id: u64,
    journal_position: i64,
    quantiser: Quantiser,
    settings: AnnSettings,
    files: Vec<SavedFile>,
}

fn read_table(path: &Path) -> Result<Table, VisualError> {
    let length = std::fs::metadata(path)?.len();
    if length > MAX_TABLE_BYTES {
        return Err(damaged(format!("{} is {length} bytes", path.display())));
    }
    let bytes = std::fs::read(path)?;
    if bytes.len() < MAGIC.len() + HEADER_BYTES + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(damaged(format!("{} is not a file table", path.display())));
    }
    let (body, checksum) = bytes.split_at(bytes.len() - 8);
    if checksum != fnv1a64(body).to_le_bytes() {
        return Err(damaged(format!("{} fails its checksum", path.display())));
    }
    let mut at = MAGIC.len();
    let mut take = |count: usize| {
        let part = &body[at..at + count];
        at += count;
        part
    };
    let u64_of = |part: &[u8]| u64::from_le_bytes(part.try_into().unwrap_or([0; 8]));
    let u32_of = |part: &[u8]| u32::from_le_bytes(part.try_into().unwrap_or([0; 4]));
    let graph_id = u64_of(take(8));
    let journal_position = u64_of(take(8)) as i64;
    let dimensions = u32_of(take(4)) as usize;
    let scale = f32::from_le_bytes(take(4).try_into().unwrap_or([0; 4]));
    let mut setting = || u32_of(take(4)) as usize;
    let settings = AnnSettings {
        connectivity: setting(),
        expansion_add: setting(),
        expansion_search: setting(),
        views_per_query_view: setting(),
        views_per_view_of_several: setting(),
        direct_views: setting(),
        graph_directions: setting(),
    };
    let count = u64_of(take(8)) as usize;
    if body.len() - at != count.saturating_mul(ENTRY_BYTES)
        || !scale.is_finite()
        || scale <= 0.0
        || dimensions == 0
    {
        return Err(damaged(format!(
            "{} has a wrong length or header",
            path.display()
        )));
    }
    let files = body[at..]
        .chunks_exact(ENTRY_BYTES)
        .map(|entry| {
            (
                u128::from_le_bytes(entry[..16].try_into().unwrap_or([0; 16])),
                u32::from_le_bytes(entry[16..20].try_into().unwrap_or([0; 4])),
                u16::from_le_bytes(entry[20..22].try_into().unwrap_or([0; 2])),
                entry[22] & MESH_FLAG != 0,
            )
        })
        .collect();
    Ok(Table {
        graph_id,
        journal_position,
        quantiser: Quantiser::new(dimensions, scale),
        settings,
        files,
    })
}

/// Loads a company's saved graph; `Ok(None)` when none was saved.
pub fn load(folder: &Path, company: &str) -> Result<Option<Snapshot>, VisualError> {
    let path = table_path(folder, company);
    if !path.exists() {
        return Ok(None);
    }
    let table = read_table(&path)?;
    remove_orphans(folder, company, table.graph_id);
    let graph_path = folder.join(graph_name(company, table.graph_id));
    let path_text = graph_path
        .to_str()
        .ok_or_else(|| damaged("the data directory's path is not UTF-8"))?;
    let started = Instant::now();
    let placement = GraphViews::new(table.settings.graph_directions);
    // The graph file and the views beside it are read at once (each is gigabytes at 100,000 parts).
    let (restored, beside_and_held) = std::thread::scope(|scope| {
        let restoring = scope.spawn(|| {
            let graph = Index::restore(path_text);
            (graph, started.elapsed())
        });
        let beside_and_held = load_beside(
            &folder.join(beside_name(company, table.graph_id)),
            &table.files,
            &placement,
            table.quantiser.dimensions(),
        )
        .and_then(|beside| {
            let held = load_held(
                &folder.join(held_name(company, table.graph_id)),
                &table.files,
            )?;
            Ok((beside, held, started.elapsed()))
        });
        (restoring.join(), beside_and_held)
    });
    let (graph, graph_read) = restored.map_err(|_| damaged("reading the graph file failed"))?;
    let graph =
        graph.map_err(|error| damaged(format!("cannot read {}: {error}", graph_path.display())))?;
    let (beside, held, beside_read) = beside_and_held?;
    if graph.dimensions() != table.quantiser.dimensions() {
        return Err(damaged("the graph and its table disagree on dimensions"));
    }
    for &(_, slot, views, _) in &table.files {
        for position in placement.graph_positions(usize::from(views)) {
            if !graph.contains(view_key(slot, position)) {
                return Err(damaged("a view of the table is missing from the graph"));
            }
        }
    }
    let checked = started.elapsed();
    let index = AnnIndex::from_parts(
        graph,
        table.quantiser,
        table.settings,
        &table.files,
        beside,
        held,
    )?;
    tracing::info!(
        company,
        graph_read_s = graph_read.as_secs_f64(),
        beside_read_s = beside_read.as_secs_f64(),
        checked_s = checked.as_secs_f64(),
        ready_s = started.elapsed().as_secs_f64(),
        "saved visual graph read"
    );
    Ok(Some(Snapshot {
        index,
        journal_position: table.journal_position,
    }))
}

/// Removes a company's saved graph (the company fell back to the exact scan, or its snapshot is
/// damaged).
pub fn discard(folder: &Path, company: &str) -> Result<(), VisualError> {
    let path = table_path(folder, company);
    if path.exists() {
        std::fs::remove_file(&path)?;
    }
    remove_orphans(folder, company, u64::MAX);
    Ok(())
}

/// Removes the saved graphs of every company but `keep` (companies not on a graph now: a graph of
/// theirs would be stale by the time they are again).
pub fn discard_all_but(folder: &Path, keep: &[&str]) -> Result<(), VisualError> {
    let kept: Vec<String> = keep.iter().map(|company| file_stem(company)).collect();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stem = name.trim_start_matches('.');
        let ours = name.ends_with(".files")
            || name.ends_with(".graph")
            || name.ends_with(".beside")
            || name.ends_with(".held")
            || name.ends_with(".tmp");
        if ours
            && !kept
                .iter()
                .any(|company| stem.starts_with(company.as_str()))
        {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Removes graph files of the company other than `keep` (left by a save that was killed).
fn remove_orphans(folder: &Path, company: &str, keep: u64) {
    let prefix = format!("{}-", file_stem(company));
    let keep_name = graph_name(company, keep);
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let keep_beside = beside_name(company, keep);
        let keep_held = held_name(company, keep);
        let stale_graph = name.starts_with(&prefix)
            && ((name.ends_with(".graph") && name != keep_name)
                || (name.ends_with(".beside") && name != keep_beside)
                || (name.ends_with(".held") && name != keep_held));
        let stale_table =
            name.starts_with(&format!(".{}.files.", file_stem(company))) && name.ends_with(".tmp");
        if stale_graph || stale_table {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn company_names_become_safe_file_names() {
        assert_eq!(
            file_stem("3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        );
        assert_eq!(file_stem("../x"), "2e2e2f78");
        assert_eq!(file_stem(""), "");
    }
}
