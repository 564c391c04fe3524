//! Reading a `.zip`: unpacked within the limits of `partlens_archive` (entries, sizes,
//! compression ratio, nesting, names, links), a refusal a 400 that names the limit; a search
//! input's files checked to be the views of one part ([`search_zip_entries`]) and their analyses
//! joined as that part's ([`add_entry_analysis`]); and the engine's words for a `.zip` that cannot be read. Storing a
//! database `.zip` as a bundle of records is [`crate::zip_upload`]'s.

use partlens_api::encoding::file_extension;
use partlens_archive::{ArchiveEntry, ArchiveError, ArchiveLimits, read_zip};
use partlens_engine::{Analysis, EngineError};

use super::body::TempFile;
use super::error::ServiceError;
use super::upload_params::ZIP_EXTENSION;

/// Most files a `.zip` search input may hold: the views of one part, as many as one
/// `PUT /api/Search` takes.
pub const MAX_SEARCH_ZIP_ENTRIES: usize = 10;

/// True for the formats a `.zip` search input may hold.
pub(crate) fn is_picture_or_model(extension: &str) -> bool {
    partlens_geometry::is_model_extension(extension)
        || partlens_engine::is_image_extension(extension)
}

/// Unpacks the archive at `archive` beside it (its folder is the service's temporary one), on a
/// blocking thread; a refusal is a 400 that says which limit.
pub(crate) async fn unpack(
    archive: &std::path::Path,
    limits: ArchiveLimits,
) -> Result<Vec<ArchiveEntry>, ServiceError> {
    let archive = archive.to_owned();
    let read = tokio::task::spawn_blocking(move || {
        let folder = archive.parent().unwrap_or(std::path::Path::new("."));
        read_zip(&archive, folder, &limits)
    })
    .await?;
    read.map_err(|error| match error {
        ArchiveError::Storage(error) => ServiceError::Io(error),
        refusal => ServiceError::BadRequest(format!("the .zip is refused: {refusal}")),
    })
}

/// Why the files of a `.zip` search input are not the views of one part, if they are not.
pub(crate) fn check_search_entries(entries: &[ArchiveEntry]) -> Result<(), String> {
    if entries.is_empty() {
        return Err(
            "the .zip search input holds no file; put the pictures or models of one part in it"
                .into(),
        );
    }
    if entries.len() > MAX_SEARCH_ZIP_ENTRIES {
        return Err(format!(
            "the .zip search input holds {} files; it holds the views of one part, at most \
             {MAX_SEARCH_ZIP_ENTRIES} pictures or models",
            entries.len()
        ));
    }
    if let Some(entry) = entries
        .iter()
        .find(|entry| !is_picture_or_model(&file_extension(&entry.name)))
    {
        return Err(format!(
            "the file \"{}\" of the .zip search input is not a picture or a model; a .zip search \
             input holds only the pictures or models of one part",
            entry.name
        ));
    }
    Ok(())
}

/// The files of a `.zip` search input (its stored `bytes`, unpacked through `archive`, a temporary
/// file's place), checked to be the views of one part: the entries in archive order, or why the
/// input cannot be read (in the engine's words, so the input fails with its reason).
pub(crate) async fn search_zip_entries(
    bytes: Vec<u8>,
    archive: TempFile,
) -> Result<Result<Vec<ArchiveEntry>, EngineError>, ServiceError> {
    let path = archive.path().to_owned();
    let written = tokio::task::spawn_blocking(move || crate::disk::write_private(&path, &bytes));
    written.await??;
    let entries = match unpack(archive.path(), ArchiveLimits::default()).await {
        Ok(entries) => entries,
        Err(ServiceError::BadRequest(reason)) => return Ok(Err(unreadable(reason))),
        Err(error) => return Err(error),
    };
    drop(archive);
    Ok(check_search_entries(&entries)
        .map(|()| entries)
        .map_err(unreadable))
}

/// Adds the analysis of one file of a `.zip` search input to the input's (`merged`): the views
/// joined in archive order, the first thumbnail kept, the words and attributes of each.
pub(crate) fn add_entry_analysis(merged: &mut Analysis, analysis: Analysis) {
    merged.views.extend(analysis.views);
    if merged.thumbnail_jpeg.is_none() {
        merged.thumbnail_jpeg = analysis.thumbnail_jpeg;
    }
    if !analysis.text.is_empty() {
        if !merged.text.is_empty() {
            merged.text.push('\n');
        }
        merged.text.push_str(&analysis.text);
    }
    merged
        .extracted_attributes
        .extend(analysis.extracted_attributes);
    merged.pmi_pages.extend(analysis.pmi_pages);
}

/// Why a database `.zip` whose upload the service did not finish (it stopped while it stored the
/// entries) ends failed when a worker meets its job after a restart.
pub(crate) fn interrupted_bundle() -> EngineError {
    unreadable(
        "the service stopped while it stored the archive's files; upload the .zip again".into(),
    )
}

/// A `.zip` search input that cannot be read, in the engine's words.
fn unreadable(reason: String) -> EngineError {
    EngineError::Undecodable {
        extension: ZIP_EXTENSION.into(),
        reason,
    }
}

/// An entry's refusal, its reason naming the entry.
pub(crate) fn in_entry(name: &str, error: EngineError) -> EngineError {
    let named = |reason: String| format!("{reason} (the file \"{name}\" of the .zip)");
    match error {
        EngineError::Undecodable { extension, reason } => EngineError::Undecodable {
            extension,
            reason: named(reason),
        },
        EngineError::OverLimit { extension, reason } => EngineError::OverLimit {
            extension,
            reason: named(reason),
        },
        other => other,
    }
}
