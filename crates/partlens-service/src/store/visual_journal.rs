//! What the visual index is built from and kept in step with: the stored views of every company's
//! indexed database files, and the journal of changes to them.
//!
//! The journal (`visual_changes`) is written by triggers (schema step 3) whenever a view is stored or
//! removed or a file's state, role or company changes, in the same transaction as the change. A saved
//! approximate index records the last journal position it includes; at start the files changed
//! after it are read again from the store, so the index matches the store whatever happened to the
//! process in between.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::ServiceError;

/// The condition a file must meet to be searched visually (its alias in queries is `f`).
const SEARCHED: &str = "f.is_search_input = 0 AND f.state = 'completed'";

/// The last journal position (0 when the journal is empty).
pub fn position(connection: &Connection) -> Result<i64, ServiceError> {
    Ok(connection.query_row(
        "SELECT coalesce(max(seq), 0) FROM visual_changes",
        [],
        |row| row.get(0),
    )?)
}

/// The files changed after journal position `after`, each once.
pub fn changed_since(connection: &Connection, after: i64) -> Result<Vec<String>, ServiceError> {
    let mut statement =
        connection.prepare("SELECT DISTINCT file_uid FROM visual_changes WHERE seq > ?1")?;
    let uids = statement
        .query_map([after], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(uids)
}

/// Forgets the journal up to and including `position`.
pub fn trim(connection: &Connection, position: i64) -> Result<(), ServiceError> {
    connection.execute("DELETE FROM visual_changes WHERE seq <= ?1", [position])?;
    Ok(())
}

/// A searched file's company and its stored views (descriptor bytes, one a view).
pub type CompanyViews = (String, Vec<Vec<u8>>);

/// A file's company and stored views when it is searched visually (an indexed database file with
/// views); `None` otherwise (deleted, a search input, not indexed, no views).
pub fn searched_views(
    connection: &Connection,
    uid: &str,
) -> Result<Option<CompanyViews>, ServiceError> {
    let company: Option<String> = connection
        .prepare_cached(&format!(
            "SELECT f.company_id FROM files f WHERE f.uid = ?1 AND {SEARCHED}"
        ))?
        .query_row([uid], |row| row.get(0))
        .optional()?;
    let Some(company) = company else {
        return Ok(None);
    };
    let views = super::files::views_of(connection, uid)?;
    Ok((!views.is_empty()).then_some((company, views)))
}

/// How many views each company's visually searched files have.
pub fn view_counts(connection: &Connection) -> Result<Vec<(String, usize)>, ServiceError> {
    let mut statement = connection.prepare(&format!(
        "SELECT f.company_id, count(*) FROM views v JOIN files f ON f.uid = v.file_uid
         WHERE {SEARCHED} GROUP BY f.company_id"
    ))?;
    let counts = statement
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?.max(0) as usize,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(counts)
}

/// Calls `each` with every visually searched file of the company and its stored views, file by
/// file, without holding them all in memory. Stops at the first error `each` returns.
pub fn for_each_searched_file(
    connection: &Connection,
    company: &str,
    mut each: impl FnMut(String, Vec<Vec<u8>>) -> Result<(), ServiceError>,
) -> Result<(), ServiceError> {
    let mut statement = connection.prepare(&format!(
        "SELECT v.file_uid, v.descriptor FROM files f JOIN views v ON v.file_uid = f.uid
         WHERE f.company_id = ?1 AND {SEARCHED}
         ORDER BY v.file_uid, v.position"
    ))?;
    let mut rows = statement.query(params![company])?;
    let mut current: Option<(String, Vec<Vec<u8>>)> = None;
    while let Some(row) = rows.next()? {
        let uid: String = row.get(0)?;
        let descriptor: Vec<u8> = row.get(1)?;
        match &mut current {
            Some((last, views)) if *last == uid => views.push(descriptor),
            _ => {
                if let Some((last, views)) = current.take() {
                    each(last, views)?;
                }
                current = Some((uid, vec![descriptor]));
            }
        }
    }
    if let Some((last, views)) = current {
        each(last, views)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::files::{IndexState, IndexedContent, NewContent, save_indexing, upsert};

    fn record(uid: &str, company: &str) -> NewContent {
        NewContent {
            uid: uid.into(),
            company_id: company.into(),
            owner_user_id: 1,
            is_search_input: false,
            stored_path: format!("D/{uid}.png"),
            display_name: format!("{uid}.png"),
            extension: ".png".into(),
            size: 2000,
            state: IndexState::InProgress,
            callback_param: None,
        }
    }

    #[test]
    fn every_change_to_searched_views_is_journalled() {
        let mut connection = Connection::open_in_memory().unwrap();
        connection
            .pragma_update(None, "foreign_keys", "ON")
            .unwrap();
        crate::store::schema::migrate(&mut connection).unwrap();
        let company = crate::store::accounts::ensure_company(&connection, "A").unwrap();
        let start = position(&connection).unwrap();
        upsert(&connection, &record("a", &company), "t").unwrap();
        let content = IndexedContent {
            views: vec![vec![1, 2, 3], vec![4, 5]],
            pmi_json: "[]".into(),
            ..Default::default()
        };
        assert!(save_indexing(&connection, "a", 1, Some(&content), "t").unwrap());
        assert_eq!(changed_since(&connection, start).unwrap(), vec!["a"]);
        let (owner, views) = searched_views(&connection, "a").unwrap().unwrap();
        assert_eq!(owner, company);
        assert_eq!(views, vec![vec![1, 2, 3], vec![4, 5]]);
        assert_eq!(
            view_counts(&connection).unwrap(),
            vec![(company.clone(), 2)]
        );

        // A delete cascades to the views, and the cascade is journalled too.
        let before_delete = position(&connection).unwrap();
        assert!(crate::store::files::delete(&connection, "a").unwrap());
        assert_eq!(
            changed_since(&connection, before_delete).unwrap(),
            vec!["a"]
        );
        assert!(searched_views(&connection, "a").unwrap().is_none());

        // A failed re-index changes only the state: journalled.
        upsert(&connection, &record("b", &company), "t").unwrap();
        assert!(save_indexing(&connection, "b", 1, Some(&content), "t").unwrap());
        let before_state = position(&connection).unwrap();
        crate::store::files::set_state(&connection, "b", IndexState::Failed).unwrap();
        assert_eq!(changed_since(&connection, before_state).unwrap(), vec!["b"]);
        assert!(searched_views(&connection, "b").unwrap().is_none());

        trim(&connection, position(&connection).unwrap()).unwrap();
        assert!(changed_since(&connection, 0).unwrap().is_empty());
    }

    #[test]
    fn searched_files_are_streamed_with_their_views_in_order() {
        let mut connection = Connection::open_in_memory().unwrap();
        crate::store::schema::migrate(&mut connection).unwrap();
        let company = crate::store::accounts::ensure_company(&connection, "A").unwrap();
        for (uid, views) in [("b", 1_u8), ("a", 3), ("c", 2)] {
            upsert(&connection, &record(uid, &company), "t").unwrap();
            let content = IndexedContent {
                views: (0..views).map(|view| vec![view]).collect(),
                pmi_json: "[]".into(),
                ..Default::default()
            };
            assert!(save_indexing(&connection, uid, 1, Some(&content), "t").unwrap());
        }
        let mut seen = Vec::new();
        for_each_searched_file(&connection, &company, |uid, views| {
            seen.push((uid, views));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            vec![
                ("a".to_owned(), vec![vec![0], vec![1], vec![2]]),
                ("b".to_owned(), vec![vec![0]]),
                ("c".to_owned(), vec![vec![0], vec![1]]),
            ]
        );
        let mut none = 0;
        for_each_searched_file(&connection, "other", |_, _| {
            none += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(none, 0);
    }
}
