//! What the visual index is built from and kept in step with: the stored views of every company's
//! visually searched files (indexed database files with views), and the journal of changes to them.
//!
//! The journal is written by each engine's triggers whenever a view is stored or removed or a
//! file's state, role or company changes, in the same transaction as the change. An index records
//! the last journal position it includes; the files changed after it are read again from the store,
//! so the index matches the store whatever happened to the process in between.

use std::ops::ControlFlow;

use crate::error::StoreError;

/// A searched file's company and its stored views (descriptor bytes, one a view).
pub type CompanyViews = (String, Vec<Vec<u8>>);

/// A change the visual journal holds: the file, and the company whose index held or holds it
/// when the engine records it (PostgreSQL does; SQLite's journal, read by one process, does not).
pub type VisualChange = (String, Option<String>);

/// What is told each visually searched file and its stored views, in turn; it breaks to stop the
/// listing (the caller keeps why).
pub type EachSearchedFile<'a> = dyn FnMut(String, Vec<Vec<u8>>) -> ControlFlow<()> + 'a;

/// Hands `each` the files of `rows` (a file's UID and one of its views, ordered by file then view
/// position) one file at a time with all its views, never holding more than one file's.
pub fn by_file(
    rows: impl IntoIterator<Item = Result<(String, Vec<u8>), StoreError>>,
    each: &mut EachSearchedFile<'_>,
) -> Result<(), StoreError> {
    let mut current: Option<(String, Vec<Vec<u8>>)> = None;
    for row in rows {
        let (uid, descriptor) = row?;
        match &mut current {
            Some((last, views)) if *last == uid => views.push(descriptor),
            _ => {
                if let Some((last, views)) = current.take()
                    && each(last, views).is_break()
                {
                    return Ok(());
                }
                current = Some((uid, vec![descriptor]));
            }
        }
    }
    if let Some((last, views)) = current {
        let _ = each(last, views);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_handed_over_a_file_at_a_time_until_told_to_stop() {
        let rows = || {
            [("a", 1), ("a", 2), ("b", 3), ("c", 4)]
                .map(|(uid, view)| Ok((uid.to_owned(), vec![view])))
        };
        let mut seen = Vec::new();
        by_file(rows(), &mut |uid, views| {
            seen.push((uid, views));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                ("a".to_owned(), vec![vec![1], vec![2]]),
                ("b".to_owned(), vec![vec![3]]),
                ("c".to_owned(), vec![vec![4]]),
            ]
        );
        let mut first = Vec::new();
        by_file(rows(), &mut |uid, _| {
            first.push(uid);
            ControlFlow::Break(())
        })
        .unwrap();
        assert_eq!(first, ["a"]);
    }
}
