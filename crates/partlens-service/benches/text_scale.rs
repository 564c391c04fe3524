//! Free-text search at scale: text-only records written into a real store by
//! `partlens_service::large_library` (stored path, display name, six attributes and a text of 12
//! words from a 4,000-word vocabulary each), searched through the store's
//! `SearchTx::matching_database_files` (the term index) against
//! `matching_database_files_by_scanning` (`instr` over every record's search text, what free text
//! was before the text index) in the same run, on the same store, checking both find the same
//! files.
//!
//! ```text
//! cargo bench -p partlens-service --bench text_scale                     # 10,000 and 100,000 records
//! cargo bench -p partlens-service --bench text_scale -- 1m               # also 1,000,000 records (~1 GB of disk)
//! cargo bench -p partlens-service --bench text_scale -- records=50000    # chosen sizes
//! cargo bench -p partlens-service --bench text_scale -- postgres         # 100,000 records through PostgreSQL
//!                                                     # beside SQLite (support/text_postgres.rs)
//! cargo bench -p partlens-service --bench text_scale -- records=1000000 keep=/tmp/text1m  # write the library there once,
//!                                                     # search it again on later runs
//! ```
//!
//! After [`WARM_UP_QUERIES`] untimed searches for other words, kinds of query, each [`QUERIES`]
//! times with other words: a vocabulary word (about 0.3 % of the
//! records hold one), two vocabulary words together, a part number (one record), part of a part
//! number (`0012`: a few hundred records), and a broad word (`supplier`, every record). The scan
//! baseline runs on the first [`SCANNED_QUERIES`] queries of each kind (it reads every record).
//! Prints markdown tables for docs/PERFORMANCE.md.

#[path = "support/indexed_rows.rs"]
mod indexed_rows;
#[path = "support/postgres_store.rs"]
mod postgres_store;
mod support;
#[path = "support/text_postgres.rs"]
mod text_postgres;

use std::time::{Duration, Instant};

use indexed_rows::indexed_against_scanned;
use partlens_api::FilterTerm;
use partlens_engine::samples::parts::PART_NAMES;
use partlens_service::error::ServiceError;
use partlens_service::large_library::{
    LibrarySpec, VOCABULARY, generate, part_number, vocabulary_word,
};
use partlens_store::model::Listing;
use partlens_store::{DATABASE_FILE, Store};

/// Queries of each kind (index).
const QUERIES: usize = 60;
/// Queries of each kind also run through the scan.
const SCANNED_QUERIES: usize = 20;
/// Untimed queries of other words before the timed ones (see `main`).
const WARM_UP_QUERIES: usize = 60;

/// One kind of query: its label and the terms of query `number` for a library of `records`.
struct QueryKind {
    label: &'static str,
    terms: fn(usize, usize) -> Vec<FilterTerm>,
}

fn query_kinds() -> Vec<QueryKind> {
    vec![
        QueryKind {
            label: "a vocabulary word",
            terms: |number, _| vec![FilterTerm::Text(vocabulary_word(number * 61 % VOCABULARY))],
        },
        QueryKind {
            label: "two vocabulary words",
            terms: |number, _| {
                vec![FilterTerm::Text(format!(
                    "{} {}",
                    vocabulary_word(number * 61 % VOCABULARY),
                    vocabulary_word(number * 97 % VOCABULARY)
                ))]
            },
        },
        QueryKind {
            label: "a part number",
            terms: |number, records| {
                vec![FilterTerm::Text(part_number(
                    number * 7_919 % records.max(1),
                ))]
            },
        },
        QueryKind {
            label: "part of a part number",
            terms: |number, records| {
                let digits = part_number(number * 104_729 % records.max(1));
                vec![FilterTerm::Text(digits[4..8].to_owned())]
            },
        },
        QueryKind {
            label: "a word in every record",
            terms: |_, _| vec![FilterTerm::Text("supplier".into())],
        },
    ]
}

/// A library of `records` text-only records in `dir`: written there, or the one a run with `keep=`
/// wrote before.
struct Library {
    company_id: String,
    records: usize,
    /// How long writing took (`None`: it was there already).
    writing: Option<Duration>,
}

fn library(dir: &std::path::Path, records: usize) -> Result<Library, ServiceError> {
    const COMPANY: &str = "Big";
    if dir.join(DATABASE_FILE).exists() {
        let store = Store::open_blocking(dir)?;
        let (company_id, stored) = store.write_tx_blocking(|tx| -> Result<_, ServiceError> {
            let company_id = tx.ensure_company(COMPANY)?;
            let listing = Listing {
                limit: 0,
                ..Listing::default()
            };
            let stored = tx.list_library_page(&company_id, &listing)?.total;
            Ok((company_id, stored))
        })?;
        if stored == records {
            return Ok(Library {
                company_id,
                records,
                writing: None,
            });
        }
        return Err(ServiceError::Internal(format!(
            "{} holds {stored} records, not {records}: remove it or keep elsewhere",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir)?;
    let mut spec = LibrarySpec::new(COMPANY, 0);
    spec.text_only_records = records;
    spec.pool_pictures = PART_NAMES.len();
    let generated = generate(&Store::open_blocking(dir)?, &spec, |written, total| {
        if written % 100_000 == 0 || written == total {
            eprintln!("{written} / {total} records written");
        }
    })?;
    Ok(Library {
        company_id: generated.company_id,
        records: generated.records,
        writing: Some(generated.writing),
    })
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    // `postgres`: the same queries through PostgreSQL beside SQLite (support/text_postgres.rs).
    let on_postgres = arguments.iter().any(|arg| arg == "postgres");
    let mut sizes: Vec<usize> = if on_postgres {
        vec![100_000]
    } else {
        vec![10_000, 100_000]
    };
    if arguments.iter().any(|arg| arg == "1m") {
        sizes.push(1_000_000);
    }
    if let Some(chosen) = arguments
        .iter()
        .find_map(|arg| arg.strip_prefix("records="))
    {
        sizes = chosen
            .split(',')
            .filter_map(|size| size.trim().parse().ok())
            .collect();
    }
    // `keep=DIR`: each size's library in DIR/<records> (written when not there yet), kept.
    let kept = support::kept_folder(&arguments);
    let mut search_lines = Vec::new();
    let mut scale_lines = Vec::new();
    let (mut postgres_lines, mut page_lines, mut copy_lines) = (Vec::new(), Vec::new(), Vec::new());
    for records in sizes {
        let temporary = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(error) => panic!("no temporary directory: {error}"),
        };
        let dir = support::library_folder(kept.as_ref(), records, &temporary);
        let generated = match library(&dir, records) {
            Ok(generated) => generated,
            Err(error) => panic!("the library is not written: {error}"),
        };
        let database_bytes: u64 = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with(DATABASE_FILE)
            })
            .filter_map(|entry| entry.metadata().ok())
            .map(|metadata| metadata.len())
            .sum();
        scale_lines.push(format!(
            "| {} | {} | {:.0} MB |",
            generated.records,
            generated.writing.map_or("(kept)".into(), |writing| format!(
                "{:.1} s",
                writing.as_secs_f64()
            )),
            database_bytes as f64 / 1e6
        ));
        let store = match Store::open_blocking(&dir) {
            Ok(store) => store,
            Err(error) => panic!("the store does not open: {error}"),
        };
        let company = generated.company_id.clone();
        if on_postgres {
            let kept_url = arguments
                .iter()
                .find_map(|arg| arg.strip_prefix("postgres_url="));
            if let Some(measured) = text_postgres::measure(&store, &company, records, kept_url) {
                postgres_lines.extend(measured.every_file);
                page_lines.extend(measured.page);
                copy_lines.push(measured.copy);
            }
            continue;
        }
        // Warm-up, as a service that has been answering searches is: other words than the timed
        // ones, so the shared index pages are in the caches but not the timed words' own.
        for number in 0..WARM_UP_QUERIES {
            let terms = [FilterTerm::Text(vocabulary_word(
                (number * 61 + 30) % VOCABULARY,
            ))];
            if let Err(error) =
                store.read_tx_blocking(|tx| tx.matching_database_files(&company, &terms))
            {
                panic!("a text search fails: {error}");
            }
        }
        for kind in query_kinds() {
            let mut indexed_times = Vec::new();
            let mut scanned_times = Vec::new();
            let mut same = true;
            let mut found = 0;
            for number in 0..QUERIES {
                let terms = (kind.terms)(number, records);
                let timed = store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
                    let started = Instant::now();
                    let indexed = tx.matching_database_files(&company, &terms)?;
                    let indexed_time = started.elapsed();
                    let scanned = if number < SCANNED_QUERIES {
                        let started = Instant::now();
                        let scanned = tx.matching_database_files_by_scanning(&company, &terms)?;
                        Some((scanned, started.elapsed()))
                    } else {
                        None
                    };
                    Ok((indexed, indexed_time, scanned))
                });
                let (indexed, indexed_time, scanned) = match timed {
                    Ok(timed) => timed,
                    Err(error) => panic!("a text search fails: {error}"),
                };
                if let Some((scanned, scanned_time)) = scanned {
                    same &= indexed == scanned;
                    scanned_times.push(scanned_time);
                }
                found += indexed.len();
                indexed_times.push(indexed_time);
            }
            search_lines.push(format!(
                "| {} | {} | {} | {} |",
                generated.records,
                kind.label,
                found / QUERIES,
                indexed_against_scanned(&mut indexed_times, &mut scanned_times, same)
            ));
            eprintln!("{}", search_lines.last().map_or("", String::as_str));
        }
    }
    if on_postgres {
        println!("## Free text and attribute filters through PostgreSQL\n");
        println!("{QUERIES} queries a kind on each store, the same records.\n");
        println!(
            "| records | query | files found | SQLite p50 | SQLite p95 | PostgreSQL p50 | PostgreSQL p95 | PostgreSQL / SQLite (p50) | same files |"
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        for line in &postgres_lines {
            println!("{line}");
        }
        println!();
        println!(
            "What a search without inputs reads: the first 200 files (`maxResults`' default) and \
             the count of all (`first_matching_database_files`), checked against the rows above.\n"
        );
        println!(
            "| records | query | files found | SQLite p50 | SQLite p95 | PostgreSQL p50 | PostgreSQL p95 | same page and count |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for line in &page_lines {
            println!("{line}");
        }
        println!();
        println!("| records | copied into PostgreSQL in |");
        println!("|---|---|");
        for line in &copy_lines {
            println!("{line}");
        }
        return;
    }
    println!("## Free text at scale\n");
    println!(
        "{QUERIES} queries a kind through the term index, the first {SCANNED_QUERIES} also through \
         the scan.\n"
    );
    println!(
        "| records | query | matches | index p50 | index p95 | scan p50 | scan p95 | speed-up (p50) | same files |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for line in &search_lines {
        println!("{line}");
    }
    println!();
    println!("| records | written in | database on disk |");
    println!("|---|---|---|");
    for line in &scale_lines {
        println!("{line}");
    }
}
