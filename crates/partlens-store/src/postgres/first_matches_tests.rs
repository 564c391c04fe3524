//! A search without inputs on PostgreSQL shows the first `maxResults` of a filter's files and
//! counts them all (`first_matches.rs`): the files a narrow filter selects are read by key and
//! sorted; a broad filter (more files than the thresholds, here forced on a few hundred through
//! `first_matching_with`) or none is counted in the server and its first files found by walking
//! the company's files in name order, each looked up in a hash of the selected files or checked
//! by its own rows. Every way gives the model's order (display name with ASCII letters folded, by
//! bytes, then UID) and the count of every match, and leaves out search inputs and files not
//! indexed, also after files moved into and out of being shown (the postings' and values'
//! `shown_company`, kept by triggers, which a count from the selections alone reads). On a real
//! server (skipped with a message off CI when there is none).

use r2d2_postgres::postgres::{Client, NoTls};

use super::PgTx;
use super::first_matches::{Thresholds, first_matching_with};
use crate::model::{IndexedContent, NewContent};
use crate::store::{DatabaseUrl, Store};
use partlens_api::{Attribute, FilterTerm};
use partlens_testkit::postgres::TestDatabase;

/// A store with what keeps it: its database and its folder.
type Kept = (Store, TestDatabase, tempfile::TempDir);

/// A PostgreSQL store on a fresh database, with the database and the store's folder (keep them
/// while it is used), or `None` where no server can be started.
fn store() -> Option<Kept> {
    let database = partlens_testkit::postgres::database()?;
    let folder = tempfile::tempdir().unwrap();
    let url = DatabaseUrl::parse(&database.url).unwrap();
    let store = Store::open_configured_blocking(folder.path(), Some(&url)).unwrap();
    Some((store, database, folder))
}

/// `TotalResults` and the listed UIDs of a search without inputs showing at most `max_results`
/// (what `GET /api/Search` asks the store).
fn page(
    store: &Store,
    company: &str,
    terms: &[FilterTerm],
    max_results: usize,
) -> (i64, Vec<String>) {
    let (first, total) = store
        .read_tx_blocking(|tx| tx.first_matching_database_files(company, terms, max_results))
        .unwrap();
    (
        total as i64,
        first.into_iter().map(|candidate| candidate.uid).collect(),
    )
}

/// The terms of a `filterStr` of FT conditions (`FT=widget&FT=Material=[Brass]`).
fn terms(filter: &str) -> Vec<FilterTerm> {
    filter
        .split('&')
        .filter_map(|condition| condition.strip_prefix("FT="))
        .map(FilterTerm::parse)
        .collect()
}

/// The UIDs of `files` (UID, display name) in the model's order.
fn in_name_order(files: Vec<(String, String)>) -> Vec<String> {
    let mut candidates: Vec<crate::model::Candidate> = files
        .into_iter()
        .map(|(uid, display_name)| crate::model::Candidate { uid, display_name })
        .collect();
    crate::model::search::sort_in_name_order(&mut candidates);
    candidates
        .into_iter()
        .map(|candidate| candidate.uid)
        .collect()
}

/// Every way a filter's first files are found: listed; listed after a walk of a few files that
/// found enough or (for more files) did not; counted and walked with a hash of the selected files;
/// counted and walked checking each file's rows.
const EVERY_WAY: [Thresholds; 5] = [
    Thresholds {
        listed_if_selected_only: 10_000,
        listed_if_checked: 10_000,
        hashed: 10_000,
        walk_tried_from: 10_000,
        walked_at_most: 10_000,
    },
    Thresholds {
        listed_if_selected_only: 10_000,
        listed_if_checked: 10_000,
        hashed: 10_000,
        walk_tried_from: 0,
        walked_at_most: 10_000,
    },
    Thresholds {
        listed_if_selected_only: 10_000,
        listed_if_checked: 10_000,
        hashed: 10_000,
        walk_tried_from: 0,
        walked_at_most: 60,
    },
    Thresholds {
        listed_if_selected_only: 0,
        listed_if_checked: 0,
        hashed: 10_000,
        walk_tried_from: 0,
        walked_at_most: 0,
    },
    Thresholds {
        listed_if_selected_only: 0,
        listed_if_checked: 0,
        hashed: 0,
        walk_tried_from: 0,
        walked_at_most: 0,
    },
];

/// One filter's answer in the store: what was asked (label, number of terms, files shown), the
/// UIDs shown and the count.
type Answer = (String, usize, usize, Vec<String>, usize);

/// The answers of the store on `url` to each of `filters` for the company, every way, showing 1,
/// 25 and 10,000 files.
fn store_answers(url: String, company: String, filters: Vec<Vec<FilterTerm>>) -> Vec<Answer> {
    std::thread::spawn(move || {
        let mut client = Client::connect(&url, NoTls).unwrap();
        let mut transaction = client.transaction().unwrap();
        let mut tx = PgTx {
            tx: &mut transaction,
            node: "test",
            view_vectors: false,
            vectors_deferred: false,
            pool: None,
        };
        let mut answers = Vec::new();
        for terms in &filters {
            for thresholds in EVERY_WAY {
                for limit in [1, 25, 10_000] {
                    let (first, total) =
                        first_matching_with(&mut tx, &company, terms, limit, thresholds).unwrap();
                    let first: Vec<String> =
                        first.into_iter().map(|candidate| candidate.uid).collect();
                    answers.push((
                        format!("{terms:?} {thresholds:?}, {limit} shown"),
                        terms.len(),
                        limit,
                        first,
                        total,
                    ));
                }
            }
        }
        answers
    })
    .join()
    .unwrap()
}

/// Every posting's and attribute value's `shown_company` is its file's company while a search may
/// show the file, else NULL (schema step 9's triggers), and some are shown.
fn assert_shown_companies_follow_the_files(database: &TestDatabase) {
    for table in ["search_postings", "attribute_values"] {
        let counts = database
            .query_text(&format!(
                "SELECT count(*) FILTER (WHERE shown_company IS DISTINCT FROM
                            (SELECT f.company_id FROM files f WHERE f.uid = file_uid
                             AND NOT f.is_search_input AND f.state IN ('completed', 'failed')))
                        || ' ' || count(shown_company) FROM {table}"
            ))
            .unwrap();
        let (wrong, shown) = counts.split_once(' ').unwrap();
        assert_eq!(
            wrong, "0",
            "{table}: rows whose shown company is not their file's"
        );
        assert!(
            shown.parse::<usize>().unwrap() > 100,
            "{table}: {shown} shown"
        );
    }
    assert_row_counts_follow_the_rows(database);
}

/// The counts of shown rows by term and by value are those of the rows (schema step 10's
/// triggers), and an attribute that a file has two values of is marked so.
fn assert_row_counts_follow_the_rows(database: &TestDatabase) {
    for (counts, rows, key, number) in [
        (
            "shown_term_counts",
            "SELECT term_id, shown_company AS company_id, count(*) AS n FROM search_postings
             WHERE shown_company IS NOT NULL GROUP BY 1, 2",
            "term_id, company_id",
            "files",
        ),
        (
            "shown_value_counts",
            "SELECT attribute_id, shown_company AS company_id, value_key COLLATE \"C\" AS value_key,
                    count(*) AS n
             FROM attribute_values WHERE shown_company IS NOT NULL GROUP BY 1, 2, 3",
            "attribute_id, company_id, value_key",
            "value_rows",
        ),
    ] {
        let found = database
            .query_text(&format!(
                "SELECT count(*) FILTER (WHERE r.n IS DISTINCT FROM c.{number}) || ' ' || count(*)
                 FROM ({rows}) r FULL JOIN {counts} c USING ({key})"
            ))
            .unwrap();
        let (wrong, all) = found.split_once(' ').unwrap();
        assert_eq!(wrong, "0", "{counts}: counts that are not their rows' ({all} counted)");
        assert!(all.parse::<usize>().unwrap() > 1, "{counts}: {all}");
    }
    let unmarked = database
        .query_text(
            "SELECT count(*) FROM attribute_names n WHERE NOT n.several_values AND EXISTS (
                 SELECT 1 FROM attribute_values v WHERE v.attribute_id = n.id
                 GROUP BY v.file_uid HAVING count(*) > 1)",
        )
        .unwrap();
    assert_eq!(
        unmarked, "0",
        "attributes with two values on a file, not marked"
    );
}

/// A store on a PostgreSQL database (`None` where none can be started), its company, and the UIDs
/// of [`widget_and_sprocket`] written into it.
fn started_with_widget_and_sprocket() -> Option<(Kept, String, String, String)> {
    let kept = store()?;
    let (company, widget, sprocket) = widget_and_sprocket(&kept.0);
    Some((kept, company, widget, sprocket))
}

/// Two database files indexed: a widget of steel 304 and a sprocket of brass (the company and
/// their UIDs).
fn widget_and_sprocket(store: &Store) -> (String, String, String) {
    let widget = "3f2504e0-4f89-41d3-9a0c-0305e82c3301".to_owned();
    let sprocket = "3f2504e0-4f89-41d3-9a0c-0305e82c3302".to_owned();
    let company = store
        .write_tx_blocking(|tx| -> Result<String, crate::StoreError> {
            let company = tx.ensure_company("Acme")?;
            for (uid, path, material) in [
                (&widget, "Parts/widget.png", "Steel 304"),
                (&sprocket, "Parts/sprocket.png", "Brass"),
            ] {
                let content = NewContent {
                    uid: uid.clone(),
                    company_id: company.clone(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: path.into(),
                    display_name: path.rsplit('/').next().unwrap_or(path).into(),
                    extension: ".png".into(),
                    size: 2000,
                    state: crate::model::IndexState::InProgress,
                    callback_param: None,
                    text_only: false,
                };
                let revision = tx.upsert_file(&content, "2026-01-01T00:00:00Z")?;
                let material = Attribute::parse(&format!("Material={material}")).unwrap();
                tx.replace_attributes(&company, uid, &[material])?;
                let outcome = IndexedContent {
                    views: vec![vec![1]],
                    pmi_json: "[]".into(),
                    ..IndexedContent::default()
                };
                assert!(tx.save_indexing(uid, revision, Some(&outcome), "2026-01-01T00:00:01Z")?);
            }
            Ok(company)
        })
        .unwrap();
    (company, widget, sprocket)
}

#[test]
fn a_filters_first_files_and_count_in_name_order_narrow_or_broad() {
    let Some(((store, database, _folder), company, original, rare)) =
        started_with_widget_and_sprocket()
    else {
        return;
    };
    let database = &database;

    // Copies of the widget's record, written by SQL (hundreds through HTTP would take minutes):
    // the same terms and attribute values, names of mixed case, repeats (the UID decides),
    // non-ASCII letters (by bytes: after every ASCII letter), and some that no search shows (a
    // search input, a file not indexed yet).
    let copies = 400;
    let uid = "md5('copy' || n)::uuid::text";
    database.execute(&format!(
        "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path, path_key,
             display_name, extension, size, state, revision, uploaded_at, indexed_at, text,
             extracted_attributes, pmi, has_thumbnail, has_large_image, search_text)
         SELECT {uid}, company_id, owner_user_id, n % 97 = 0, stored_path || n, path_key || n,
             CASE n % 5 WHEN 0 THEN 'Bracket ' || n WHEN 1 THEN 'bracket ' || n % 50
                        WHEN 2 THEN 'ÉCROU ' || n WHEN 3 THEN '_part' || n || '.png'
                        ELSE 'Z' || n * 7 % 1000 END,
             extension, size, CASE WHEN n % 89 = 0 THEN 'queued' ELSE state END, revision,
             uploaded_at, indexed_at, text, extracted_attributes, pmi, has_thumbnail,
             has_large_image, search_text
         FROM files, generate_series(1, {copies}) AS n WHERE uid = '{original}';
         INSERT INTO search_postings (term_id, file_uid)
         SELECT p.term_id, {uid} FROM search_postings p, generate_series(1, {copies}) AS n
         WHERE p.file_uid = '{original}';
         INSERT INTO attribute_values (file_uid, attribute_id, value, value_key)
         SELECT {uid}, v.attribute_id, v.value, v.value_key
         FROM attribute_values v, generate_series(1, {copies}) AS n WHERE v.file_uid = '{original}';
         ANALYZE;"
    ));
    // Every file a search may show, as (UID, name): the copies and the two uploads.
    let shown = |condition: &str| -> Vec<(String, String)> {
        let listed = database
            .query_text(&format!(
                "SELECT string_agg(uid || '|' || display_name, E'\\n') FROM files
                 WHERE NOT is_search_input AND state IN ('completed', 'failed') AND {condition}"
            ))
            .unwrap_or_default();
        listed
            .lines()
            .map(|line| {
                let (uid, name) = line.split_once('|').unwrap();
                (uid.to_owned(), name.to_owned())
            })
            .collect()
    };
    let widgets = in_name_order(shown(&format!("uid <> '{rare}'")));
    let everything = in_name_order(shown("true"));
    assert!(
        widgets.len() > 350 && widgets.len() < copies + 1,
        "search inputs and queued files are left out: {}",
        widgets.len()
    );

    // As a search asks: a word, an exact value, a prefix, a regular term, and no condition at all.
    for filter in [
        "FT=widget",
        "FT=Material=[Steel 304]",
        "FT=Material=steel*",
        "FT=Material=304",
    ] {
        let (total, first) = page(&store, &company, &terms(filter), 25);
        assert_eq!(total, widgets.len() as i64, "{filter}");
        assert_eq!(first, widgets[..25], "{filter}");
        let (total, all) = page(&store, &company, &terms(filter), 10_000);
        assert_eq!((total, &all), (widgets.len() as i64, &widgets), "{filter}");
    }
    let (total, first) = page(&store, &company, &terms(""), 40);
    assert_eq!(
        (total, first.as_slice()),
        (everything.len() as i64, &everything[..40])
    );
    // Every way in the store.
    assert_shown_companies_follow_the_files(database);
    let url = database.url.clone();
    let filters = [
        vec![FilterTerm::Text("widget".into())],
        vec![FilterTerm::Exact {
            name: "material".into(),
            value: "steel 304".into(),
        }],
        vec![FilterTerm::Prefix {
            name: "Material".into(),
            prefix: "ste".into(),
        }],
        vec![FilterTerm::Regular {
            name: "material".into(),
            value: "l 3".into(),
        }],
        vec![
            FilterTerm::Text("widget".into()),
            FilterTerm::Exact {
                name: "material".into(),
                value: "steel 304".into(),
            },
        ],
        Vec::new(),
        vec![
            FilterTerm::Text("widget".into()),
            FilterTerm::Exact {
                name: "material".into(),
                value: "brass".into(),
            },
        ],
        // A short word (checked on each file's text) beside an indexed one.
        vec![FilterTerm::Text("widget ge".into())],
        // One file among hundreds (a walk passes over almost every file it goes through).
        vec![FilterTerm::Exact {
            name: "material".into(),
            value: "brass".into(),
        }],
    ];
    let answers = store_answers(database.url.clone(), company.clone(), filters.to_vec());
    for (label, terms, limit, first, total) in answers {
        let expected: &[String] = match terms {
            0 => &everything,
            1 if label.contains("brass") => std::slice::from_ref(&rare),
            _ if label.contains("brass") => &[],
            _ => &widgets,
        };
        assert_eq!(total, expected.len(), "{label}");
        assert_eq!(first, expected[..limit.min(expected.len())], "{label}");
    }

    // Files moved out of being shown (back in the queue, made a search input) and into it (a
    // queued copy indexed): the selections follow, every way. And some copies get a second
    // material (the attribute is then not one value a file: counted without repeats) and a file
    // is deleted (its rows with it).
    database.execute(
        "INSERT INTO attribute_values (file_uid, attribute_id, value, value_key)
         SELECT file_uid, attribute_id, 'Steel 316', 'steel 316' FROM attribute_values
         WHERE value_key = 'steel 304' AND file_uid IN
               (SELECT uid FROM files WHERE display_name LIKE 'Bracket 2%');
         DELETE FROM files WHERE display_name = 'Bracket 5';
         UPDATE files SET state = 'queued' WHERE display_name LIKE 'Bracket 1%';
         UPDATE files SET is_search_input = true WHERE display_name LIKE 'Z2%';
         UPDATE files SET state = 'completed' WHERE state = 'queued' AND display_name LIKE '_part%';",
    );
    assert_shown_companies_follow_the_files(database);
    let widgets = in_name_order(shown(&format!("uid <> '{rare}'")));
    let everything = in_name_order(shown("true"));
    assert!(widgets.len() > 300 && widgets.len() < copies + 1);
    for (label, terms, limit, first, total) in store_answers(url, company.clone(), filters.to_vec())
    {
        let expected: &[String] = match terms {
            0 => &everything,
            1 if label.contains("brass") => std::slice::from_ref(&rare),
            _ if label.contains("brass") => &[],
            _ => &widgets,
        };
        assert_eq!(total, expected.len(), "after the moves: {label}");
        assert_eq!(
            first,
            expected[..limit.min(expected.len())],
            "after the moves: {label}"
        );
    }

    // Broad and narrow together: the narrow term decides; nothing.
    assert_eq!(
        page(
            &store,
            &company,
            &terms("FT=widget&FT=Material=[Brass]"),
            25
        ),
        (0, Vec::new())
    );
    assert_eq!(
        page(&store, &company, &terms("FT=nosuchword"), 25),
        (0, Vec::new())
    );

    // Narrow: a few files listed and sorted; the page cut after the count.
    assert_eq!(
        page(&store, &company, &terms("FT=sprocket"), 25),
        (1, vec![rare.clone()])
    );
    let brass = 7;
    database.execute(&format!(
        "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path, path_key,
             display_name, extension, size, state, revision, uploaded_at, indexed_at, text,
             extracted_attributes, pmi, has_thumbnail, has_large_image, search_text)
         SELECT md5('brass' || n)::uuid::text, company_id, owner_user_id, false, stored_path || n,
             path_key || n, CASE WHEN n % 2 = 0 THEN 'a' ELSE 'B' END || n, extension, size,
             state, revision, uploaded_at, indexed_at, text, extracted_attributes, pmi,
             has_thumbnail, has_large_image, search_text
         FROM files, generate_series(1, {count}) AS n WHERE uid = '{rare}';
         INSERT INTO attribute_values (file_uid, attribute_id, value, value_key)
         SELECT md5('brass' || n)::uuid::text, v.attribute_id, v.value, v.value_key
         FROM attribute_values v, generate_series(1, {count}) AS n WHERE v.file_uid = '{rare}';",
        count = brass
    ));
    let brasses = in_name_order(shown(
        "uid IN (SELECT file_uid FROM attribute_values WHERE value_key = 'brass')",
    ));
    assert_eq!(brasses.len(), brass + 1);
    let (total, first) = page(&store, &company, &terms("FT=Material=[brass]"), 3);
    assert_eq!((total, first.as_slice()), (8, &brasses[..3]));
    let (total, all) = page(&store, &company, &terms("FT=Material=brass"), 200);
    assert_eq!((total, all), (8, brasses));
}

/// A database at schema step 9 (before the counts of shown rows) gets them when a node migrates
/// it: the counts of the postings and values already there, and the attributes a file has two
/// values of marked, so that a filter counts them without repeats.
#[test]
fn a_database_before_the_row_counts_gets_them_when_migrated() {
    let Some(((store, database, _folder), company, widget, _)) = started_with_widget_and_sprocket()
    else {
        return;
    };
    let database = &database;
    // Step 10 undone (with the portable steps after it: the file relations, the pages of
    // files, the callbacks, the duplicates' pairs), and a second material written while nothing counts it.
    database.execute(
        "DROP TABLE paired_files;
         DROP TABLE file_pairs;
         DROP TABLE callback_attempts;
         DROP TABLE callback_deliveries;
         DROP TABLE callback_settings;
         DROP TABLE categories;
         ALTER TABLE files DROP COLUMN text_only;
         ALTER TABLE attribute_names DROP COLUMN custom, DROP COLUMN last_set_at;
         DROP TABLE file_relations;
         ALTER TABLE files DROP COLUMN pages;
         DROP TRIGGER postings_counted_inserted ON search_postings;
         DROP TRIGGER postings_counted_updated ON search_postings;
         DROP TRIGGER postings_counted_deleted ON search_postings;
         DROP TRIGGER values_counted_inserted ON attribute_values;
         DROP TRIGGER values_counted_updated ON attribute_values;
         DROP TRIGGER values_counted_deleted ON attribute_values;
         DROP FUNCTION partlens_postings_counted(), partlens_values_counted();
         DROP TABLE shown_term_counts, shown_value_counts;
         ALTER TABLE attribute_names DROP COLUMN several_values;
         UPDATE partlens_schema SET version = 9;
         INSERT INTO attribute_values (file_uid, attribute_id, value, value_key)
         SELECT file_uid, attribute_id, 'Steel 316', 'steel 316' FROM attribute_values
         WHERE value_key = 'steel 304';",
    );
    let mut client = Client::connect(&database.url, NoTls).unwrap();
    super::schema::migrate(&mut client).unwrap();
    assert_eq!(
        database.query_text("SELECT version FROM partlens_schema"),
        Some(super::schema::current_version().to_string())
    );
    assert_row_counts_follow_the_rows(database);
    for filter in [
        "FT=Material=ste*",
        "FT=Material=[steel 316]",
        "FT=Material=304",
        "FT=widget",
    ] {
        assert_eq!(
            page(&store, &company, &terms(filter), 25),
            (1, vec![widget.clone()]),
            "{filter}"
        );
    }
}
