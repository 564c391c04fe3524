//! Reading a `.zip` upload within limits a hostile archive cannot pass: its entries unpacked one by
//! one into temporary files, each refusal a sentence that names the limit and the entry (fit for a
//! 400 response). Self-contained: it names no other partlens crate (the service's `zip_upload.rs`
//! is its user); the `zip` crate reads the format (stored and deflated entries only, see the root
//! `Cargo.toml`).
//!
//! The limits ([`ArchiveLimits`], defaults in the `DEFAULT_*` constants):
//!
//! - the archive's own size, and the number of entries its end record declares, checked before
//!   the central directory is read (so 100,000 empty entries cost no more than reading 22 bytes);
//! - per entry and in total, the uncompressed size **counted while unpacking**: a header that
//!   claims 10 bytes for an entry that inflates to a gigabyte is caught at its 11th byte, and an
//!   entry is never held in memory (it streams into its temporary file through a 64 KiB buffer);
//! - the compression ratio of each entry (bytes out over bytes in), checked once the entry has given
//!   [`RATIO_CHECKED_FROM`] bytes (a small file of one repeated byte compresses far beyond any ratio
//!   and harms nobody);
//! - nesting: an archive inside the archive (its name ends in `.zip`, or its first bytes are a zip
//!   record's) is refused. Archives are read one level deep, never recursively, so 42.zip-style
//!   nesting ends at its first inner archive;
//! - names: valid UTF-8, at most [`MAX_NAME_BYTES`], no absolute path (`/…`, `\…`, `C:…`), no `..`
//!   component, no two entries with one name once normalised (`\` as `/`, `.` and empty components
//!   dropped, any case: the service's stored paths compare in any case);
//! - kinds: regular files and folders only (folders are skipped); a symbolic link, a device, a FIFO
//!   or a socket, and an encrypted entry, are refused.
//!
//! Nothing is half-kept: on any refusal the entries already unpacked are removed (their temporary
//! files are deleted when [`ArchiveEntry`] values are dropped).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use zip::ZipArchive;
use zip::result::ZipError;

/// Default [`ArchiveLimits::max_archive_bytes`]: 512 MiB, the service's default body limit.
pub const DEFAULT_MAX_ARCHIVE_BYTES: u64 = 512 * 1024 * 1024;
/// Default [`ArchiveLimits::max_entries`]: a folder of parts, not a whole disk.
pub const DEFAULT_MAX_ENTRIES: usize = 1_000;
/// Default [`ArchiveLimits::max_entry_bytes`]: 256 MiB, four times the drawing readers' 64 MiB
/// and above the largest model the readers finish within their time limit.
pub const DEFAULT_MAX_ENTRY_BYTES: u64 = 256 * 1024 * 1024;
/// Default [`ArchiveLimits::max_total_bytes`]: 1 GiB unpacked from one archive.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// Default [`ArchiveLimits::max_compression_ratio`]: STEP and DXF text compress 5–20 times, binary
/// STL 2–5 times; zip bombs a thousand times and more.
pub const DEFAULT_MAX_COMPRESSION_RATIO: u64 = 100;
/// Bytes an entry may give before its compression ratio is checked.
pub const RATIO_CHECKED_FROM: u64 = 1024 * 1024;
/// Longest entry name, in bytes (UTF-8).
pub const MAX_NAME_BYTES: usize = 1024;

/// The first bytes of a zip archive's records: a local file header, an empty archive's end record.
const ZIP_SIGNATURES: [[u8; 4]; 2] = [*b"PK\x03\x04", *b"PK\x05\x06"];
/// The end-of-central-directory record's signature and its fixed size.
const END_RECORD: [u8; 4] = *b"PK\x05\x06";
const END_RECORD_LEN: u64 = 22;
/// The zip64 end record's locator (just before the end record) and the zip64 end record.
const ZIP64_LOCATOR: [u8; 4] = *b"PK\x06\x07";
const ZIP64_LOCATOR_LEN: u64 = 20;
const ZIP64_END_RECORD: [u8; 4] = *b"PK\x06\x06";
/// Longest archive comment, which sits after the end record.
const MAX_COMMENT_LEN: u64 = 65_535;
/// The Unix file-type bits of an entry's mode, and the two types accepted.
const FILE_TYPE_BITS: u32 = 0o170_000;
const REGULAR_FILE: u32 = 0o100_000;
const DIRECTORY: u32 = 0o040_000;

/// The limits one archive is read within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Largest archive file, in bytes.
    pub max_archive_bytes: u64,
    /// Most entries (folders included).
    pub max_entries: usize,
    /// Most bytes one entry unpacks to.
    pub max_entry_bytes: u64,
    /// Most bytes all entries unpack to together.
    pub max_total_bytes: u64,
    /// Highest ratio of an entry's unpacked bytes to its packed bytes.
    pub max_compression_ratio: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        Self {
            max_archive_bytes: DEFAULT_MAX_ARCHIVE_BYTES,
            max_entries: DEFAULT_MAX_ENTRIES,
            max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            max_compression_ratio: DEFAULT_MAX_COMPRESSION_RATIO,
        }
    }
}

/// One file of an archive, unpacked.
#[derive(Debug)]
pub struct ArchiveEntry {
    /// Its name in the archive, normalised: `/` between folders, no `.` or empty components.
    pub name: String,
    /// Its unpacked size, in bytes (counted, not the header's claim).
    pub size: u64,
    /// Its bytes, in a private temporary file that is deleted when the entry is dropped.
    pub file: tempfile::NamedTempFile,
}

impl ArchiveEntry {
    /// The entry's bytes read into memory (for small entries: a picture, a drawing).
    pub fn bytes(&self) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.file.path())
    }
}

/// Why an archive was refused, or could not be unpacked. Every variant but [`ArchiveError::Storage`]
/// is the archive's fault and reads as the body of a 400.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The archive file is over [`ArchiveLimits::max_archive_bytes`].
    #[error(
        "the archive is {bytes} bytes, over the limit of {limit} bytes for one archive; split it into smaller archives"
    )]
    ArchiveTooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// Not a zip archive the `zip` crate can read.
    #[error(
        "the file is not a zip archive that can be read ({reason}); upload a .zip made by a common archiver"
    )]
    NotAZip {
        /// What the reader said.
        reason: String,
    },
    /// More entries than [`ArchiveLimits::max_entries`].
    #[error(
        "the archive holds {entries} entries, over the limit of {limit} entries for one archive; split it into smaller archives"
    )]
    TooManyEntries {
        /// Entries declared or found.
        entries: u64,
        /// The limit.
        limit: usize,
    },
    /// An entry over [`ArchiveLimits::max_entry_bytes`] (declared or counted).
    #[error(
        "the entry \"{name}\" unpacks to more than {limit} bytes, the limit of one entry; upload that file on its own"
    )]
    EntryTooLarge {
        /// The entry.
        name: String,
        /// The limit.
        limit: u64,
    },
    /// All entries together over [`ArchiveLimits::max_total_bytes`].
    #[error(
        "the archive unpacks to more than {limit} bytes in all (passed at the entry \"{name}\"), the limit of one archive; split it into smaller archives"
    )]
    TotalTooLarge {
        /// The entry at which the total passed the limit.
        name: String,
        /// The limit.
        limit: u64,
    },
    /// An entry that expands more than [`ArchiveLimits::max_compression_ratio`] times.
    #[error(
        "the entry \"{name}\" expands more than {limit} times its packed size, the compression-ratio limit that keeps out zip bombs; upload that file on its own"
    )]
    RatioTooHigh {
        /// The entry.
        name: String,
        /// The limit.
        limit: u64,
    },
    /// An entry that gives more bytes than its header declares.
    #[error(
        "the entry \"{name}\" holds more than the {declared} bytes its header declares: the archive is damaged or forged; make the archive again"
    )]
    SizeMismatch {
        /// The entry.
        name: String,
        /// What its header says.
        declared: u64,
    },
    /// An archive inside the archive.
    #[error(
        "the entry \"{name}\" is itself an archive; archives are read one level deep: upload its files, or that archive on its own"
    )]
    NestedArchive {
        /// The entry.
        name: String,
    },
    /// An absolute path.
    #[error(
        "the entry \"{name}\" has an absolute path; entries must be named relative to the archive"
    )]
    AbsolutePath {
        /// The entry.
        name: String,
    },
    /// A `..` component.
    #[error(
        "the entry \"{name}\" climbs out of the archive with \"..\"; entries must stay inside the archive"
    )]
    ParentComponent {
        /// The entry.
        name: String,
    },
    /// A symbolic link, device, FIFO or socket.
    #[error("the entry \"{name}\" is a {kind}; only files and folders are read from an archive")]
    SpecialEntry {
        /// The entry.
        name: String,
        /// What it is, in words.
        kind: &'static str,
    },
    /// Two entries with one name once normalised.
    #[error(
        "the entries \"{first}\" and \"{second}\" name the same file; each file may appear once in an archive"
    )]
    DuplicateName {
        /// The first entry of that name.
        first: String,
        /// The second one.
        second: String,
    },
    /// A name that is not valid UTF-8 (or is too long).
    #[error(
        "the name of entry {position} (\"{lossy}\") {problem}; rename the file and make the archive again"
    )]
    BadName {
        /// Its position in the archive, from 1.
        position: usize,
        /// The name as far as it reads.
        lossy: String,
        /// What is wrong with it.
        problem: String,
    },
    /// An encrypted entry.
    #[error("the entry \"{name}\" is encrypted; upload an archive without a password")]
    Encrypted {
        /// The entry.
        name: String,
    },
    /// An entry whose data does not unpack (an unsupported method, damaged data, a wrong checksum).
    #[error(
        "the entry \"{name}\" cannot be unpacked ({reason}); make the archive again with the deflate or store method"
    )]
    Unreadable {
        /// The entry.
        name: String,
        /// What the reader said.
        reason: String,
    },
    /// The service could not write or read its own temporary files: not the archive's fault.
    #[error("the archive could not be unpacked on the service: {0}")]
    Storage(#[source] std::io::Error),
}

impl ArchiveError {
    /// True when the archive itself is refused (a 400); false for the service's own failure.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, Self::Storage(_))
    }
}

/// Unpacks the zip archive at `archive` into temporary files under `temp_dir`, within `limits`:
/// its files in archive order (folders skipped), or the first refusal with nothing kept.
pub fn read_zip(
    archive: &Path,
    temp_dir: &Path,
    limits: &ArchiveLimits,
) -> Result<Vec<ArchiveEntry>, ArchiveError> {
    let mut file = File::open(archive).map_err(ArchiveError::Storage)?;
    let bytes = file.metadata().map_err(ArchiveError::Storage)?.len();
    if bytes > limits.max_archive_bytes {
        return Err(ArchiveError::ArchiveTooLarge {
            bytes,
            limit: limits.max_archive_bytes,
        });
    }
    check_entry_count(declared_entry_count(&mut file, bytes), limits)?;
    file.seek(SeekFrom::Start(0))
        .map_err(ArchiveError::Storage)?;
    let mut zip = ZipArchive::new(BufReader::new(file)).map_err(|error| match error {
        ZipError::Io(error) => ArchiveError::Storage(error),
        other => ArchiveError::NotAZip {
            reason: other.to_string(),
        },
    })?;
    check_entry_count(Some(zip.len() as u64), limits)?;
    let planned = plan_entries(&mut zip, limits)?;
    let mut unpacked = Vec::with_capacity(planned.len());
    let mut total = 0u64;
    for entry in planned {
        let read = unpack_entry(&mut zip, &entry, temp_dir, limits, &mut total)?;
        unpacked.push(read);
    }
    Ok(unpacked)
}

fn check_entry_count(entries: Option<u64>, limits: &ArchiveLimits) -> Result<(), ArchiveError> {
    match entries {
        Some(entries) if entries > limits.max_entries as u64 => Err(ArchiveError::TooManyEntries {
            entries,
            limit: limits.max_entries,
        }),
        _ => Ok(()),
    }
}

/// The number of entries the archive's end record declares (its zip64 record's when it has one),
/// read from the file's tail before the central directory is parsed; `None` when the tail has no
/// end record (the zip reader then says what is wrong).
fn declared_entry_count(file: &mut File, bytes: u64) -> Option<u64> {
    let tail_len = bytes.min(END_RECORD_LEN + MAX_COMMENT_LEN);
    let tail_start = bytes - tail_len;
    let mut tail = vec![0; usize::try_from(tail_len).ok()?];
    file.seek(SeekFrom::Start(tail_start)).ok()?;
    file.read_exact(&mut tail).ok()?;
    let at = tail
        .windows(END_RECORD.len())
        .rposition(|window| window == END_RECORD)?;
    let record = tail.get(at..at + END_RECORD_LEN as usize)?;
    let entries = u16::from_le_bytes([record[10], record[11]]);
    if entries != u16::MAX {
        return Some(u64::from(entries));
    }
    // Zip64: the locator sits just before the end record and points at the zip64 end record.
    let locator_start = (tail_start + at as u64).checked_sub(ZIP64_LOCATOR_LEN)?;
    let mut locator = [0u8; ZIP64_LOCATOR_LEN as usize];
    file.seek(SeekFrom::Start(locator_start)).ok()?;
    file.read_exact(&mut locator).ok()?;
    if locator[..4] != ZIP64_LOCATOR {
        return Some(u64::from(entries));
    }
    let record_start = u64::from_le_bytes(locator[8..16].try_into().ok()?);
    let mut record = [0u8; 40];
    file.seek(SeekFrom::Start(record_start)).ok()?;
    file.read_exact(&mut record).ok()?;
    (record[..4] == ZIP64_END_RECORD)
        .then(|| u64::from_le_bytes(record[32..40].try_into().unwrap_or_default()))
}

/// An entry to unpack, checked from its headers.
struct PlannedEntry {
    index: usize,
    name: String,
    declared_bytes: u64,
    packed_bytes: u64,
}

/// Every entry's name, kind and declared size checked from the central directory, before a byte is
/// unpacked: the files to unpack, in archive order.
fn plan_entries<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    limits: &ArchiveLimits,
) -> Result<Vec<PlannedEntry>, ArchiveError> {
    let mut planned = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut declared_total = 0u64;
    for index in 0..zip.len() {
        let entry = zip
            .by_index_raw(index)
            .map_err(|error| ArchiveError::NotAZip {
                reason: error.to_string(),
            })?;
        let name = checked_name(entry.name_raw(), index + 1)?;
        let kind = entry.unix_mode().map_or(0, |mode| mode & FILE_TYPE_BITS);
        if kind != 0 && kind != REGULAR_FILE && kind != DIRECTORY {
            return Err(ArchiveError::SpecialEntry {
                name,
                kind: special_kind(kind),
            });
        }
        if entry.encrypted() {
            return Err(ArchiveError::Encrypted { name });
        }
        let folder = entry.is_dir() || kind == DIRECTORY;
        let normalised = normalised_name(&name)?;
        if let Some(first) = seen.insert(normalised.to_lowercase(), name.clone()) {
            return Err(ArchiveError::DuplicateName {
                first,
                second: name,
            });
        }
        if folder {
            continue;
        }
        if is_archive_name(&normalised) {
            return Err(ArchiveError::NestedArchive { name });
        }
        if entry.size() > limits.max_entry_bytes {
            return Err(ArchiveError::EntryTooLarge {
                name,
                limit: limits.max_entry_bytes,
            });
        }
        declared_total = declared_total.saturating_add(entry.size());
        if declared_total > limits.max_total_bytes {
            return Err(ArchiveError::TotalTooLarge {
                name,
                limit: limits.max_total_bytes,
            });
        }
        planned.push(PlannedEntry {
            index,
            name: normalised,
            declared_bytes: entry.size(),
            packed_bytes: entry.compressed_size(),
        });
    }
    Ok(planned)
}

/// The entry's name as text, or why it cannot be used.
fn checked_name(raw: &[u8], position: usize) -> Result<String, ArchiveError> {
    let bad = |problem: &str| ArchiveError::BadName {
        position,
        lossy: String::from_utf8_lossy(&raw[..raw.len().min(200)]).into_owned(),
        problem: problem.to_owned(),
    };
    if raw.len() > MAX_NAME_BYTES {
        return Err(bad(&format!("is longer than {MAX_NAME_BYTES} bytes")));
    }
    let name = std::str::from_utf8(raw).map_err(|_| bad("is not valid UTF-8"))?;
    if name.contains('\0') || name.trim_matches(['/', '\\']).is_empty() {
        return Err(bad("is empty or holds a NUL character"));
    }
    Ok(name.to_owned())
}

/// The name with `/` between components, `.` and empty components dropped; an absolute path or a
/// `..` component is refused.
fn normalised_name(name: &str) -> Result<String, ArchiveError> {
    let slashed = name.replace('\\', "/");
    let drive = slashed.as_bytes().get(1) == Some(&b':');
    if slashed.starts_with('/') || drive {
        return Err(ArchiveError::AbsolutePath {
            name: name.to_owned(),
        });
    }
    let mut components = Vec::new();
    for component in slashed.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                return Err(ArchiveError::ParentComponent {
                    name: name.to_owned(),
                });
            }
            other => components.push(other),
        }
    }
    Ok(components.join("/"))
}

fn is_archive_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".zip")
}

fn special_kind(kind: u32) -> &'static str {
    match kind {
        0o120_000 => "symbolic link",
        0o140_000 => "socket",
        0o060_000 => "block device",
        0o020_000 => "character device",
        0o010_000 => "FIFO",
        _ => "special file",
    }
}

/// Unpacks one entry into a temporary file, counting its bytes against every limit as they come.
fn unpack_entry<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    planned: &PlannedEntry,
    temp_dir: &Path,
    limits: &ArchiveLimits,
    total: &mut u64,
) -> Result<ArchiveEntry, ArchiveError> {
    let name = planned.name.clone();
    let unreadable = |error: &dyn std::fmt::Display| ArchiveError::Unreadable {
        name: name.clone(),
        reason: error.to_string(),
    };
    let mut reader = zip.by_index(planned.index).map_err(|error| match error {
        ZipError::Io(error) => ArchiveError::Storage(error),
        other => unreadable(&other),
    })?;
    let mut file = tempfile::NamedTempFile::new_in(temp_dir).map_err(ArchiveError::Storage)?;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut written = 0u64;
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            // The zip crate stops an entry itself at the size its header declares (its own
            // words); counted below as well, so either way it is the same refusal.
            Err(error) if error.to_string().contains("larger than its declared") => {
                return Err(ArchiveError::SizeMismatch {
                    name,
                    declared: planned.declared_bytes,
                });
            }
            Err(error) => return Err(unreadable(&error)),
        };
        if written == 0
            && ZIP_SIGNATURES
                .iter()
                .any(|signature| buffer[..read].starts_with(signature))
        {
            return Err(ArchiveError::NestedArchive { name });
        }
        written += read as u64;
        *total += read as u64;
        check_counted(planned, written, *total, limits)?;
        file.write_all(&buffer[..read])
            .map_err(ArchiveError::Storage)?;
    }
    file.flush().map_err(ArchiveError::Storage)?;
    Ok(ArchiveEntry {
        name,
        size: written,
        file,
    })
}

/// The limits checked on the bytes an entry has given so far (`written`) and the archive's running
/// `total`.
fn check_counted(
    planned: &PlannedEntry,
    written: u64,
    total: u64,
    limits: &ArchiveLimits,
) -> Result<(), ArchiveError> {
    let name = || planned.name.clone();
    if written > limits.max_entry_bytes {
        return Err(ArchiveError::EntryTooLarge {
            name: name(),
            limit: limits.max_entry_bytes,
        });
    }
    if written > planned.declared_bytes {
        return Err(ArchiveError::SizeMismatch {
            name: name(),
            declared: planned.declared_bytes,
        });
    }
    if total > limits.max_total_bytes {
        return Err(ArchiveError::TotalTooLarge {
            name: name(),
            limit: limits.max_total_bytes,
        });
    }
    let ratio_bound = planned
        .packed_bytes
        .clamp(1, limits.max_archive_bytes)
        .saturating_mul(limits.max_compression_ratio);
    if written > RATIO_CHECKED_FROM && written > ratio_bound {
        return Err(ArchiveError::RatioTooHigh {
            name: name(),
            limit: limits.max_compression_ratio,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use zip::CompressionMethod;
    use zip::write::{SimpleFileOptions, ZipWriter};

    use super::*;

    fn deflated() -> SimpleFileOptions {
        SimpleFileOptions::default().compression_method(CompressionMethod::Deflated)
    }

    /// A zip of `(name, bytes)` entries, deflated.
    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            writer.start_file(*name, deflated()).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    /// A zip whose one entry is `bytes` zero bytes, written a MiB at a time (never held whole).
    fn zeros_zip(name: &str, bytes: u64) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        writer
            .start_file(name, deflated().large_file(bytes >= u64::from(u32::MAX)))
            .unwrap();
        let chunk = vec![0u8; 1024 * 1024];
        let mut left = bytes;
        while left > 0 {
            let now = left.min(chunk.len() as u64) as usize;
            writer.write_all(&chunk[..now]).unwrap();
            left -= now as u64;
        }
        writer.finish().unwrap().into_inner()
    }

    /// Reads `archive` (bytes) from a file in a fresh folder, unpacking into that folder.
    fn read(archive: &[u8], limits: &ArchiveLimits) -> Result<Vec<ArchiveEntry>, ArchiveError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("upload.zip");
        std::fs::write(&path, archive).unwrap();
        let read = read_zip(&path, dir.path(), limits);
        // On a refusal nothing is left beside the archive.
        if read.is_err() {
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert_eq!(left.len(), 1, "{left:?}");
        }
        read
    }

    fn refusal(archive: &[u8]) -> ArchiveError {
        let error = read(archive, &ArchiveLimits::default()).unwrap_err();
        assert!(error.is_refusal(), "{error}");
        error
    }

    #[test]
    fn three_real_parts_are_read_back_byte_for_byte() {
        let names = [
            "step/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.step",
            "pdf/voron0__Bottom_Panel.pdf",
            "dxf/voron0__Motor_Panel.dxf",
        ];
        let Some(files) = names
            .iter()
            .map(|name| partlens_testkit::realworld::corpus_file(name))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let entries: Vec<(&str, &[u8])> = names
            .iter()
            .zip(&files)
            .map(|(name, bytes)| (*name, bytes.as_slice()))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("parts.zip");
        std::fs::write(&path, zip_of(&entries)).unwrap();
        let read = read_zip(&path, dir.path(), &ArchiveLimits::default()).unwrap();
        assert_eq!(read.len(), 3);
        for ((name, bytes), entry) in entries.iter().zip(&read) {
            assert_eq!(entry.name, *name);
            assert_eq!(entry.size, bytes.len() as u64);
            assert_eq!(entry.bytes().unwrap(), *bytes, "{name}");
        }
    }

    #[test]
    fn folders_are_skipped_and_names_normalised() {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        writer.add_directory("parts/", deflated()).unwrap();
        writer.start_file("parts/./plate.dxf", deflated()).unwrap();
        writer.write_all(b"0\nEOF\n").unwrap();
        writer
            .start_file("parts\\bracket.step", deflated())
            .unwrap();
        writer.write_all(b"ISO-10303-21;").unwrap();
        let bytes = writer.finish().unwrap().into_inner();
        let read = read(&bytes, &ArchiveLimits::default()).unwrap();
        let names: Vec<&str> = read.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["parts/plate.dxf", "parts/bracket.step"]);
    }

    #[test]
    fn nesting_like_42_zip_is_refused_at_the_first_inner_archive() {
        // Three levels, each holding the level below several times (42.zip's shape, smaller).
        let mut level = zeros_zip("0.bin", 4 * 1024 * 1024);
        for depth in 1..=3 {
            let copies: Vec<(String, Vec<u8>)> = (0..4)
                .map(|copy| (format!("{depth}-{copy}.zip"), level.clone()))
                .collect();
            let entries: Vec<(&str, &[u8])> = copies
                .iter()
                .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
                .collect();
            level = zip_of(&entries);
        }
        let error = refusal(&level);
        assert!(
            matches!(&error, ArchiveError::NestedArchive { name } if name == "3-0.zip"),
            "{error}"
        );
        assert!(error.to_string().contains("one level deep"), "{error}");
        // An inner archive under another name is known by its first bytes.
        let inner = zip_of(&[("part.stl", b"solid x")]);
        let error = refusal(&zip_of(&[("drawings.dat", &inner)]));
        assert!(
            matches!(&error, ArchiveError::NestedArchive { name } if name == "drawings.dat"),
            "{error}"
        );
    }

    #[test]
    fn a_gigabyte_of_zeros_is_refused_by_its_header_and_while_it_streams() {
        let gigabyte = zeros_zip("zeros.bin", 1024 * 1024 * 1024);
        // Its header says what it is: refused before a byte is unpacked.
        let error = refusal(&gigabyte);
        assert!(
            matches!(&error, ArchiveError::EntryTooLarge { name, limit } if name == "zeros.bin" && *limit == DEFAULT_MAX_ENTRY_BYTES),
            "{error}"
        );
        // With room for it in the header checks, it streams until the ratio gives it away.
        let roomy = ArchiveLimits {
            max_entry_bytes: 2 * 1024 * 1024 * 1024,
            max_total_bytes: 2 * 1024 * 1024 * 1024,
            ..ArchiveLimits::default()
        };
        let error = read(&gigabyte, &roomy).unwrap_err();
        assert!(
            matches!(&error, ArchiveError::RatioTooHigh { limit, .. } if *limit == 100),
            "{error}"
        );
        assert!(error.to_string().contains("zeros.bin"), "{error}");
        // With no ratio limit either, a header that understates it is caught as it streams.
        let counted = ArchiveLimits {
            max_compression_ratio: u64::MAX,
            ..roomy
        };
        let stopped_at = ArchiveLimits {
            max_entry_bytes: 64 * 1024 * 1024,
            ..counted
        };
        let error = read(&lied_about(&gigabyte, 32 * 1024 * 1024), &stopped_at).unwrap_err();
        assert!(
            matches!(&error, ArchiveError::SizeMismatch { .. }),
            "{error}"
        );
    }

    /// The archive with its one entry's uncompressed size (local header and central directory)
    /// rewritten to `claimed`.
    fn lied_about(archive: &[u8], claimed: u32) -> Vec<u8> {
        let mut forged = archive.to_vec();
        assert_eq!(&forged[..4], b"PK\x03\x04");
        forged[22..26].copy_from_slice(&claimed.to_le_bytes());
        let central = forged
            .windows(4)
            .position(|window| window == b"PK\x01\x02")
            .unwrap();
        forged[central + 24..central + 28].copy_from_slice(&claimed.to_le_bytes());
        forged
    }

    #[test]
    fn a_size_header_that_lies_is_caught_while_reading() {
        let honest = zip_of(&[("plate.dxf", &vec![b'7'; 200_000])]);
        assert_eq!(
            read(&honest, &ArchiveLimits::default()).unwrap()[0].size,
            200_000
        );
        let error = refusal(&lied_about(&honest, 10));
        assert!(
            matches!(&error, ArchiveError::SizeMismatch { name, declared } if name == "plate.dxf" && *declared == 10),
            "{error}"
        );
        assert!(error.to_string().contains("damaged or forged"), "{error}");
    }

    #[test]
    fn a_highly_compressed_entry_is_refused_by_its_ratio() {
        let error = refusal(&zeros_zip("padding.bin", 16 * 1024 * 1024));
        assert!(
            matches!(&error, ArchiveError::RatioTooHigh { name, .. } if name == "padding.bin"),
            "{error}"
        );
        // A small file of one repeated byte is below the size the ratio is checked from.
        assert!(read(&zeros_zip("small.bin", 100_000), &ArchiveLimits::default()).is_ok());
    }

    #[test]
    fn a_hundred_thousand_empty_entries_are_refused_from_the_end_record() {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
        for index in 0..100_000 {
            writer.start_file(format!("{index}.txt"), stored).unwrap();
        }
        let bytes = writer.finish().unwrap().into_inner();
        let error = refusal(&bytes);
        assert!(
            matches!(&error, ArchiveError::TooManyEntries { entries, limit } if *entries == 100_000 && *limit == DEFAULT_MAX_ENTRIES),
            "{error}"
        );
        assert_eq!(
            error.to_string(),
            "the archive holds 100000 entries, over the limit of 1000 entries for one archive; split it into smaller archives"
        );
    }

    #[test]
    fn paths_that_leave_the_archive_are_refused() {
        let error = refusal(&zip_of(&[("parts/../../etc/cron.d/job", b"x")]));
        assert!(
            matches!(&error, ArchiveError::ParentComponent { name } if name == "parts/../../etc/cron.d/job"),
            "{error}"
        );
        let error = refusal(&zip_of(&[("../part.step", b"x")]));
        assert!(
            matches!(error, ArchiveError::ParentComponent { .. }),
            "{error}"
        );
        for absolute in ["/etc/passwd", "\\windows\\system.ini", "C:/parts/a.step"] {
            let error = refusal(&zip_of(&[(absolute, b"x")]));
            assert!(
                matches!(&error, ArchiveError::AbsolutePath { name } if name == absolute),
                "{error}"
            );
        }
    }

    #[test]
    fn a_symbolic_link_is_refused() {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        writer.start_file("plate.dxf", deflated()).unwrap();
        writer.write_all(b"0\nEOF\n").unwrap();
        writer
            .add_symlink("passwd.dxf", "/etc/passwd", deflated())
            .unwrap();
        let error = refusal(&writer.finish().unwrap().into_inner());
        assert!(
            matches!(&error, ArchiveError::SpecialEntry { name, kind } if name == "passwd.dxf" && *kind == "symbolic link"),
            "{error}"
        );
    }

    #[test]
    fn names_that_collide_or_do_not_read_are_refused() {
        let error = refusal(&zip_of(&[
            ("Parts/Plate.DXF", b"a"),
            ("parts//./plate.dxf", b"b"),
        ]));
        assert!(
            matches!(&error, ArchiveError::DuplicateName { first, second } if first == "Parts/Plate.DXF" && second == "parts//./plate.dxf"),
            "{error}"
        );
        // A name in a legacy code page (CP437's 0x81 is ü): not UTF-8.
        let mut archive = zip_of(&[("pl#te.dxf", b"a")]);
        for at in archive
            .windows(9)
            .enumerate()
            .filter(|(_, window)| *window == b"pl#te.dxf")
            .map(|(at, _)| at)
            .collect::<Vec<_>>()
        {
            archive[at + 2] = 0x81;
        }
        let error = refusal(&archive);
        assert!(
            matches!(&error, ArchiveError::BadName { position: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("not valid UTF-8"), "{error}");
    }

    #[test]
    fn a_file_that_is_not_a_zip_or_too_large_is_refused() {
        let error = refusal(b"ISO-10303-21; not an archive at all");
        assert!(matches!(error, ArchiveError::NotAZip { .. }), "{error}");
        let small = ArchiveLimits {
            max_archive_bytes: 100,
            ..ArchiveLimits::default()
        };
        let error = read(&zip_of(&[("a.step", &[b'x'; 500])]), &small).unwrap_err();
        assert!(
            matches!(error, ArchiveError::ArchiveTooLarge { limit: 100, .. }),
            "{error}"
        );
    }

    #[test]
    fn the_total_of_all_entries_is_limited() {
        let part = vec![b'p'; 300_000];
        let archive = zip_of(&[("a.stl", &part), ("b.stl", &part)]);
        let tight = ArchiveLimits {
            max_total_bytes: 500_000,
            ..ArchiveLimits::default()
        };
        let error = read(&archive, &tight).unwrap_err();
        assert!(
            matches!(&error, ArchiveError::TotalTooLarge { name, limit } if name == "b.stl" && *limit == 500_000),
            "{error}"
        );
    }
}
