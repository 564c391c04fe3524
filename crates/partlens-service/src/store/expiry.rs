//! Which search inputs have outlived their lifetime (the cleaner of `service::expiry` deletes them).

use rusqlite::{Connection, params};

use crate::error::ServiceError;

/// Up to `limit` search inputs uploaded before `cutoff` (ISO 8601 UTC, as `uploaded_at` is stored),
/// oldest first.
pub fn expired_search_inputs(
    connection: &Connection,
    cutoff: &str,
    limit: usize,
) -> Result<Vec<String>, ServiceError> {
    let mut statement = connection.prepare_cached(
        "SELECT uid FROM files WHERE is_search_input = 1 AND uploaded_at < ?1
         ORDER BY uploaded_at LIMIT ?2",
    )?;
    let uids = statement
        .query_map(params![cutoff, limit as i64], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(uids)
}
