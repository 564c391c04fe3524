//! `text_scale -- postgres`: free text and attribute filters through PostgreSQL (issue 26) beside
//! SQLite, on the same records. The SQLite library the bench writes (`large_library`: stored
//! path, display name, six attributes and a text of 12 words from a 4,000-word vocabulary each) is
//! copied record by record into a PostgreSQL database through the store's own writes (the record,
//! its indexing outcome with the text, its attributes: the term index and the attribute values
//! kept in step as the service keeps them), then every query kind runs on both stores in the same
//! run, checking they find the same files. A second table times what a search without inputs
//! reads, the first 200 files and the count (`first_matching_database_files`), checked against
//! the whole list.
//!
//! Needs a PostgreSQL server (`partlens_testkit::postgres`: `PARTLENS_PG_BIN`, or the `pgserver`
//! Python package that `.ci/install.sh` installs); says so and measures nothing without.
//!
//! ```text
//! cargo bench -p partlens-service --bench text_scale -- postgres                  # 100,000 records
//! cargo bench -p partlens-service --bench text_scale -- postgres records=10000
//! cargo bench -p partlens-service --bench text_scale -- postgres keep=/tmp/text postgres_url=URL
//!                                  # a database of a server of your own, kept: the records are
//!                                  # copied on the first run only (with keep=, SQLite's too)
//! ```

use std::time::{Duration, Instant};

use partlens_api::FilterTerm;
use partlens_api::attribute::Attribute;
use partlens_service::error::ServiceError;
use partlens_store::Store;
use partlens_store::model::{IndexState, IndexedContent, NewContent};

use super::support::{millis, percentile};
use super::{QUERIES, query_kinds};

/// Records copied in one transaction.
const BATCH_RECORDS: usize = 500;

/// One record as SQLite holds it.
struct Copied {
    uid: String,
    stored_path: String,
    display_name: String,
    extension: String,
    size: i64,
    text: String,
    attributes: Vec<Attribute>,
}

/// The terms of query `number` of a kind.
type QueryTerms = Box<dyn Fn(usize) -> Vec<FilterTerm>>;

/// A kind of query: its label and its terms.
type LabelledKind = (&'static str, QueryTerms);

/// Attribute filters measured beside free text: label and the terms of query `number`.
fn attribute_kinds() -> Vec<LabelledKind> {
    vec![
        (
            "exact supplier `[v]` (1 in 50)",
            Box::new(|number| {
                vec![FilterTerm::Exact {
                    name: "supplier".into(),
                    value: partlens_service::large_library::supplier(number % 50),
                }]
            }),
        ),
        (
            "prefix material `v*`",
            Box::new(|number| {
                let materials = partlens_service::large_library::MATERIALS;
                vec![FilterTerm::Prefix {
                    name: "material".into(),
                    prefix: materials[number % materials.len()].0[..3].to_owned(),
                }]
            }),
        ),
        (
            "regular project (1 in 100)",
            Box::new(|number| {
                vec![FilterTerm::Regular {
                    name: "project".into(),
                    value: format!("P-{:04}", number % 100),
                }]
            }),
        ),
        (
            "a word and an exact supplier",
            Box::new(|number| {
                vec![
                    FilterTerm::Text(partlens_service::large_library::vocabulary_word(
                        number * 61 % partlens_service::large_library::VOCABULARY,
                    )),
                    FilterTerm::Exact {
                        name: "supplier".into(),
                        value: partlens_service::large_library::supplier(number % 50),
                    },
                ]
            }),
        ),
    ]
}

/// Reads every record of `company` from the SQLite store.
fn read_records(store: &Store, company: &str) -> Vec<Copied> {
    let read = store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
        let uids: Vec<String> = tx
            .matching_database_files(company, &[])?
            .into_iter()
            .map(|candidate| candidate.uid)
            .collect();
        let mut records = Vec::with_capacity(uids.len());
        for record in tx.find_files(company, &uids)? {
            let mut attributes = Vec::new();
            for text in tx.attribute_texts_of(&record.uid)? {
                match Attribute::parse(&text) {
                    Ok(attribute) => attributes.push(attribute),
                    Err(error) => panic!("attribute {text}: {error}"),
                }
            }
            records.push(Copied {
                uid: record.uid,
                stored_path: record.stored_path,
                display_name: record.display_name,
                extension: record.extension,
                size: record.size as i64,
                text: record.text,
                attributes,
            });
        }
        Ok(records)
    });
    match read {
        Ok(records) => records,
        Err(error) => panic!("the SQLite records do not read: {error}"),
    }
}

/// Copies the records into a PostgreSQL store through its writes; returns the company there and how
/// long it took (`None`: a kept database held them already).
fn copy(
    postgres: &Store,
    sql: &mut postgres::Client,
    records: &[Copied],
) -> (String, Option<Duration>) {
    let company = match postgres.write_tx_blocking(|tx| tx.ensure_company("Big")) {
        Ok(company) => company,
        Err(error) => panic!("no company: {error}"),
    };
    let held = sql
        .query_one(
            "SELECT count(*) FROM files WHERE company_id = $1",
            &[&company],
        )
        .and_then(|row| row.try_get::<_, i64>(0));
    match held {
        Ok(held) if held as usize == records.len() => return (company, None),
        Ok(0) => {}
        Ok(held) => panic!(
            "the kept database holds {held} records, not {}: drop it or name another",
            records.len()
        ),
        Err(error) => panic!("the kept database does not answer: {error}"),
    }
    let started = Instant::now();
    for (batch_number, batch) in records.chunks(BATCH_RECORDS).enumerate() {
        let written = postgres.write_tx_blocking(|tx| -> Result<(), partlens_store::StoreError> {
            let now = partlens_store::iso_now();
            for record in batch {
                let content = NewContent {
                    uid: record.uid.clone(),
                    company_id: company.clone(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: record.stored_path.clone(),
                    display_name: record.display_name.clone(),
                    extension: record.extension.clone(),
                    size: record.size.max(0) as u64,
                    state: IndexState::InProgress,
                    callback_param: None,
                    text_only: false,
                };
                let revision = tx.upsert_file(&content, &now)?;
                let indexed = IndexedContent {
                    views: Vec::new(),
                    text: record.text.clone(),
                    extracted_attributes: Vec::new(),
                    pmi_json: "[]".into(),
                    has_thumbnail: false,
                    has_large_image: false,
                    pages_json: String::new(),
                };
                tx.save_indexing(&record.uid, revision, Some(&indexed), &now)?;
                tx.replace_attributes(&company, &record.uid, &record.attributes)?;
            }
            Ok(())
        });
        if let Err(error) = written {
            panic!("the records do not copy: {error}");
        }
        if (batch_number + 1) * BATCH_RECORDS % 10_000 < BATCH_RECORDS {
            eprintln!(
                "{} / {} records copied into PostgreSQL",
                (batch_number + 1) * BATCH_RECORDS,
                records.len()
            );
        }
    }
    (company, Some(started.elapsed()))
}

/// Times one query on a store: the files found (UIDs, in order) and the time.
fn timed(store: &Store, company: &str, terms: &[FilterTerm]) -> (Vec<String>, Duration) {
    let started = Instant::now();
    match store.read_tx_blocking(|tx| tx.matching_database_files(company, terms)) {
        Ok(found) => (
            found.into_iter().map(|candidate| candidate.uid).collect(),
            started.elapsed(),
        ),
        Err(error) => panic!("a search fails: {error}"),
    }
}

/// The files a search without inputs shows of a filter: the first [`PAGE`] (`maxResults`'
/// default) and the count of all.
const PAGE: usize = 200;

/// Times one search's page on a store: the first [`PAGE`] files (UIDs, in order), how many match,
/// and the time.
fn timed_page(
    store: &Store,
    company: &str,
    terms: &[FilterTerm],
) -> ((Vec<String>, usize), Duration) {
    let started = Instant::now();
    match store.read_tx_blocking(|tx| tx.first_matching_database_files(company, terms, PAGE)) {
        Ok((first, total)) => (
            (
                first.into_iter().map(|candidate| candidate.uid).collect(),
                total,
            ),
            started.elapsed(),
        ),
        Err(error) => panic!("a search fails: {error}"),
    }
}

/// The rows of both tables (every file a filter selects; a search's page of them) and a row
/// saying how long the copy took.
pub struct Measured {
    /// Every file a filter selects, read and sorted (`matching_database_files`).
    pub every_file: Vec<String>,
    /// The first [`PAGE`] and the count (`first_matching_database_files`, what a search reads).
    pub page: Vec<String>,
    /// How long the copy took.
    pub copy: String,
}

/// The table rows for the SQLite library of `records` records in `sqlite` (company
/// `sqlite_company`) ([`Measured`]); nothing without a server.
/// `kept_url`: a database to copy into once and keep (`postgres_url=`), instead of a fresh one of
/// the test server.
pub fn measure(
    sqlite: &Store,
    sqlite_company: &str,
    records: usize,
    kept_url: Option<&str>,
) -> Option<Measured> {
    let (postgres, database, url, _folder) = match kept_url {
        Some(url) => {
            let (store, folder) = super::postgres_store::open_kept(url);
            (store, None, url.to_owned(), folder)
        }
        None => {
            let (store, database, folder) = super::postgres_store::open()?;
            let url = database.url.clone();
            (store, Some(database), url, folder)
        }
    };
    let mut sql = match postgres::Client::connect(&url, postgres::NoTls) {
        Ok(client) => client,
        Err(error) => panic!("no connection to {url}: {error}"),
    };
    let copied = read_records(sqlite, sqlite_company);
    let (company, copying) = copy(&postgres, &mut sql, &copied);
    // A library in steady use has its statistics (autovacuum): without them, right after the
    // copy, the planner guesses and a word took 150-200 ms at 3,000 records instead of 1 ms.
    if copying.is_some()
        && let Err(error) = sql.batch_execute("VACUUM ANALYZE")
    {
        panic!("VACUUM ANALYZE fails: {error}");
    }
    let mut kinds: Vec<LabelledKind> = query_kinds()
        .into_iter()
        .map(|kind| {
            let terms = kind.terms;
            let terms: QueryTerms = Box::new(move |number| terms(number, records));
            (kind.label, terms)
        })
        .collect();
    kinds.extend(attribute_kinds());
    let (mut lines, mut page_lines) = (Vec::new(), Vec::new());
    for (label, terms) in kinds {
        let (mut sqlite_times, mut postgres_times) = (Vec::new(), Vec::new());
        let (mut sqlite_page_times, mut postgres_page_times) = (Vec::new(), Vec::new());
        let (mut same, mut same_page, mut found) = (true, true, 0);
        for number in 0..QUERIES {
            let terms = terms(number);
            let (on_sqlite, sqlite_time) = timed(sqlite, sqlite_company, &terms);
            let (on_postgres, postgres_time) = timed(&postgres, &company, &terms);
            let (sqlite_page, sqlite_page_time) = timed_page(sqlite, sqlite_company, &terms);
            let (postgres_page, postgres_page_time) = timed_page(&postgres, &company, &terms);
            same &= on_sqlite == on_postgres;
            let expected_page = on_postgres.iter().take(PAGE).cloned().collect::<Vec<_>>();
            same_page &= sqlite_page == (expected_page.clone(), on_postgres.len())
                && postgres_page == (expected_page, on_postgres.len());
            found += on_postgres.len();
            sqlite_times.push(sqlite_time);
            postgres_times.push(postgres_time);
            sqlite_page_times.push(sqlite_page_time);
            postgres_page_times.push(postgres_page_time);
        }
        page_lines.push(format!(
            "| {records} | {label} | {} | {} ms | {} ms | {} ms | {} ms | {} |",
            found / QUERIES,
            millis(percentile(&mut sqlite_page_times, 0.5)),
            millis(percentile(&mut sqlite_page_times, 0.95)),
            millis(percentile(&mut postgres_page_times, 0.5)),
            millis(percentile(&mut postgres_page_times, 0.95)),
            if same_page { "yes" } else { "NO" }
        ));
        eprintln!("{}", page_lines.last().map_or("", String::as_str));
        let sqlite_p50 = percentile(&mut sqlite_times, 0.5);
        let postgres_p50 = percentile(&mut postgres_times, 0.5);
        lines.push(format!(
            "| {records} | {label} | {} | {} ms | {} ms | {} ms | {} ms | {:.1}× | {} |",
            found / QUERIES,
            millis(sqlite_p50),
            millis(percentile(&mut sqlite_times, 0.95)),
            millis(postgres_p50),
            millis(percentile(&mut postgres_times, 0.95)),
            postgres_p50.as_secs_f64() / sqlite_p50.as_secs_f64().max(1e-9),
            if same { "yes" } else { "NO" }
        ));
        eprintln!("{}", lines.last().map_or("", String::as_str));
    }
    let copy_line = match copying {
        Some(copying) => format!(
            "| {records} | {:.1} s ({} ms a record: record, text, attributes, term index) |",
            copying.as_secs_f64(),
            millis(copying / records.max(1) as u32),
        ),
        None => format!("| {records} | (kept) |"),
    };
    drop(database);
    Some(Measured {
        every_file: lines,
        page: page_lines,
        copy: copy_line,
    })
}
