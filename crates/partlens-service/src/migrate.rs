//! `partlens-service --data TARGET migrate --from DIR --to postgres://…`: copies a SQLite data
//! directory (accounts, records, descriptors, attributes, feedback, the queue, the stored files)
//! into PostgreSQL, then counts what each side holds for the copied companies and says whether
//! they agree.
//!
//! The records go through the store ([`partlens_store::Store::copy_from_sqlite_blocking`]): every
//! table of the store's schema description, read in one snapshot of the source, written in
//! batches that skip rows already there (a run that stopped half way resumes, a second run writes
//! nothing), refused with nothing written when the target holds another team's rows the copy
//! would collide with. Run it with the service on the source stopped.
//!
//! Stored files (`files/UID`, `images/UID.sm.jpg`, `images/UID.lg.png`, see `blobs/`) are copied
//! into the target's blob store: the target `--data` (unless it is the source directory itself),
//! the folder of `--blobs DIR`, or the bucket of `--blobs s3://…` under the same names. A file
//! already there with the same size is skipped; a copy into a folder is written beside its place
//! and renamed into it, and an object appears whole or not at all, so an interrupted copy is
//! redone, never kept half. The saved visual graphs (`visual/`) are not used on PostgreSQL and not
//! copied. This is a command, run at the edge by `main`, so its errors are `anyhow` sentences.

use std::path::Path;

use anyhow::{Context as _, bail};
use partlens_store::model::TableCount;
use partlens_store::{DatabaseUrl, Store};

use crate::blobs::{BlobLocation, S3Blobs, S3Location};

/// Runs the command: picks the target URL (`--to`, else the global `--database`), copies, prints
/// the counts on stdout and progress on stderr. An error when the URLs disagree, the copy is
/// refused or fails, or a count differs (naming the table).
pub fn run_command(
    target_data: &Path,
    database: Option<&DatabaseUrl>,
    blobs: &BlobLocation,
    from: &Path,
    to: Option<&DatabaseUrl>,
) -> anyhow::Result<()> {
    let url = match (to, database) {
        (Some(to), Some(database)) if to != database => bail!(
            "--to and --database (or PARTLENS_DATABASE_URL) name different databases: give one"
        ),
        (Some(url), _) | (None, Some(url)) => url,
        (None, None) => bail!("say which PostgreSQL database to copy into: --to postgres://…"),
    };
    let files_target = match blobs {
        BlobLocation::DataDirectory => StoredFilesTarget::Folder(target_data),
        BlobLocation::Folder(folder) => StoredFilesTarget::Folder(folder),
        BlobLocation::S3(location) => StoredFilesTarget::Bucket(location),
    };
    let counts = migrate(from, files_target, url, &mut |line| eprintln!("{line}"))?;
    let width = counts
        .iter()
        .map(|count| count.table.len())
        .max()
        .unwrap_or(0);
    let mut differing = Vec::new();
    for count in &counts {
        let verdict = if count.source == count.target {
            "ok"
        } else {
            differing.push(format!(
                "{} ({} in the source, {} in PostgreSQL)",
                count.table, count.source, count.target
            ));
            "DIFFERS"
        };
        println!(
            "{:width$}  {} → {}  {verdict}",
            count.table, count.source, count.target
        );
    }
    if !differing.is_empty() {
        bail!(
            "the copy is not complete: the counts of {} differ; run migrate again, and if they \
             still differ the target holds rows of these companies the source does not",
            differing.join(", ")
        );
    }
    Ok(())
}

/// Where [`migrate`] puts the stored files and images.
#[derive(Clone, Debug)]
pub enum StoredFilesTarget<'a> {
    /// A folder blob store's root (the target `--data`, or `--blobs DIR`).
    Folder(&'a Path),
    /// An S3-compatible bucket (`--blobs s3://…`).
    Bucket(&'a S3Location),
}

/// Copies the data directory `from` into the database `url` and its stored files into
/// `files_target`, then returns the counts of both sides (which the caller compares).
pub fn migrate(
    from: &Path,
    files_target: StoredFilesTarget<'_>,
    url: &DatabaseUrl,
    progress: &mut dyn FnMut(String),
) -> anyhow::Result<Vec<TableCount>> {
    // One connection first: an unreachable database is said at once (the store's pool would wait
    // for a connection a while). A PostgreSQL store keeps nothing in the data folder it is given.
    Store::check_blocking(from, Some(url))
        .context("cannot connect to the target PostgreSQL database")?;
    let target = Store::open_configured_blocking(from, Some(url))
        .context("cannot bring the target database's schema up to date")?;
    let counts = target
        .copy_from_sqlite_blocking(from, progress)
        .context("cannot copy the records")?;
    match files_target {
        StoredFilesTarget::Folder(target) => copy_stored_files(from, target, progress)?,
        StoredFilesTarget::Bucket(location) => {
            copy_stored_files_to_bucket(from, location, progress)?
        }
    }
    Ok(counts)
}

/// The name a copy into a folder has until it is whole.
const PARTIAL_SUFFIX: &str = ".migrating";

/// One stored file of the source directory.
struct SourceFile {
    name: std::ffi::OsString,
    path: std::path::PathBuf,
    size: u64,
}

/// The stored files in `folder` of the source (none when it is missing), without the partial
/// copies an earlier run left there (their own files are copied again).
fn stored_files_in(folder: &Path) -> anyhow::Result<Vec<SourceFile>> {
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut files = Vec::new();
    for entry in
        std::fs::read_dir(folder).with_context(|| format!("cannot list {}", folder.display()))?
    {
        let entry = entry.with_context(|| format!("cannot list {}", folder.display()))?;
        let metadata = entry.metadata()?;
        let name = entry.file_name();
        if !metadata.is_file() || name.to_string_lossy().ends_with(PARTIAL_SUFFIX) {
            continue;
        }
        files.push(SourceFile {
            path: entry.path(),
            name,
            size: metadata.len(),
        });
    }
    Ok(files)
}

/// Copies `files/` and `images/` into `target_data` unless it is `from` itself.
fn copy_stored_files(
    from: &Path,
    target_data: &Path,
    progress: &mut dyn FnMut(String),
) -> anyhow::Result<()> {
    let same = match (from.canonicalize(), target_data.canonicalize()) {
        (Ok(from), Ok(target)) => from == target,
        _ => false,
    };
    if same {
        progress("stored files: --data is the source directory, nothing to copy".into());
        return Ok(());
    }
    crate::disk::create_private_dir(target_data)
        .with_context(|| format!("cannot make {}", target_data.display()))?;
    for folder in ["files", "images"] {
        let source_dir = from.join(folder);
        if !source_dir.is_dir() {
            continue;
        }
        let target_dir = target_data.join(folder);
        crate::disk::create_private_dir(&target_dir)
            .with_context(|| format!("cannot make {}", target_dir.display()))?;
        let (mut copied, mut skipped) = (0_u64, 0_u64);
        for file in stored_files_in(&source_dir)? {
            let target = target_dir.join(&file.name);
            if std::fs::metadata(&target).is_ok_and(|there| there.len() == file.size) {
                skipped += 1;
                continue;
            }
            let mut partial_name = file.name.clone();
            partial_name.push(PARTIAL_SUFFIX);
            let partial = target_dir.join(partial_name);
            std::fs::copy(&file.path, &partial).with_context(|| {
                format!(
                    "cannot copy {} to {}",
                    file.path.display(),
                    partial.display()
                )
            })?;
            crate::disk::make_private(&partial, 0o600)?;
            std::fs::rename(&partial, &target)
                .with_context(|| format!("cannot move {} into place", partial.display()))?;
            copied += 1;
            if copied.is_multiple_of(200) {
                progress(format!("{folder}/: {copied} copied"));
            }
        }
        progress(format!(
            "{folder}/: {copied} copied, {skipped} already there"
        ));
    }
    Ok(())
}

/// Copies `files/` and `images/` of `from` into the bucket, under the same names; an object
/// already there with the same size is skipped (a second run resumes). Any failure stops the copy
/// with its reason; what was sent stays and is skipped next time.
fn copy_stored_files_to_bucket(
    from: &Path,
    location: &S3Location,
    progress: &mut dyn FnMut(String),
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the S3 client's runtime")?;
    let bucket = {
        let _inside = runtime.enter();
        S3Blobs::open(location).context("cannot use the bucket of --blobs")?
    };
    for folder in ["files", "images"] {
        let (mut copied, mut skipped) = (0_u64, 0_u64);
        for file in stored_files_in(&from.join(folder))? {
            let name = format!("{folder}/{}", file.name.to_string_lossy());
            let there = bucket
                .size_blocking(&name)
                .with_context(|| format!("cannot ask {} for {name}", bucket.describe()))?;
            if there == Some(file.size) {
                skipped += 1;
                continue;
            }
            bucket.upload_blocking(&name, &file.path).with_context(|| {
                format!(
                    "cannot send {} to {}",
                    file.path.display(),
                    bucket.describe()
                )
            })?;
            copied += 1;
            if copied.is_multiple_of(200) {
                progress(format!("{folder}/: {copied} sent to {}", bucket.describe()));
            }
        }
        progress(format!(
            "{folder}/: {copied} copied, {skipped} already there ({})",
            bucket.describe()
        ));
    }
    Ok(())
}
