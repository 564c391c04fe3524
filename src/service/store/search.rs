//! The metadata side of search: which of a company's database files (indexed, or failed with the
//! words read from them) satisfy every FT condition, done in SQL over the lower-cased search text
//! and the per-value attribute rows.

use std::collections::HashSet;

use rusqlite::Connection;
use rusqlite::types::Value;

use super::attributes::{name_key, value_key};
use crate::api::FilterTerm;
use crate::api::attribute::split_unit;
use crate::service::error::ServiceError;

/// A file that passed the filters: its UID and display name (the order of a search without inputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Canonical UID.
    pub uid: String,
    /// Display name.
    pub display_name: String,
}

/// Appends the SQL condition of one attribute term: some value of attribute `name` (unit compared
/// only when the name carries one) satisfies `value_condition`.
fn attribute_condition(
    sql: &mut String,
    arguments: &mut Vec<Value>,
    name: &str,
    value_condition: &str,
    value_arguments: Vec<Value>,
) {
    let (name, unit) = split_unit(name);
    sql.push_str(
        " AND EXISTS (SELECT 1 FROM attribute_values v JOIN attribute_names a ON a.id = v.attribute_id
           WHERE v.file_uid = f.uid AND a.name_key = ?",
    );
    arguments.push(Value::Text(name_key(name)));
    if let Some(unit) = unit {
        sql.push_str(" AND a.unit_key = ?");
        arguments.push(Value::Text(name_key(unit)));
    }
    sql.push_str(" AND ");
    sql.push_str(value_condition);
    sql.push(')');
    arguments.extend(value_arguments);
}

/// The SQL (and its arguments) selecting the UID and display name of the company's database files
/// whose indexing has ended (completed, or failed: a file whose content could not be indexed is
/// still found by its name, attributes and whatever words were read from it) that satisfy every
/// term.
fn matching_sql(company_id: &str, terms: &[FilterTerm]) -> (String, Vec<Value>) {
    let mut sql = String::from(
        "SELECT f.uid, f.display_name FROM files f
         WHERE f.company_id = ? AND f.is_search_input = 0 AND f.state IN ('completed', 'failed')",
    );
    let mut arguments = vec![Value::Text(company_id.to_owned())];
    for term in terms {
        match term {
            FilterTerm::Text(words) => {
                for word in words.split_whitespace() {
                    sql.push_str(" AND instr(f.search_text, ?) > 0");
                    arguments.push(Value::Text(word.to_lowercase()));
                }
            }
            FilterTerm::Regular { name, value } => attribute_condition(
                &mut sql,
                &mut arguments,
                name,
                "instr(v.value_key, ?) > 0",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Exact { name, value } => attribute_condition(
                &mut sql,
                &mut arguments,
                name,
                "v.value_key = ?",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Prefix { name, prefix } => {
                let prefix = prefix.trim_start().to_lowercase();
                attribute_condition(
                    &mut sql,
                    &mut arguments,
                    name,
                    "substr(v.value_key, 1, ?) = ?",
                    vec![
                        Value::Integer(prefix.chars().count() as i64),
                        Value::Text(prefix),
                    ],
                )
            }
        }
    }
    (sql, arguments)
}

fn query_candidates(
    connection: &Connection,
    sql: &str,
    arguments: Vec<Value>,
) -> Result<Vec<Candidate>, ServiceError> {
    let mut statement = connection.prepare(sql)?;
    let candidates = statement
        .query_map(rusqlite::params_from_iter(arguments), |row| {
            Ok(Candidate {
                uid: row.get(0)?,
                display_name: row.get(1)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(candidates)
}

/// The company's indexed database files that satisfy every term, ordered by display name
/// (case-insensitively) then UID.
///
/// - free text: every word occurs in the stored path, display name, attributes, extracted attributes
///   or extracted text (case-insensitive);
/// - regular `name=value`: some value of the attribute contains the text;
/// - exact `name=[value]`: some single value equals it (a multi-valued attribute matches on any one);
/// - prefix `name=start*`: some value starts with it.
pub fn matching_database_files(
    connection: &Connection,
    company_id: &str,
    terms: &[FilterTerm],
) -> Result<Vec<Candidate>, ServiceError> {
    let (mut sql, arguments) = matching_sql(company_id, terms);
    sql.push_str(" ORDER BY f.display_name COLLATE NOCASE, f.uid");
    query_candidates(connection, &sql, arguments)
}

/// Which of `uids` still satisfy every term (and are still indexed database files of the company):
/// a search checks its results again when it reads them, so a file changed in between is not shown
/// with attributes that no longer match.
pub fn still_matching(
    connection: &Connection,
    company_id: &str,
    terms: &[FilterTerm],
    uids: &[String],
) -> Result<HashSet<String>, ServiceError> {
    if uids.is_empty() {
        return Ok(HashSet::new());
    }
    let (mut sql, mut arguments) = matching_sql(company_id, terms);
    sql.push_str(" AND f.uid IN (");
    sql.push_str(&vec!["?"; uids.len()].join(", "));
    sql.push(')');
    arguments.extend(uids.iter().cloned().map(Value::Text));
    Ok(query_candidates(connection, &sql, arguments)?
        .into_iter()
        .map(|candidate| candidate.uid)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Attribute;
    use crate::service::store::files::{
        IndexState, IndexedContent, NewContent, save_indexing, upsert,
    };

    fn store(files: &[(&str, &str, &[&str], &str)]) -> (Connection, String) {
        let mut connection = Connection::open_in_memory().unwrap();
        crate::service::store::schema::migrate(&mut connection).unwrap();
        let company = crate::service::store::accounts::ensure_company(&connection, "A").unwrap();
        for (uid, path, attributes, text) in files {
            upsert(
                &connection,
                &NewContent {
                    uid: (*uid).into(),
                    company_id: company.clone(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: (*path).into(),
                    display_name: path.rsplit('/').next().unwrap().into(),
                    extension: ".png".into(),
                    size: 2000,
                    state: IndexState::InProgress,
                    callback_param: None,
                },
                "t",
            )
            .unwrap();
            let parsed: Vec<Attribute> = attributes
                .iter()
                .map(|text| Attribute::parse(text).unwrap())
                .collect();
            crate::service::store::attributes::replace(&connection, &company, uid, &parsed)
                .unwrap();
            let content = IndexedContent {
                text: (*text).into(),
                pmi_json: "[]".into(),
                ..Default::default()
            };
            assert!(save_indexing(&connection, uid, 1, Some(&content), "t").unwrap());
        }
        (connection, company)
    }

    fn uids(connection: &Connection, company: &str, terms: &[FilterTerm]) -> Vec<String> {
        matching_database_files(connection, company, terms)
            .unwrap()
            .into_iter()
            .map(|candidate| candidate.uid)
            .collect()
    }

    #[test]
    fn every_term_form_matches_as_specified() {
        let (connection, company) = store(&[
            (
                "1",
                "Design/pump housing.png",
                &["document_number=AX-1000", "region=EU|US"],
                "cast iron",
            ),
            (
                "2",
                "Design/bracket.png",
                &["document_number=BX-2000", "weight(kg)=12.3"],
                "Pump base",
            ),
        ]);
        let parse = FilterTerm::parse;
        assert_eq!(
            uids(&connection, &company, &[FilterTerm::Text("PUMP".into())]),
            vec!["2", "1"]
        );
        assert_eq!(
            uids(
                &connection,
                &company,
                &[FilterTerm::Text("pump iron".into())]
            ),
            vec!["1"]
        );
        assert_eq!(
            uids(&connection, &company, &[parse("Document_Number=ax-1")]),
            vec!["1"]
        );
        assert_eq!(
            uids(&connection, &company, &[parse("region=[us]")]),
            vec!["1"]
        );
        assert!(uids(&connection, &company, &[parse("region=[U]")]).is_empty());
        assert_eq!(
            uids(&connection, &company, &[parse("document_number=BX-*")]),
            vec!["2"]
        );
        assert_eq!(
            uids(&connection, &company, &[parse("weight=12")]),
            vec!["2"]
        );
        assert!(uids(&connection, &company, &[parse("weight(lb)=12")]).is_empty());
        assert_eq!(
            uids(
                &connection,
                &company,
                &[parse("region=[EU]"), FilterTerm::Text("cast".into())]
            ),
            vec!["1"]
        );
        assert!(
            uids(
                &connection,
                &company,
                &[parse("region=[EU]"), parse("weight=12")]
            )
            .is_empty()
        );
    }

    #[test]
    fn still_matching_checks_only_the_given_files() {
        let (connection, company) = store(&[
            ("1", "Design/a.png", &["region=EU"], ""),
            ("2", "Design/b.png", &["region=EU"], ""),
            ("3", "Design/c.png", &["region=US"], ""),
        ]);
        let given = ["1".to_owned(), "3".to_owned(), "gone".to_owned()];
        let terms = [FilterTerm::parse("region=[eu]")];
        assert_eq!(
            still_matching(&connection, &company, &terms, &given).unwrap(),
            HashSet::from(["1".to_owned()])
        );
        assert_eq!(
            still_matching(&connection, &company, &[], &given).unwrap(),
            HashSet::from(["1".to_owned(), "3".to_owned()])
        );
        assert!(
            still_matching(&connection, "other", &[], &given)
                .unwrap()
                .is_empty()
        );
        assert!(
            still_matching(&connection, &company, &terms, &[])
                .unwrap()
                .is_empty()
        );
    }
}
