//! `partlens-service --data TARGET migrate --from DIR --to postgres://…`: copies a SQLite data
//! directory (accounts, records, descriptors, attributes, feedback, the queue, the stored files)
//! into PostgreSQL, then counts what each side holds for the copied companies.
//!
//! The source database is opened read-only and read in one snapshot. The target is first brought
//! to the current schema (`store/postgres/schema.rs`). Rows are written in batches of
//! [`BATCH_ROWS`], one transaction each, with `ON CONFLICT DO NOTHING`: a run that stopped half
//! way resumes, and a second run writes nothing. Identity columns keep the source's ids
//! (`OVERRIDING SYSTEM VALUE`) and their sequences are moved past them afterwards. Before writing,
//! the target is checked for another team's rows that would collide (a company of the same name
//! under another id, a user name or attribute id taken otherwise, a file UID of another company):
//! the run is refused, nothing written. Run it with the service on the source stopped: a row
//! already in the target is left as it is, so a second run adds what is missing but does not
//! carry over changes made to the source since the first. This is a command, run at the edge by `main`, so its
//! errors are `anyhow` sentences.
//!
//! Mapping, SQLite (`store/schema.rs`, version 6) to PostgreSQL (version 7), column by column;
//! `INTEGER` flags become `boolean`, `INTEGER` ids `bigint`, `BLOB` `bytea`, text stays text:
//!
//! | SQLite | PostgreSQL | how |
//! |---|---|---|
//! | `companies` (id, name, created_at) | same | as is |
//! | `users` (id, company_id, name, password_hash, admin 0/1, created_at) | `id` identity, `admin` boolean | ids kept, password hashes copied: logins work unchanged |
//! | `clients` (id, created_at) | same | as is |
//! | `tokens` (token_hash, user_id, client_id, expires_at) | same | copied: tokens are SHA-256 digests checked against the table, signed by no secret, so sessions go on |
//! | `settings` (name, value BLOB) | `value` bytea | copied where the target has no such name (the image-link key: links made before stay valid); a target that already has its own keeps it (links last 15 min) |
//! | `files` (20 columns + `failure_reason`) | same, flags boolean, `row_order` identity | inserted in rowid order so `row_order` keeps the listing's tie-break; `in_progress` becomes `queued` (its job is taken again, as a SQLite start would) |
//! | `views` (file_uid, position, descriptor) | same | as is; `view_vectors` rows are filled in at the end (`view_vectors::fill_missing`) |
//! | `attribute_names` (id, company_id, name, unit, name_key, unit_key) | `id` identity | ids kept (they are the stable IDs of `GET /api/FileAttributes`) |
//! | `file_attributes` (file_uid, position, attribute_id, text) | same | as is |
//! | `attribute_values` (file_uid, attribute_id, value, value_key) | same, no key | a file's values are written together, only when the target has none of them |
//! | `feedback` (8 columns) | same | as is |
//! | `jobs` (file_uid, seq, queued_at) | `claimed_by` NULL | queued jobs stay queued; `job_seq` moved past the largest `seq` |
//! | `visual_changes`, `metadata_generation` | written by the target's triggers | not copied |
//! | `file_listing`, `file_terms`, `search_terms`, `search_postings`, `search_term_index` (FTS5) | `search_terms`, `search_term_trigrams`, `search_trigram_counts`, `search_postings` | not copied: rebuilt from `files.search_text` at the end (`text_terms::fill_missing`) |
//! | — | `nodes`, `partlens_schema`, `visual_journal` | the target's own |
//!
//! Stored files (`files/UID`, `images/UID.sm.jpg`, `images/UID.lg.png`, see `blobs/`) are copied
//! into the target's blob store: the target `--data` (unless it is the source directory itself),
//! the folder of `--blobs DIR`, or the bucket of `--blobs s3://…` under the same names. A file
//! already there with the same size is skipped; a copy into a folder is written beside its place
//! and renamed into it, and an object appears whole or not at all, so an interrupted copy is
//! redone, never kept half. The saved visual graphs (`visual/`) are not used on
//! PostgreSQL and not copied.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context as _, bail};
use r2d2_postgres::postgres::types::ToSql;
use r2d2_postgres::postgres::{self, Client, NoTls};
use rusqlite::types::ValueRef;

use crate::blobs::{BlobLocation, S3Blobs, S3Location};
use crate::store::postgres::{DatabaseUrl, schema as pg_schema, text_terms, view_vectors};
use crate::store::{DATABASE_FILE, schema as sqlite_schema};

/// Rows written in one transaction.
pub const BATCH_ROWS: usize = 500;

/// How one column is read from SQLite and bound into PostgreSQL.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Text,
    OptText,
    Int,
    Int32,
    Bool,
    Bytes,
}

/// One value on its way from SQLite to PostgreSQL.
#[derive(Debug)]
enum Cell {
    Text(String),
    OptText(Option<String>),
    Int(i64),
    Int32(i32),
    Bool(bool),
    Bytes(Vec<u8>),
}

impl Cell {
    fn read(value: ValueRef<'_>, kind: Kind, column: &str) -> anyhow::Result<Self> {
        let text = |value: ValueRef<'_>| -> anyhow::Result<String> {
            match value {
                ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                    Ok(String::from_utf8_lossy(bytes).into_owned())
                }
                ValueRef::Integer(number) => Ok(number.to_string()),
                ValueRef::Real(number) => Ok(number.to_string()),
                ValueRef::Null => bail!("column {column} is NULL in the source"),
            }
        };
        let int = |value: ValueRef<'_>| -> anyhow::Result<i64> {
            match value {
                ValueRef::Integer(number) => Ok(number),
                other => bail!(
                    "column {column} holds {:?}, not a number",
                    other.data_type()
                ),
            }
        };
        Ok(match kind {
            Kind::Text => Self::Text(text(value)?),
            Kind::OptText => Self::OptText(match value {
                ValueRef::Null => None,
                other => Some(text(other)?),
            }),
            Kind::Int => Self::Int(int(value)?),
            Kind::Int32 => Self::Int32(
                i32::try_from(int(value)?)
                    .with_context(|| format!("column {column} is out of range"))?,
            ),
            Kind::Bool => Self::Bool(int(value)? != 0),
            Kind::Bytes => Self::Bytes(match value {
                ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes.to_vec(),
                other => bail!("column {column} holds {:?}, not bytes", other.data_type()),
            }),
        })
    }

    fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Self::Text(value) => value,
            Self::OptText(value) => value,
            Self::Int(value) => value,
            Self::Int32(value) => value,
            Self::Bool(value) => value,
            Self::Bytes(value) => value,
        }
    }
}

/// One table copied row by row: what is read, how, and the insert that skips rows already there.
struct Table {
    name: &'static str,
    select: &'static str,
    kinds: &'static [Kind],
    insert: &'static str,
}

/// The tables in the order their references need.
const TABLES: &[Table] = &[
    Table {
        name: "companies",
        select: "SELECT id, name, created_at FROM companies ORDER BY rowid",
        kinds: &[Kind::Text, Kind::Text, Kind::Text],
        insert: "INSERT INTO companies (id, name, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
    },
    Table {
        name: "users",
        select: "SELECT id, company_id, name, password_hash, admin, created_at FROM users \
                 ORDER BY id",
        kinds: &[
            Kind::Int,
            Kind::Text,
            Kind::Text,
            Kind::Text,
            Kind::Bool,
            Kind::Text,
        ],
        insert: "INSERT INTO users (id, company_id, name, password_hash, admin, created_at) \
                 OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
    },
    Table {
        name: "clients",
        select: "SELECT id, created_at FROM clients ORDER BY rowid",
        kinds: &[Kind::Text, Kind::Text],
        insert: "INSERT INTO clients (id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    },
    Table {
        name: "tokens",
        select: "SELECT token_hash, user_id, client_id, expires_at FROM tokens ORDER BY rowid",
        kinds: &[Kind::Text, Kind::Int, Kind::Text, Kind::Int],
        insert: "INSERT INTO tokens (token_hash, user_id, client_id, expires_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    },
    Table {
        name: "settings",
        select: "SELECT name, value FROM settings ORDER BY name",
        kinds: &[Kind::Text, Kind::Bytes],
        insert: "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    },
    Table {
        name: "files",
        select: "SELECT uid, company_id, owner_user_id, is_search_input, stored_path, path_key, \
                 display_name, extension, size, \
                 CASE WHEN state = 'in_progress' THEN 'queued' ELSE state END, revision, \
                 uploaded_at, indexed_at, text, extracted_attributes, pmi, has_thumbnail, \
                 has_large_image, search_text, callback_param, failure_reason \
                 FROM files ORDER BY rowid",
        kinds: &[
            Kind::Text,
            Kind::Text,
            Kind::Int,
            Kind::Bool,
            Kind::Text,
            Kind::OptText,
            Kind::Text,
            Kind::Text,
            Kind::Int,
            Kind::Text,
            Kind::Int,
            Kind::Text,
            Kind::OptText,
            Kind::Text,
            Kind::Text,
            Kind::Text,
            Kind::Bool,
            Kind::Bool,
            Kind::Text,
            Kind::OptText,
            Kind::OptText,
        ],
        insert: "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path, \
                 path_key, display_name, extension, size, state, revision, uploaded_at, \
                 indexed_at, text, extracted_attributes, pmi, has_thumbnail, has_large_image, \
                 search_text, callback_param, failure_reason) VALUES ($1, $2, $3, $4, $5, $6, \
                 $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) \
                 ON CONFLICT DO NOTHING",
    },
    Table {
        name: "views",
        select: "SELECT file_uid, position, descriptor FROM views ORDER BY file_uid, position",
        kinds: &[Kind::Text, Kind::Int32, Kind::Bytes],
        insert: "INSERT INTO views (file_uid, position, descriptor) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
    },
    Table {
        name: "attribute_names",
        select: "SELECT id, company_id, name, unit, name_key, unit_key FROM attribute_names \
                 ORDER BY id",
        kinds: &[
            Kind::Int,
            Kind::Text,
            Kind::Text,
            Kind::Text,
            Kind::Text,
            Kind::Text,
        ],
        insert: "INSERT INTO attribute_names (id, company_id, name, unit, name_key, unit_key) \
                 OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
    },
    Table {
        name: "file_attributes",
        select: "SELECT file_uid, position, attribute_id, text FROM file_attributes \
                 ORDER BY file_uid, position",
        kinds: &[Kind::Text, Kind::Int32, Kind::Int, Kind::Text],
        insert: "INSERT INTO file_attributes (file_uid, position, attribute_id, text) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    },
    Table {
        name: "feedback",
        select: "SELECT id, file_uid, company_id, user_id, external_user, feedback, attributes, \
                 created_at FROM feedback ORDER BY rowid",
        kinds: &[
            Kind::Text,
            Kind::Text,
            Kind::Text,
            Kind::Int,
            Kind::Text,
            Kind::Text,
            Kind::Text,
            Kind::Text,
        ],
        insert: "INSERT INTO feedback (id, file_uid, company_id, user_id, external_user, \
                 feedback, attributes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT DO NOTHING",
    },
    Table {
        name: "jobs",
        select: "SELECT file_uid, seq, queued_at FROM jobs ORDER BY seq",
        kinds: &[Kind::Text, Kind::Int, Kind::Text],
        insert: "INSERT INTO jobs (file_uid, seq, queued_at, claimed_by) \
                 VALUES ($1, $2, $3, NULL) ON CONFLICT DO NOTHING",
    },
];

/// Counts of one table on both sides, for the copied companies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableCount {
    /// The table.
    pub table: &'static str,
    /// Rows in the source.
    pub source: i64,
    /// Rows in the target that belong to the source's companies (or keys).
    pub target: i64,
}

/// Per table: the source count (SQLite, whole table) and the target count restricted to the
/// source's companies (`$1`, text[]) or, for global tables, to the source's keys (written `$2`,
/// bound as the only parameter).
const COUNTS: &[(&str, &str, &str)] = &[
    (
        "companies",
        "SELECT count(*) FROM companies",
        "SELECT count(*) FROM companies WHERE id = ANY($1)",
    ),
    (
        "users",
        "SELECT count(*) FROM users",
        "SELECT count(*) FROM users WHERE company_id = ANY($1)",
    ),
    (
        "clients",
        "SELECT count(*) FROM clients",
        "SELECT count(*) FROM clients WHERE id = ANY($2)",
    ),
    (
        "tokens",
        "SELECT count(*) FROM tokens",
        "SELECT count(*) FROM tokens t JOIN users u ON u.id = t.user_id \
         WHERE u.company_id = ANY($1)",
    ),
    (
        "settings",
        "SELECT count(*) FROM settings",
        "SELECT count(*) FROM settings WHERE name = ANY($2)",
    ),
    (
        "files",
        "SELECT count(*) FROM files",
        "SELECT count(*) FROM files WHERE company_id = ANY($1)",
    ),
    (
        "views",
        "SELECT count(*) FROM views",
        "SELECT count(*) FROM views v JOIN files f ON f.uid = v.file_uid \
         WHERE f.company_id = ANY($1)",
    ),
    (
        "attribute_names",
        "SELECT count(*) FROM attribute_names",
        "SELECT count(*) FROM attribute_names WHERE company_id = ANY($1)",
    ),
    (
        "file_attributes",
        "SELECT count(*) FROM file_attributes",
        "SELECT count(*) FROM file_attributes a JOIN files f ON f.uid = a.file_uid \
         WHERE f.company_id = ANY($1)",
    ),
    (
        "attribute_values",
        "SELECT count(*) FROM attribute_values",
        "SELECT count(*) FROM attribute_values a JOIN files f ON f.uid = a.file_uid \
         WHERE f.company_id = ANY($1)",
    ),
    (
        "feedback",
        "SELECT count(*) FROM feedback",
        "SELECT count(*) FROM feedback WHERE company_id = ANY($1)",
    ),
    (
        "jobs",
        "SELECT count(*) FROM jobs",
        "SELECT count(*) FROM jobs j JOIN files f ON f.uid = j.file_uid \
         WHERE f.company_id = ANY($1)",
    ),
];

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
    let source = open_source(from)?;
    let config = url
        .expose()
        .parse::<postgres::Config>()
        .context("the target is not a PostgreSQL connection string")?;
    let mut client = config
        .connect(NoTls)
        .context("cannot connect to the target PostgreSQL database")?;
    pg_schema::migrate(&mut client)
        .context("cannot bring the target database's schema up to date")?;

    // One snapshot of the source for everything read below.
    source
        .execute_batch("BEGIN")
        .context("cannot read the source database")?;
    refuse_collisions(&source, &mut client)
        .context("cannot compare the source with what the target holds")?;
    for table in TABLES {
        copy_table(&source, &mut client, table, progress)
            .with_context(|| format!("cannot copy the table {}", table.name))?;
    }
    copy_attribute_values(&source, &mut client, progress)
        .context("cannot copy the table attribute_values")?;
    client
        .batch_execute(
            "SELECT setval(pg_get_serial_sequence('users', 'id'),
                           GREATEST((SELECT max(id) FROM users), 1));
             SELECT setval(pg_get_serial_sequence('attribute_names', 'id'),
                           GREATEST((SELECT max(id) FROM attribute_names), 1));
             SELECT setval('job_seq', GREATEST((SELECT max(seq) FROM jobs), 1));",
        )
        .context("cannot move the target's sequences past the copied ids")?;
    let vectors = view_vectors::fill_missing(&mut client).context("cannot fill view vectors")?;
    if vectors > 0 {
        progress(format!("view vectors: {vectors} files"));
    }
    let terms = text_terms::fill_missing(&mut client).context("cannot index the free text")?;
    if terms > 0 {
        progress(format!("free-text terms: {terms} files"));
    }
    match files_target {
        StoredFilesTarget::Folder(target) => copy_stored_files(from, target, progress)?,
        StoredFilesTarget::Bucket(location) => {
            copy_stored_files_to_bucket(from, location, progress)?
        }
    }
    let counts = count_both(&source, &mut client)?;
    source
        .execute_batch("COMMIT")
        .context("cannot end the read of the source database")?;
    Ok(counts)
}

/// Opens the source database read-only; refuses one whose schema is not this program's.
fn open_source(from: &Path) -> anyhow::Result<rusqlite::Connection> {
    let path = from.join(DATABASE_FILE);
    anyhow::ensure!(
        path.is_file(),
        "{} holds no partlens database ({DATABASE_FILE})",
        from.display()
    );
    let source = rusqlite::Connection::open_with_flags(
        &path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("cannot open {} read-only", path.display()))?;
    source
        .busy_timeout(std::time::Duration::from_secs(10))
        .context("cannot set the source's busy timeout")?;
    let version = sqlite_schema::version(&source).context("cannot read the source's schema")?;
    let current = sqlite_schema::current_version();
    anyhow::ensure!(
        version == current,
        "the source's schema is version {version}, this program's {current}: start this \
         partlens-service once on {} (without --database), stop it, then migrate",
        from.display()
    );
    Ok(source)
}

/// Reads one column of text values.
fn source_strings(source: &rusqlite::Connection, sql: &str) -> anyhow::Result<Vec<String>> {
    let mut statement = source.prepare(sql)?;
    let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Refuses a target holding another team's rows that the copy would collide with.
fn refuse_collisions(source: &rusqlite::Connection, client: &mut Client) -> anyhow::Result<()> {
    let mut clashes = Vec::new();
    let mut statement = source.prepare("SELECT id, name FROM companies")?;
    let companies: Vec<(String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, name) in &companies {
        for row in client.query(
            "SELECT id, name FROM companies WHERE lower(name) = lower($2::text) OR id = $1",
            &[id, name],
        )? {
            let (other_id, other_name): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            if &other_id != id || !other_name.eq_ignore_ascii_case(name) {
                clashes.push(format!(
                    "company {name} ({id}) meets company {other_name} ({other_id})"
                ));
            }
        }
    }
    let mut statement = source.prepare("SELECT id, company_id, name FROM users")?;
    let users: Vec<(i64, String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (id, company, name) in &users {
        for row in client.query(
            "SELECT id, company_id, name FROM users WHERE lower(name) = lower($2::text) OR id = $1",
            &[id, name],
        )? {
            let (other_id, other_company, other_name): (i64, String, String) =
                (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
            if other_id != *id
                || &other_company != company
                || !other_name.eq_ignore_ascii_case(name)
            {
                clashes.push(format!(
                    "user {name} (id {id}) meets user {other_name} (id {other_id}) of company \
                     {other_company}"
                ));
            }
        }
    }
    let mut statement =
        source.prepare("SELECT id, company_id, name_key, unit_key FROM attribute_names")?;
    let names: Vec<(i64, String, String, String)> = statement
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    for (id, company, name_key, unit_key) in &names {
        for row in client.query(
            "SELECT id FROM attribute_names WHERE id = $1 AND NOT (company_id = $2 \
             AND name_key = $3 AND unit_key = $4) OR id <> $1 AND company_id = $2 \
             AND name_key = $3 AND unit_key = $4",
            &[id, company, name_key, unit_key],
        )? {
            let other: i64 = row.try_get(0)?;
            clashes.push(format!(
                "attribute {name_key} (id {id}) meets attribute id {other}"
            ));
        }
    }
    let mut statement = source.prepare("SELECT uid, company_id FROM files")?;
    let files: Vec<(String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for chunk in files.chunks(BATCH_ROWS) {
        let uids: Vec<&str> = chunk.iter().map(|(uid, _)| uid.as_str()).collect();
        let owners: BTreeMap<&str, &str> = chunk
            .iter()
            .map(|(uid, company)| (uid.as_str(), company.as_str()))
            .collect();
        for row in client.query(
            "SELECT uid, company_id FROM files WHERE uid = ANY($1)",
            &[&uids],
        )? {
            let (uid, company): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            if owners.get(uid.as_str()) != Some(&company.as_str()) {
                clashes.push(format!("file {uid} belongs to company {company} there"));
            }
        }
    }
    if !clashes.is_empty() {
        clashes.truncate(10);
        bail!(
            "the target database holds another team's data that this copy would collide with, \
             so nothing was copied: {}",
            clashes.join("; ")
        );
    }
    Ok(())
}

/// Copies one table in batches, one transaction each.
fn copy_table(
    source: &rusqlite::Connection,
    client: &mut Client,
    table: &Table,
    progress: &mut dyn FnMut(String),
) -> anyhow::Result<()> {
    let total: i64 =
        source.query_row(&format!("SELECT count(*) FROM {}", table.name), [], |row| {
            row.get(0)
        })?;
    let mut statement = source.prepare(table.select)?;
    let names: Vec<String> = statement.column_names().map(str::to_owned).collect();
    let mut rows = statement.query([])?;
    let mut batch: Vec<Vec<Cell>> = Vec::with_capacity(BATCH_ROWS);
    let (mut read, mut written) = (0_i64, 0_u64);
    loop {
        let row = rows.next()?;
        if let Some(row) = row {
            let mut cells = Vec::with_capacity(table.kinds.len());
            for (index, kind) in table.kinds.iter().enumerate() {
                let column = names.get(index).map_or("?", String::as_str);
                cells.push(Cell::read(row.get_ref(index)?, *kind, column)?);
            }
            batch.push(cells);
            read += 1;
        }
        if batch.len() == BATCH_ROWS || (row.is_none() && !batch.is_empty()) {
            let mut transaction = client.transaction()?;
            let insert = transaction.prepare(table.insert)?;
            for cells in &batch {
                let params: Vec<&(dyn ToSql + Sync)> = cells.iter().map(Cell::as_sql).collect();
                written += transaction.execute(&insert, &params)?;
            }
            transaction.commit()?;
            batch.clear();
            if total > BATCH_ROWS as i64 {
                progress(format!("{}: {read} of {total} read", table.name));
            }
        }
        if row.is_none() {
            break;
        }
    }
    progress(format!(
        "{}: {written} of {total} written (the rest were there)",
        table.name
    ));
    Ok(())
}

/// Copies attribute values, which have no key: a file's values are written together, in the
/// transaction of their batch, only when the target holds none of that file's values.
fn copy_attribute_values(
    source: &rusqlite::Connection,
    client: &mut Client,
    progress: &mut dyn FnMut(String),
) -> anyhow::Result<()> {
    let uids = source_strings(
        source,
        "SELECT DISTINCT file_uid FROM attribute_values ORDER BY file_uid",
    )?;
    let mut statement = source.prepare(
        "SELECT attribute_id, value, value_key FROM attribute_values WHERE file_uid = ?1 \
         ORDER BY rowid",
    )?;
    let mut written = 0_u64;
    for (done, chunk) in uids.chunks(BATCH_ROWS / 10).enumerate() {
        let mut transaction = client.transaction()?;
        for uid in chunk {
            let present: i64 = transaction
                .query_one(
                    "SELECT count(*) FROM attribute_values WHERE file_uid = $1",
                    &[uid],
                )?
                .try_get(0)?;
            if present > 0 {
                continue;
            }
            let values: Vec<(i64, String, String)> = statement
                .query_map([uid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<Result<_, _>>()?;
            for (attribute, value, key) in &values {
                written += transaction.execute(
                    "INSERT INTO attribute_values (file_uid, attribute_id, value, value_key) \
                     VALUES ($1, $2, $3, $4)",
                    &[uid, attribute, value, key],
                )?;
            }
        }
        transaction.commit()?;
        if uids.len() > BATCH_ROWS / 10 {
            progress(format!(
                "attribute_values: {} of {} files",
                ((done + 1) * (BATCH_ROWS / 10)).min(uids.len()),
                uids.len()
            ));
        }
    }
    progress(format!(
        "attribute_values: {written} written (files that had theirs were left)"
    ));
    Ok(())
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

/// Counts each table on both sides (the target for the source's companies and keys).
fn count_both(
    source: &rusqlite::Connection,
    client: &mut Client,
) -> anyhow::Result<Vec<TableCount>> {
    let companies = source_strings(source, "SELECT id FROM companies")?;
    let mut keys = source_strings(source, "SELECT id FROM clients")?;
    keys.extend(source_strings(source, "SELECT name FROM settings")?);
    let mut counts = Vec::with_capacity(COUNTS.len());
    for (table, source_sql, target_sql) in COUNTS {
        let source_count: i64 = source.query_row(source_sql, [], |row| row.get(0))?;
        // Global tables are counted by the source's keys, the others by its companies.
        let bound = if target_sql.contains("$2") {
            &keys
        } else {
            &companies
        };
        let target_count: i64 = client
            .query_one(&target_sql.replace("$2", "$1") as &str, &[bound])
            .with_context(|| format!("cannot count {table} in the target"))?
            .try_get(0)?;
        counts.push(TableCount {
            table,
            source: source_count,
            target: target_count,
        });
    }
    Ok(counts)
}
