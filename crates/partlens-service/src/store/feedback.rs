//! Feedback on extracted attributes (`PUT /api/ExtractedAttributeFeedback`).

use rusqlite::{Connection, params};

use crate::error::ServiceError;

/// One feedback as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// The feedback ID (caller-supplied GUID or a new one).
    pub id: String,
    /// The file it is about.
    pub file_uid: String,
    /// The caller's company.
    pub company_id: String,
    /// The caller.
    pub user_id: i64,
    /// The `user` parameter: an external user identifier (empty when not given).
    pub external_user: String,
    /// The explanation (empty when not given).
    pub feedback: String,
    /// The `name=value` items of the body.
    pub attributes: Vec<String>,
}

/// Stores a feedback; a feedback of the same company with the same ID is replaced. Returns false
/// (nothing stored) when the ID is used by another company.
pub fn save(connection: &Connection, feedback: &Feedback, now: &str) -> Result<bool, ServiceError> {
    let changed = connection.execute(
        "INSERT INTO feedback
            (id, file_uid, company_id, user_id, external_user, feedback, attributes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (id) DO UPDATE SET file_uid = excluded.file_uid, user_id = excluded.user_id,
            external_user = excluded.external_user, feedback = excluded.feedback,
            attributes = excluded.attributes, created_at = excluded.created_at
         WHERE feedback.company_id = excluded.company_id",
        params![
            feedback.id,
            feedback.file_uid,
            feedback.company_id,
            feedback.user_id,
            feedback.external_user,
            feedback.feedback,
            serde_json::to_string(&feedback.attributes).unwrap_or_else(|_| "[]".into()),
            now,
        ],
    )?;
    Ok(changed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_replaced_within_its_company_only() {
        let mut connection = Connection::open_in_memory().unwrap();
        crate::store::schema::migrate(&mut connection).unwrap();
        let feedback = Feedback {
            id: "f".into(),
            file_uid: "u".into(),
            company_id: "acme".into(),
            user_id: 1,
            external_user: String::new(),
            feedback: String::new(),
            attributes: vec!["a=b".into()],
        };
        assert!(save(&connection, &feedback, "t").unwrap());
        let again = Feedback {
            feedback: "second".into(),
            ..feedback.clone()
        };
        assert!(save(&connection, &again, "t").unwrap());
        let foreign = Feedback {
            company_id: "globex".into(),
            feedback: "theirs".into(),
            ..feedback
        };
        assert!(!save(&connection, &foreign, "t").unwrap());
        let stored: String = connection
            .query_row("SELECT feedback FROM feedback WHERE id = 'f'", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(stored, "second");
    }
}
