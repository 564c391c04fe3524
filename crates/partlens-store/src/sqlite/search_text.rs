//! Keeping a record's search text in step on SQLite: rebuilt from what is stored now
//! ([`crate::model::search_text`]) after every write that changes one of its fields, with its term
//! index (`text_terms.rs`) in the same call.

use rusqlite::params;

use super::SqliteTx;
use crate::error::StoreError;
use crate::rows::{self, SEARCHED_COLUMNS};
use crate::traits::AttributesTx;

impl SqliteTx<'_> {
    /// Rebuilds the search text of file `uid` from what is stored now; a file that is not there is
    /// left alone.
    pub(super) fn refresh_search_text(&mut self, uid: &str) -> Result<(), StoreError> {
        let saved = self.attribute_texts_of(uid)?;
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT {SEARCHED_COLUMNS} FROM files WHERE uid = ?1"
        ))?;
        let mut found = statement.query([uid])?;
        let Some(row) = found.next()? else {
            return Ok(());
        };
        let search_text = rows::search_text(row, &saved)?;
        self.0.execute(
            "UPDATE files SET search_text = ?2 WHERE uid = ?1",
            params![uid, search_text],
        )?;
        super::text_terms::index_file(self.0, uid, &search_text)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{IndexState, IndexedContent, NewContent};
    use crate::sqlite::{in_memory, tx};
    use crate::traits::{AccountsTx, AttributesTx, FilesTx};
    use partlens_api::Attribute;

    fn search_text_of(connection: &rusqlite::Connection, uid: &str) -> String {
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
        let connection = in_memory();
        let mut tx = tx(&connection);
        let company = tx.ensure_company("Acme").unwrap();
        let now = "2026-01-01T00:00:00Z";
        let revision = tx
            .upsert_file(
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
                    text_only: false,
                },
                now,
            )
            .unwrap();
        assert_eq!(
            search_text_of(&connection, "a"),
            "design/pump housing.png\npump housing.png\n"
        );
        tx.replace_attributes(
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
        assert!(
            tx.save_indexing("a", revision, Some(&indexed), now)
                .unwrap()
        );
        assert_eq!(
            search_text_of(&connection, "a"),
            "design/pump housing.png\npump housing.png\nmaterial=steel|brass\nwidth_px=128\nø60 h7 flange"
        );
        tx.refresh_search_text("not there").unwrap();
    }
}
