//! A bulk load's records on PostgreSQL, written set-based ([`write`], behind
//! `StoreTx::write_loaded_files`): a batch of new files in under twenty round trips whatever its
//! size (records, saved attributes, attribute values, views, terms and postings, the visual
//! journal, the metadata generation), where the per-file path (`files.rs`, `attributes.rs`,
//! `text_terms.rs`) takes some 25 statements a file and the schema's row triggers several more
//! a row (7.6–11 ms a file at 100,000 views).
//!
//! **The result is the per-file path's.** For the statements of the batch, the row triggers the
//! load does the work of are disabled in its transaction (`ALTER TABLE … DISABLE TRIGGER`, undone
//! before it commits, and by a rollback), and their work is done for the whole batch:
//!
//! - `values_shown`, `postings_shown`: a new value's and posting's `shown_company` is written
//!   with the row (the file's company: a loaded database file is indexed, so shown);
//! - `visual_file_added`, `visual_view_changed`: one journal row a file (the per-file path writes
//!   one for the file and one a view; a reader takes each file once);
//! - `metadata_file_added_or_removed`, `metadata_view_changed`, `metadata_value_changed`: the
//!   metadata generation moves once for the batch (it only has to move);
//! - the statement triggers (the shown term and value counts, `several_values`) stay on: they
//!   are set-based already.
//!
//! A file whose UID is in the database already, or earlier in the batch, goes through the
//! per-file path after the new ones (an overwrite bumps the revision and clears what it must);
//! extracted attribute names and, outside a bulk load, view vectors are written file by file by
//! the per-file steps (a few statements, only for files that have them).
//!
//! Limits: at most [`MOST_FILES`] files a call; the batch is held in memory as the caller gives
//! it plus one copy of its texts and the search texts (about 1 MB a thousand files without
//! views' bytes, which are passed by reference). The disabled triggers need the role that owns
//! the tables (the one whose store made the schema) and hold a `SHARE ROW EXCLUSIVE` lock on
//! them until the batch commits: other writers wait (they would anyway, behind the writers'
//! lock), readers do not.

use std::collections::{BTreeSet, HashMap, HashSet};

use r2d2_postgres::postgres;

use super::PgTx;
use super::text_terms;
use crate::error::StoreError;
use crate::model::attributes::name_and_unit_keys;
use crate::model::files::{attributes_from_json, attributes_json, pages_json};
use crate::model::search_text::{SearchedFields, terms_of};
use crate::model::{LoadedFile, one_per_name, value_key};
use crate::traits::{AttributeNamesSteps, write_loaded_file};
use partlens_api::Attribute;

/// Files one call writes at most (a bulk load writes a batch a transaction: 1,000 is plenty; the
/// arrays of a batch of 10,000 seven-view models are about 20 MB with their views).
pub(crate) const MOST_FILES: usize = 10_000;

/// The row triggers whose work the batch does itself, `(table, trigger)` (schema steps 4, 5, 9).
const BATCH_DOES: [(&str, &str); 7] = [
    ("files", "metadata_file_added_or_removed"),
    ("files", "visual_file_added"),
    ("views", "metadata_view_changed"),
    ("views", "visual_view_changed"),
    ("attribute_values", "values_shown"),
    ("attribute_values", "metadata_value_changed"),
    ("search_postings", "postings_shown"),
];

/// Attribute name ids by `(company, (name key, unit key))`.
type NameIds = HashMap<(String, (String, String)), i64>;

/// A new file of the batch with what is worked out for it before it is written.
struct Prepared<'f> {
    file: &'f LoadedFile,
    /// Its saved attributes, one a name and unit.
    saved: Vec<Attribute>,
    /// Its search text, as `refresh_search_text` makes it.
    search_text: String,
    /// The company a search shows it in (a database file), `None` for a search input.
    shown: Option<String>,
}

impl<'f> Prepared<'f> {
    /// Works out what is written for `file`.
    fn new(file: &'f LoadedFile) -> Self {
        let saved = one_per_name(file.attributes.iter().cloned());
        let saved_texts: Vec<String> = saved.iter().map(Attribute::to_string).collect();
        // As stored and read back (`rows::search_text`): the JSON form of the extracted ones.
        let extracted = attributes_from_json(&attributes_json(&file.indexed.extracted_attributes));
        let content = &file.content;
        let search_text = SearchedFields {
            stored_path: &content.stored_path,
            display_name: &content.display_name,
            saved_attributes: &saved_texts,
            extracted_attributes: &extracted,
            text: &file.indexed.text,
        }
        .search_text();
        Self {
            file,
            saved,
            search_text,
            shown: (!content.is_search_input).then(|| content.company_id.clone()),
        }
    }

    fn uid(&self) -> &str {
        &self.file.content.uid
    }
}

/// Writes `files` stamped `now` (see the module doc): the new ones set-based, then the others
/// file by file, in the order given.
pub(super) fn write(
    tx: &mut PgTx<'_, '_>,
    files: &[LoadedFile],
    now: &str,
) -> Result<(), StoreError> {
    if files.len() > MOST_FILES {
        return Err(StoreError::Refused(format!(
            "a bulk write takes at most {MOST_FILES} files a call and was given {}: write them \
             in smaller batches",
            files.len()
        )));
    }
    let uids: Vec<&str> = files.iter().map(|file| file.content.uid.as_str()).collect();
    let present: HashSet<String> = tx
        .tx
        .query("SELECT uid FROM files WHERE uid = ANY($1)", &[&uids])?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    let mut taken = HashSet::new();
    let (fresh, again): (Vec<&LoadedFile>, Vec<&LoadedFile>) = files.iter().partition(|file| {
        !present.contains(&file.content.uid) && taken.insert(file.content.uid.as_str())
    });
    if !fresh.is_empty() {
        let prepared: Vec<Prepared<'_>> = fresh.into_iter().map(Prepared::new).collect();
        write_fresh(tx, &prepared, now)?;
    }
    for file in again {
        write_loaded_file(tx, file, now)?;
    }
    Ok(())
}

/// Writes files none of which is stored yet.
fn write_fresh(tx: &mut PgTx<'_, '_>, files: &[Prepared<'_>], now: &str) -> Result<(), StoreError> {
    let names = names_of(tx, files)?;
    set_triggers(tx.tx, "DISABLE")?;
    insert_records(tx.tx, files, now)?;
    insert_attributes(tx.tx, files, &names)?;
    insert_views(tx.tx, files)?;
    insert_postings(tx.tx, files)?;
    let (uids, companies): (Vec<&str>, Vec<&str>) = files
        .iter()
        .map(|file| (file.uid(), file.file.content.company_id.as_str()))
        .unzip();
    tx.tx.execute(
        "INSERT INTO visual_changes (file_uid, company_id)
         SELECT * FROM unnest($1::text[], $2::text[])",
        &[&uids, &companies],
    )?;
    tx.tx.execute(
        "UPDATE metadata_generation SET value = value + 1 WHERE id = 1",
        &[],
    )?;
    set_triggers(tx.tx, "ENABLE")?;
    for file in files {
        tx.write_view_vectors(file.uid())?;
        tx.write_extracted_names(file.uid(), &file.file.indexed.extracted_attributes, now)?;
    }
    Ok(())
}

/// Disables or enables (`verb`) the triggers of [`BATCH_DOES`] for this transaction.
fn set_triggers(tx: &mut postgres::Transaction<'_>, verb: &str) -> Result<(), StoreError> {
    let statements: String = BATCH_DOES
        .iter()
        .map(|(table, trigger)| format!("ALTER TABLE {table} {verb} TRIGGER {trigger};\n"))
        .collect();
    tx.batch_execute(&statements)?;
    Ok(())
}

/// The ids of the saved attributes' names by `(company, name key, unit key)`, created on first
/// use (custom, stamped now), as for an upload: one `ensure_names` a company of the batch.
fn names_of(tx: &mut PgTx<'_, '_>, files: &[Prepared<'_>]) -> Result<NameIds, StoreError> {
    let mut by_company: HashMap<&str, Vec<Attribute>> = HashMap::new();
    let mut seen = HashSet::new();
    for file in files {
        let company = file.file.content.company_id.as_str();
        for attribute in &file.saved {
            if seen.insert((company, name_and_unit_keys(attribute))) {
                by_company
                    .entry(company)
                    .or_default()
                    .push(attribute.clone());
            }
        }
    }
    let mut names = HashMap::new();
    for (company, list) in by_company {
        for (keys, id) in tx.ensure_names(company, &list)? {
            names.insert((company.to_owned(), keys), id);
        }
    }
    Ok(names)
}

/// The files' records, in the state indexing leaves them (`completed`, revision 1), in the
/// order given (their `row_order`).
fn insert_records(
    tx: &mut postgres::Transaction<'_>,
    files: &[Prepared<'_>],
    now: &str,
) -> Result<(), StoreError> {
    fn content<'a>(file: &'a Prepared<'_>) -> &'a crate::model::NewContent {
        &file.file.content
    }
    fn indexed<'a>(file: &'a Prepared<'_>) -> &'a crate::model::IndexedContent {
        &file.file.indexed
    }
    let texts = |pick: &dyn Fn(&Prepared<'_>) -> String| -> Vec<String> {
        files.iter().map(pick).collect()
    };
    let uids = texts(&|file| content(file).uid.clone());
    let companies = texts(&|file| content(file).company_id.clone());
    let paths = texts(&|file| content(file).stored_path.clone());
    let names = texts(&|file| content(file).display_name.clone());
    let extensions = texts(&|file| content(file).extension.clone());
    let extracted = texts(&|file| attributes_json(&indexed(file).extracted_attributes));
    let pmi = texts(&|file| indexed(file).pmi_json.clone());
    let pages = texts(&|file| pages_json(indexed(file)).to_owned());
    let search_texts = texts(&|file| file.search_text.clone());
    let extracted_text: Vec<&str> = files
        .iter()
        .map(|file| indexed(file).text.as_str())
        .collect();
    let path_keys: Vec<Option<String>> =
        files.iter().map(|file| content(file).path_key()).collect();
    let callbacks: Vec<Option<&str>> = files
        .iter()
        .map(|file| content(file).callback_param.as_deref())
        .collect();
    let owners: Vec<i64> = files
        .iter()
        .map(|file| content(file).owner_user_id)
        .collect();
    let sizes: Vec<i64> = files
        .iter()
        .map(|file| i64::try_from(content(file).size).unwrap_or(i64::MAX))
        .collect();
    let flags =
        |pick: &dyn Fn(&Prepared<'_>) -> bool| -> Vec<bool> { files.iter().map(pick).collect() };
    let inputs = flags(&|file| content(file).is_search_input);
    let thumbnails = flags(&|file| indexed(file).has_thumbnail);
    let large_images = flags(&|file| indexed(file).has_large_image);
    let text_only = flags(&|file| content(file).text_only);
    tx.execute(
        "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path,
            path_key, display_name, extension, size, state, revision, uploaded_at, indexed_at,
            text, extracted_attributes, pmi, pages, has_thumbnail, has_large_image, search_text,
            callback_param, text_only)
         SELECT u, c, o, si, sp, pk, dn, e, s, 'completed', 1, $19, $19, t, x, pm, pg, th, li,
            st, cb, tonly
         FROM unnest($1::text[], $2::text[], $3::int8[], $4::bool[], $5::text[], $6::text[],
                     $7::text[], $8::text[], $9::int8[], $10::text[], $11::text[], $12::text[],
                     $13::text[], $14::bool[], $15::bool[], $16::text[], $17::text[], $18::bool[])
             WITH ORDINALITY
             AS given(u, c, o, si, sp, pk, dn, e, s, t, x, pm, pg, th, li, st, cb, tonly, n)
         ORDER BY n",
        &[
            &uids,
            &companies,
            &owners,
            &inputs,
            &paths,
            &path_keys,
            &names,
            &extensions,
            &sizes,
            &extracted_text,
            &extracted,
            &pmi,
            &pages,
            &thumbnails,
            &large_images,
            &search_texts,
            &callbacks,
            &text_only,
            &now,
        ],
    )?;
    Ok(())
}

/// The files' saved attributes (`file_attributes`, in order) and their values
/// (`attribute_values`, with the company that shows them).
fn insert_attributes(
    tx: &mut postgres::Transaction<'_>,
    files: &[Prepared<'_>],
    names: &NameIds,
) -> Result<(), StoreError> {
    let (mut uids, mut positions, mut ids, mut texts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut value_uids, mut value_ids, mut values, mut value_keys, mut shown) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for file in files {
        let company = file.file.content.company_id.clone();
        for (position, attribute) in file.saved.iter().enumerate() {
            let Some(&id) = names.get(&(company.clone(), name_and_unit_keys(attribute))) else {
                return Err(StoreError::Internal(format!(
                    "the attribute name {} was not saved",
                    attribute.name
                )));
            };
            uids.push(file.uid());
            positions.push(i32::try_from(position).unwrap_or(i32::MAX));
            ids.push(id);
            texts.push(attribute.to_string());
            for value in &attribute.values {
                value_uids.push(file.uid());
                value_ids.push(id);
                values.push(value.as_str());
                value_keys.push(value_key(value));
                shown.push(file.shown.as_deref());
            }
        }
    }
    if !uids.is_empty() {
        tx.execute(
            "INSERT INTO file_attributes (file_uid, position, attribute_id, text)
             SELECT * FROM unnest($1::text[], $2::int4[], $3::int8[], $4::text[])",
            &[&uids, &positions, &ids, &texts],
        )?;
    }
    if !value_uids.is_empty() {
        tx.execute(
            "INSERT INTO attribute_values (file_uid, attribute_id, value, value_key, shown_company)
             SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::text[])",
            &[&value_uids, &value_ids, &values, &value_keys, &shown],
        )?;
    }
    Ok(())
}

/// The files' stored views, numbered from 0 in their order.
fn insert_views(
    tx: &mut postgres::Transaction<'_>,
    files: &[Prepared<'_>],
) -> Result<(), StoreError> {
    let (mut uids, mut positions, mut descriptors) = (Vec::new(), Vec::new(), Vec::new());
    for file in files {
        for (position, view) in file.file.indexed.views.iter().enumerate() {
            uids.push(file.uid());
            positions.push(
                i32::try_from(position).map_err(|_| {
                    StoreError::Internal("more views than a file can number".into())
                })?,
            );
            descriptors.push(view.as_slice());
        }
    }
    if !uids.is_empty() {
        tx.execute(
            "INSERT INTO views (file_uid, position, descriptor)
             SELECT * FROM unnest($1::text[], $2::int4[], $3::bytea[])",
            &[&uids, &positions, &descriptors],
        )?;
    }
    Ok(())
}

/// The terms of the files' search texts (new ones added with their trigrams) and a posting a
/// distinct term a file, with the company that shows it.
fn insert_postings(
    tx: &mut postgres::Transaction<'_>,
    files: &[Prepared<'_>],
) -> Result<(), StoreError> {
    let each: Vec<BTreeSet<&str>> = files
        .iter()
        .map(|file| terms_of(&file.search_text))
        .collect();
    let all: BTreeSet<&str> = each.iter().flatten().copied().collect();
    if all.is_empty() {
        return Ok(());
    }
    let terms: Vec<&str> = all.into_iter().collect();
    let ids = text_terms::term_ids(tx, &terms)?;
    let (mut term_ids, mut uids, mut shown) = (Vec::new(), Vec::new(), Vec::new());
    for (file, terms) in files.iter().zip(&each) {
        for term in terms {
            let Some(&id) = ids.get(*term) else {
                return Err(StoreError::Internal(format!(
                    "the term {term} was not saved"
                )));
            };
            term_ids.push(id);
            uids.push(file.uid());
            shown.push(file.shown.as_deref());
        }
    }
    tx.execute(
        "INSERT INTO search_postings (term_id, file_uid, shown_company)
         SELECT * FROM unnest($1::int8[], $2::text[], $3::text[])",
        &[&term_ids, &uids, &shown],
    )?;
    Ok(())
}
