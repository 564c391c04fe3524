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
//! Limits: at most [`MOST_NEAREST_VIEWS`] views asked a query vector (pgvector's largest
//! `hnsw.ef_search`); the search goes on past views of other companies
//! (`hnsw.iterative_scan = relaxed_order`, pgvector 0.8) up to pgvector's
//! `hnsw.max_scan_tuples` (20,000 by default).

use std::collections::HashSet;
use std::fmt::Write as _;

use r2d2_postgres::postgres;

use super::PgTx;
use crate::error::StoreError;
use partlens_engine::{FEATURE_LEN, ViewDescriptor};

/// Features a vector of the table (its `halfvec` dimension, fixed by the schema).
const VECTOR_DIMENSIONS: usize = 256;

/// The most nearest views one query vector asks for (pgvector's largest `hnsw.ef_search`).
const MOST_NEAREST_VIEWS: usize = 1_000;

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
    /// product) in the HNSW index; `None` when the database has no vector index.
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
        // `SET LOCAL`: for this transaction only (a pooled connection goes on to other work).
        self.tx.batch_execute(&format!(
            "SET LOCAL hnsw.ef_search = {views_each}; SET LOCAL hnsw.iterative_scan = relaxed_order"
        ))?;
        let texts: Vec<String> = vectors
            .iter()
            .filter(|vector| vector.len() == VECTOR_DIMENSIONS)
            .map(|vector| vector_text(vector.iter().copied()))
            .collect();
        // Every query vector in one statement (a LATERAL index scan each), not a round trip each;
        // in the order asked, each vector's nearest first.
        let rows = self.tx.query(
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
        let mut seen = HashSet::new();
        let mut files = Vec::new();
        for row in &rows {
            let uid: String = row.try_get(0)?;
            if seen.insert(uid.clone()) {
                files.push(uid);
            }
        }
        Ok(Some(files))
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
