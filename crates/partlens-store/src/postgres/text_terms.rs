//! The term index of the search text on PostgreSQL (schema step 7), which free-text words of three
//! characters or more go through (why terms, and why it is exact: [`crate::model::search_text`]):
//! the distinct whitespace-separated terms of every file's search text
//! (`search_terms`), the trigrams of each term (`search_term_trigrams`: PostgreSQL's `pg_trgm` is
//! not needed, and the server the tests use has none) and which files hold each term
//! (`search_postings`).
//!
//! A word is looked up as: the terms holding the word's rarest trigram (`search_trigram_counts`),
//! checked with `strpos`, then their files. Substring, not approximate: a
//! query word has no whitespace, so it occurs in a search text exactly when it occurs in one of its
//! terms.
//!
//! Kept in step in the transaction that changes the search text ([`index_file`], from
//! `refresh_search_text`); a deleted file's postings go with it (a foreign key), and a term no file
//! holds any longer is deleted when a file that held it changes (terms left by deleted files are
//! harmless: they lead to no file). Files stored before this step (or copied in by `migrate`) are
//! indexed when a node starts ([`fill_missing`]).
//!
//! Limits: bounded by the search text (see the model): one row a distinct term of a file, one a
//! distinct trigram of a new term.

use std::collections::{BTreeMap, BTreeSet};

use r2d2_postgres::postgres::{self, Client};

use crate::error::StoreError;
use crate::model::search_text::terms_of;

/// Files indexed in one transaction at start. Each file's postings add to the counts of their
/// terms' rows (schema step 10), and a row changed many times in one transaction grows a chain of
/// versions each change walks: 2,000 files of 24 terms took 1.25 s without the counts, 1.41 s
/// with them a file a transaction, 1.54 s a hundred files a transaction, 2.18 s five hundred.
const FILL_BATCH_FILES: i64 = 100;

/// The distinct trigrams (three consecutive characters) of `text`; none when it is shorter.
pub(crate) fn trigrams_of(text: &str) -> BTreeSet<String> {
    let characters: Vec<char> = text.chars().collect();
    characters
        .windows(3)
        .map(|window| window.iter().collect())
        .collect()
}

/// The rarest of `trigrams` among the terms (`search_trigram_counts`; ties by trigram), or `None`
/// when a trigram is held by no term (then no term holds a word that has it).
pub(crate) fn rarest_trigram(
    client: &mut impl postgres::GenericClient,
    trigrams: &[String],
) -> Result<Option<String>, StoreError> {
    let counted = client.query(
        "SELECT trigram FROM search_trigram_counts
         WHERE trigram = ANY($1) AND terms > 0 ORDER BY terms, trigram",
        &[&trigrams],
    )?;
    if counted.len() < trigrams.len() {
        return Ok(None);
    }
    Ok(counted.first().map(|row| row.try_get(0)).transpose()?)
}

/// The ids of the terms holding `word`, found through its rarest trigram ([`rarest_trigram`]; a
/// trigram of every part number, such as `000`, is in most terms of a large library): the terms
/// holding that trigram, each checked with `strpos`. The trigram's terms are given to the terms'
/// index as one array, which reads them in the order of their ids (5,197 terms of a trigram of
/// part numbers: 12–15 ms, against 18–36 ms for a sub-select of each term's text; 48 against 108
/// ms for 40,694). With a join the planner took `strpos` to keep a third of all terms and scanned
/// them all (47 ms at 100,000 records, against 7 ms).
///
/// Read before the files, in a statement of its own: given as an array of ids, the terms' files
/// are estimated from the postings' statistics (a word in every record: 97,543 of 100,000), where
/// a sub-select of the terms left the planner to guess (6,432), and it chose to look up each of the
/// 100,000 files by key (0.9 s) instead of walking the files in name order (4 ms).
pub(crate) fn terms_holding_word(
    client: &mut impl postgres::GenericClient,
    word: &str,
    trigram: &str,
) -> Result<Vec<i64>, StoreError> {
    client
        .query(
            "SELECT t.id FROM search_terms t
             WHERE t.id = ANY(ARRAY(SELECT g.term_id FROM search_term_trigrams g WHERE g.trigram = $1))
               AND strpos(t.term, $2) > 0",
            &[&trigram, &word],
        )?
        .iter()
        .map(|row| Ok(row.try_get(0)?))
        .collect()
}

/// The ids of `terms` by term, the new ones added with their trigrams: four statements whatever
/// the number of terms (a file's, or a bulk load's batch: `bulk_records.rs`).
pub(super) fn term_ids(
    tx: &mut postgres::Transaction<'_>,
    terms: &[&str],
) -> Result<BTreeMap<String, i64>, StoreError> {
    let added: Vec<(i64, String)> = tx
        .query(
            "INSERT INTO search_terms (term) SELECT unnest($1::text[])
             ON CONFLICT (term) DO NOTHING RETURNING id, term",
            &[&terms],
        )?
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<Result<_, StoreError>>()?;
    if !added.is_empty() {
        let (mut trigrams, mut owners) = (Vec::new(), Vec::new());
        for (id, term) in &added {
            for trigram in trigrams_of(term) {
                trigrams.push(trigram);
                owners.push(*id);
            }
        }
        tx.execute(
            "INSERT INTO search_term_trigrams (trigram, term_id)
             SELECT * FROM unnest($1::text[], $2::bigint[])",
            &[&trigrams, &owners],
        )?;
        tx.execute(
            "INSERT INTO search_trigram_counts (trigram, terms)
             SELECT trigram, count(*) FROM unnest($1::text[]) AS trigram GROUP BY trigram
             ON CONFLICT (trigram) DO UPDATE
             SET terms = search_trigram_counts.terms + excluded.terms",
            &[&trigrams],
        )?;
    }
    tx.query(
        "SELECT term, id FROM search_terms WHERE term = ANY($1)",
        &[&terms],
    )?
    .iter()
    .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
    .collect()
}

/// Brings the term index of file `uid` in line with `search_text` (its new, lower-cased search
/// text): postings of terms it no longer holds are deleted (and such terms when no file holds
/// them), postings of new terms added.
pub(crate) fn index_file(
    tx: &mut postgres::Transaction<'_>,
    uid: &str,
    search_text: &str,
) -> Result<(), StoreError> {
    let old: BTreeSet<i64> = tx
        .query(
            "SELECT term_id FROM search_postings WHERE file_uid = $1",
            &[&uid],
        )?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    let terms: Vec<&str> = terms_of(search_text).into_iter().collect();
    let new: BTreeSet<i64> = term_ids(tx, &terms)?.into_values().collect();
    let gone: Vec<i64> = old.difference(&new).copied().collect();
    let added: Vec<i64> = new.difference(&old).copied().collect();
    if !gone.is_empty() {
        tx.execute(
            "DELETE FROM search_postings WHERE file_uid = $1 AND term_id = ANY($2)",
            &[&uid, &gone],
        )?;
        let forgotten: Vec<String> = tx
            .query(
                "DELETE FROM search_terms t WHERE t.id = ANY($1)
                   AND NOT EXISTS (SELECT 1 FROM search_postings p WHERE p.term_id = t.id)
                 RETURNING t.term",
                &[&gone],
            )?
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?;
        let trigrams: Vec<String> = forgotten
            .iter()
            .flat_map(|term| trigrams_of(term))
            .collect();
        if !trigrams.is_empty() {
            tx.execute(
                "UPDATE search_trigram_counts c SET terms = c.terms - gone.terms
                 FROM (SELECT trigram, count(*) AS terms FROM unnest($1::text[]) AS trigram
                       GROUP BY trigram) gone
                 WHERE c.trigram = gone.trigram",
                &[&trigrams],
            )?;
        }
    }
    if !added.is_empty() {
        tx.execute(
            "INSERT INTO search_postings (term_id, file_uid) SELECT unnest($1::bigint[]), $2
             ON CONFLICT DO NOTHING",
            &[&added, &uid],
        )?;
    }
    Ok(())
}

/// Indexes the files whose search text has no postings yet (stored before schema step 7, or
/// copied in), a batch a transaction; returns how many.
pub(crate) fn fill_missing(client: &mut Client) -> Result<usize, StoreError> {
    let mut filled = 0;
    let mut after = String::new();
    loop {
        let mut tx = client.transaction()?;
        // A writer like any other (`mod.rs`): the trigram and row counts it adds to are rows the
        // writers of other nodes change too.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&super::WRITER_LOCK])?;
        let files: Vec<(String, String)> = tx
            .query(
                "SELECT f.uid, f.search_text FROM files f
                 WHERE f.uid > $1 AND f.search_text <> ''
                   AND NOT EXISTS (SELECT 1 FROM search_postings p WHERE p.file_uid = f.uid)
                 ORDER BY f.uid LIMIT $2",
                &[&after, &FILL_BATCH_FILES],
            )?
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, StoreError>>()?;
        let Some((last, _)) = files.last() else {
            tx.commit()?;
            return Ok(filled);
        };
        after = last.clone();
        for (uid, search_text) in &files {
            index_file(&mut tx, uid, search_text)?;
        }
        tx.commit()?;
        filled += files.len();
        if filled % 20_000 < FILL_BATCH_FILES as usize {
            tracing::info!(
                filled,
                "free-text terms indexed for files stored before them"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigrams_are_the_distinct_windows_of_three_characters() {
        let found: Vec<String> = trigrams_of("abcab").into_iter().collect();
        assert_eq!(found, ["abc", "bca", "cab"]);
        assert!(trigrams_of("ab").is_empty());
        // Characters, not bytes.
        assert_eq!(trigrams_of("äöüß").len(), 2);
    }
}
