//! The views' feature vectors in PostgreSQL's pgvector HNSW index (schema step 6): what a node asks
//! for the nearest views of a query instead of building its own graph of a large company (the
//! visual index's `store_vectors.rs`). The index only proposes candidate files; every score is still the
//! exact one, computed by the node.
//!
//! A row a view of a visually searched file (an indexed database file), written in the
//! transaction that stores the file's views (one statement for all of them), deleted with them (a
//! foreign key); a bulk load writes them at its end instead, and those of views stored without
//! them are filled in at start (`bulk_vectors.rs`). A query's vectors (a query of several views
//! asks each and their mean) are looked up in one statement. The vector is the
//! descriptor's features as stored (16-bit integers, at most 32,767 in magnitude: exact in
//! `halfvec`'s half precision up to its 11 significant bits, as the in-memory graph holds them,
//! see the visual index's `quantise.rs`). Views of another length (an older descriptor) get no row: the node
//! searches such a company by its exact scan.
//!
//! A query of several vectors asks them at once: pgvector walks its graph for one vector on one
//! core (three views and their mean are four walks of 800 views, about 15 ms each at 100,000
//! views), so each vector past the first is asked on a connection of the pool beside the search's
//! own transaction, when one is idle or can be opened at once, in a read-only transaction of its
//! own. The index only proposes candidates (every score is the node's), so another snapshot does
//! no harm. A vector no connection was found for, or whose connection failed, is asked in the
//! search's own transaction afterwards.
//!
//! Limits: at most [`MOST_NEAREST_VIEWS`] views asked a query vector (pgvector's largest
//! `hnsw.ef_search`); the search goes on past views of other companies
//! (`hnsw.iterative_scan = relaxed_order`, pgvector 0.8) up to pgvector's
//! `hnsw.max_scan_tuples` (20,000 by default); at most [`MOST_SIDE_SCANS`] connections of the pool
//! beside the search's own, each waited for at most [`SIDE_WAIT`] and only while the pool has one
//! idle or room for one.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::Duration;

use r2d2_postgres::postgres;

use super::{PgTx, Pool};
use crate::error::StoreError;
use partlens_engine::{FEATURE_LEN, ViewDescriptor};

/// Features a vector of the table (its `halfvec` dimension, fixed by the schema).
const VECTOR_DIMENSIONS: usize = 256;

/// The most nearest views one query vector asks for (pgvector's largest `hnsw.ef_search`).
const MOST_NEAREST_VIEWS: usize = 1_000;

/// Most connections of the pool one query asks beside its own transaction.
const MOST_SIDE_SCANS: usize = 3;

/// The longest a query waits for a connection to be opened beside its own (loopback: a few ms).
const SIDE_WAIT: Duration = Duration::from_millis(20);

/// The condition a file must meet to be searched visually (its alias in queries is `f`).
pub(super) const SEARCHED: &str = "NOT f.is_search_input AND f.state = 'completed'";

/// `features` in pgvector's text form (`[1,2,3]`).
fn vector_text(features: impl IntoIterator<Item = f32>) -> String {
    let mut text = String::with_capacity(VECTOR_DIMENSIONS * 7);
    text.push('[');
    for (index, value) in features.into_iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        // Whole numbers as stored; a query's mean vector has fractions. Writing into a `String`
        // does not fail.
        let _ = write!(text, "{value}");
    }
    text.push(']');
    text
}

/// The vector of a stored descriptor, or `None` when it has no place in the table (another length,
/// or unreadable: the exact index leaves such a file out too).
pub(super) fn stored_vector(descriptor: &[u8]) -> Option<String> {
    let view = ViewDescriptor::from_bytes(descriptor).ok()?;
    (view.features().len() == VECTOR_DIMENSIONS)
        .then(|| vector_text(view.features().iter().map(|&value| f32::from(value))))
}

/// True when the database has the table (pgvector was there when the schema was made).
pub(crate) fn table_exists(client: &mut impl postgres::GenericClient) -> Result<bool, StoreError> {
    Ok(client
        .query_one("SELECT to_regclass('view_vectors') IS NOT NULL", &[])?
        .try_get(0)?)
}

/// Writes the vectors of a file's stored views when it is searched visually (its views were just
/// written in this transaction), all in one statement (arrays unnested); the table must exist.
fn write_for_file(tx: &mut postgres::Transaction<'_>, uid: &str) -> Result<(), StoreError> {
    let rows = tx.query(
        &format!(
            "SELECT f.company_id, v.position, v.descriptor FROM files f
             JOIN views v ON v.file_uid = f.uid
             WHERE f.uid = $1 AND {SEARCHED} ORDER BY v.position"
        ),
        &[&uid],
    )?;
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let company: String = first.try_get(0)?;
    let (mut positions, mut vectors) = (Vec::new(), Vec::new());
    for row in &rows {
        let descriptor: Vec<u8> = row.try_get(2)?;
        if let Some(vector) = stored_vector(&descriptor) {
            positions.push(row.try_get::<_, i32>(1)?);
            vectors.push(vector);
        }
    }
    if positions.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO view_vectors (file_uid, position, company_id, embedding)
         SELECT $1, given.position, $2, given.vector::halfvec
         FROM unnest($3::integer[], $4::text[]) AS given(position, vector)
         ON CONFLICT (file_uid, position) DO UPDATE
         SET company_id = excluded.company_id, embedding = excluded.embedding",
        &[&uid, &company, &positions, &vectors],
    )?;
    Ok(())
}

impl PgTx<'_, '_> {
    /// Writes the vectors of file `uid`'s views (just stored in this transaction) when the schema
    /// has the table and the file is searched visually, unless a bulk load on this store writes
    /// them all at its end (`bulk_vectors.rs`).
    pub(super) fn write_view_vectors(&mut self, uid: &str) -> Result<(), StoreError> {
        if self.view_vectors && !self.vectors_deferred {
            write_for_file(self.tx, uid)?;
        }
        Ok(())
    }

    /// The files of `company` owning the `views_each` views nearest each of `vectors` (by inner
    /// product) in the HNSW index, each vector's in the order asked, nearest first (a file once);
    /// `None` when the database has no vector index.
    pub(super) fn nearest_files(
        &mut self,
        company: &str,
        vectors: &[Vec<f32>],
        views_each: usize,
    ) -> Result<Option<Vec<String>>, StoreError> {
        if !self.view_vectors {
            return Ok(None);
        }
        let views_each = views_each.clamp(1, MOST_NEAREST_VIEWS);
        let texts: Vec<String> = vectors
            .iter()
            .filter(|vector| vector.len() == VECTOR_DIMENSIONS)
            .map(|vector| vector_text(vector.iter().copied()))
            .collect();
        let (first, others) = texts.split_at(texts.len().min(1));
        let pool = self.pool;
        let tx = &mut *self.tx;
        let (found_first, beside) = std::thread::scope(|scope| {
            let asking: Vec<_> = match pool {
                Some(pool) => others
                    .iter()
                    .take(MOST_SIDE_SCANS)
                    .map(|text| {
                        scope.spawn(move || {
                            scan_beside(pool, company, std::slice::from_ref(text), views_each)
                        })
                    })
                    .collect(),
                None => Vec::new(),
            };
            let found_first = scan(tx, company, first, views_each);
            // A side scan that panicked counts as one never asked: it is asked here.
            let beside: Vec<Option<Vec<String>>> = asking
                .into_iter()
                .map(|asked| asked.join().ok().flatten())
                .collect();
            (found_first, beside)
        });
        let mut found = vec![found_first?];
        let mut beside = beside.into_iter();
        for text in others {
            match beside.next().flatten() {
                Some(files) => found.push(files),
                None => found.push(scan(tx, company, std::slice::from_ref(text), views_each)?),
            }
        }
        let mut seen = HashSet::new();
        Ok(Some(
            found
                .into_iter()
                .flatten()
                .filter(|uid| seen.insert(uid.clone()))
                .collect(),
        ))
    }
}

/// The files owning the `views_each` views of `company` nearest each of `texts` (vectors in text
/// form), in the order asked, each vector's nearest first: one statement in `tx` (a LATERAL index
/// scan a vector).
fn scan(
    tx: &mut postgres::Transaction<'_>,
    company: &str,
    texts: &[String],
    views_each: usize,
) -> Result<Vec<String>, StoreError> {
    if texts.is_empty() {
        return Ok(Vec::new());
    }
    // `SET LOCAL`: for this transaction only (a pooled connection goes on to other work).
    tx.batch_execute(&format!(
        "SET LOCAL hnsw.ef_search = {views_each}; SET LOCAL hnsw.iterative_scan = relaxed_order"
    ))?;
    let rows = tx.query(
        "SELECT nearest.file_uid
         FROM unnest($2::text[]) WITH ORDINALITY AS asked(vector, number)
         CROSS JOIN LATERAL (
             SELECT file_uid, embedding <#> asked.vector::halfvec AS distance
             FROM view_vectors WHERE company_id = $1
             ORDER BY embedding <#> asked.vector::halfvec LIMIT $3
         ) nearest
         ORDER BY asked.number, nearest.distance",
        &[&company, &texts, &(views_each as i64)],
    )?;
    rows.iter()
        .map(|row| Ok(row.try_get::<_, String>(0)?))
        .collect()
}

/// [`scan`] on a connection of `pool` beside the search's own, in a read-only transaction of its
/// own; `None` when no connection is idle and none can be opened within [`SIDE_WAIT`], or when
/// the scan fails there (the caller asks it in its own transaction).
fn scan_beside(
    pool: &Pool,
    company: &str,
    texts: &[String],
    views_each: usize,
) -> Option<Vec<String>> {
    let mut connection = pool.try_get().or_else(|| {
        (pool.state().connections < pool.max_size())
            .then(|| pool.get_timeout(SIDE_WAIT).ok())
            .flatten()
    })?;
    let asked = (|| -> Result<Vec<String>, StoreError> {
        let mut tx = connection.build_transaction().read_only(true).start()?;
        let found = scan(&mut tx, company, texts, views_each)?;
        tx.commit()?;
        Ok(found)
    })();
    match asked {
        Ok(found) => Some(found),
        Err(error) => {
            tracing::debug!(%error, "a nearest-views scan beside the search failed; asked again in it");
            None
        }
    }
}

/// The schema's vector dimension is the descriptor's feature length.
const _: () = assert!(FEATURE_LEN == VECTOR_DIMENSIONS);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_written_in_pgvector_text_form() {
        assert_eq!(vector_text([1.0, -2.0, 0.5]), "[1,-2,0.5]");
        assert_eq!(vector_text([]), "[]");
    }

    #[test]
    fn a_damaged_or_foreign_descriptor_has_no_vector() {
        assert!(stored_vector(b"not a descriptor").is_none());
    }
}
