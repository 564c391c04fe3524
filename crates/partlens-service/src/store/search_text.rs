//! The text free-text search looks in, one lower-cased column of each file record: stored path,
//! display name, saved attributes (names and values), extracted attributes and extracted text.
//!
//! Its own module because both the file records (`files.rs`) and the saved attributes
//! (`attributes.rs`) change what it holds: each calls [`refresh`] after a write, and this module
//! reads the tables itself, so neither of them imports the other through it. The term index that
//! free text is searched through follows the new text in the same call ([`super::text_terms`]).

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::ServiceError;

/// Rebuilds the search text of file `uid` from what is stored now; a file that is not there is left
/// alone.
pub fn refresh(connection: &Connection, uid: &str) -> Result<(), ServiceError> {
    let Some((stored_path, display_name, text, extracted)) = connection
        .query_row(
            "SELECT stored_path, display_name, text, extracted_attributes FROM files WHERE uid = ?1",
            [uid],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?
    else {
        return Ok(());
    };
    let attributes = connection
        .prepare_cached("SELECT text FROM file_attributes WHERE file_uid = ?1 ORDER BY position")?
        .query_map([uid], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    let extracted: Vec<String> = serde_json::from_str(&extracted).unwrap_or_default();
    let mut search_text = format!("{stored_path}\n{display_name}\n");
    for line in attributes.iter().chain(&extracted) {
        search_text.push_str(line);
        search_text.push('\n');
    }
    search_text.push_str(&text);
    let search_text = search_text.to_lowercase();
    connection.execute(
        "UPDATE files SET search_text = ?2 WHERE uid = ?1",
        params![uid, search_text],
    )?;
    super::text_terms::index_file(connection, uid, &search_text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::files::{IndexState, IndexedContent, NewContent, save_indexing, upsert};
    use crate::store::{accounts, attributes, schema};
    use partlens_api::Attribute;

    fn search_text_of(connection: &Connection, uid: &str) -> String {
        connection
            .query_row(
                "SELECT search_text FROM files WHERE uid = ?1",
                [uid],
                |row| row.get(0),
            )
            .unwrap()
    }

    #[test]
    fn every_write_that_changes_the_searched_fields_refreshes_the_text() {
        let mut connection = Connection::open_in_memory().unwrap();
        schema::migrate(&mut connection).unwrap();
        let company = accounts::ensure_company(&connection, "Acme").unwrap();
        let now = "2026-01-01T00:00:00Z";
        let revision = upsert(
            &connection,
            &NewContent {
                uid: "a".into(),
                company_id: company.clone(),
                owner_user_id: 1,
                is_search_input: false,
                stored_path: "Design/Pump Housing.png".into(),
                display_name: "Pump Housing.png".into(),
                extension: ".png".into(),
                size: 2000,
                state: IndexState::InProgress,
                callback_param: None,
            },
            now,
        )
        .unwrap();
        assert_eq!(
            search_text_of(&connection, "a"),
            "design/pump housing.png\npump housing.png\n"
        );
        attributes::replace(
            &connection,
            &company,
            "a",
            &[Attribute::parse("Material=Steel|Brass").unwrap()],
        )
        .unwrap();
        assert!(search_text_of(&connection, "a").contains("\nmaterial=steel|brass\n"));
        let indexed = IndexedContent {
            text: "Ø60 H7 FLANGE".into(),
            extracted_attributes: vec!["Width_px=128".into()],
            ..IndexedContent::default()
        };
        assert!(save_indexing(&connection, "a", revision, Some(&indexed), now).unwrap());
        assert_eq!(
            search_text_of(&connection, "a"),
            "design/pump housing.png\npump housing.png\nmaterial=steel|brass\nwidth_px=128\nø60 h7 flange"
        );
        refresh(&connection, "not there").unwrap();
    }
}
