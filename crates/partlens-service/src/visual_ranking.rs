//! The visual ranking of a company's files by query views, with a metadata filter resolved in the
//! form the visual library's path for the company takes it: what a search ranks by
//! ([`crate::search`]), and what a file is paired by when it is indexed ([`crate::pairing`]).

use partlens_api::FilterTerm;
use partlens_engine::ViewDescriptor;
use partlens_store::StoreTx;
use partlens_visual::{
    FileFilter, FilterForm, GuidSet, Ranked, StoreViews, ViewSearch, VisualLibrary,
};

use super::error::ServiceError;
use super::filter_scopes::{FilterScopes, Resolved, SELECTIVE_FILES};

/// How a graph search resolves its metadata filter: the files with views it selects, listed when at
/// most `selective` ([`SELECTIVE_FILES`]) (the search is restricted to them), else held by GUID
/// (the search's candidates are checked against them).
pub(crate) fn resolve_for_graph(
    tx: &mut dyn StoreTx,
    company_id: &str,
    terms: &[FilterTerm],
    selective: usize,
) -> Result<Resolved, ServiceError> {
    // One condition that many files hold is told from the index before anything is listed:
    // listing 20,001 files by name only to find there are too many took 1.3 s at a million
    // records. The index counts every file holding it (records without views too), so the files
    // with views it matches decide.
    if tx.one_condition_held_by_more_than(company_id, terms, selective)? {
        let matching = tx.matching_uids_with_views(company_id, terms)?;
        if matching.len() > selective {
            return Ok(Resolved::Broad {
                matching_with_views: GuidSet::new(matching),
            });
        }
    }
    let some = tx.some_matching_files_with_views(company_id, terms, selective + 1)?;
    Ok(if some.len() > selective {
        Resolved::Broad {
            matching_with_views: GuidSet::new(tx.matching_uids_with_views(company_id, terms)?),
        }
    } else {
        Resolved::Listed(some.into_iter().collect())
    })
}

/// Ranks the company's files that satisfy `terms` by visual similarity to `query_views`, with one
/// read connection: the metadata conditions are resolved in the form the library's path for the
/// company takes them ([`FilterForm`]: all of them listed for the exact scan; for a graph, listed
/// when they select at most [`SELECTIVE_FILES`] files, else held in memory to check the graph's
/// candidates against; the resolution kept in `scopes`, see there), and the library ranks and
/// counts.
/// Returns the best `limit` files and the number of matches.
pub fn rank_visually(
    tx: &mut dyn StoreTx,
    library: &VisualLibrary,
    scopes: &FilterScopes,
    company_id: &str,
    terms: &[FilterTerm],
    query_views: &[ViewDescriptor],
    limit: usize,
) -> Result<(Ranked, usize), ServiceError> {
    let resolved = if terms.is_empty() {
        None
    } else {
        let form = library.filter_form(company_id);
        let generation = tx.metadata_generation()?;
        Some(
            scopes.resolve(company_id, form, terms, generation, || match form {
                FilterForm::ListedWhenSelective => {
                    resolve_for_graph(&mut *tx, company_id, terms, SELECTIVE_FILES)
                }
                FilterForm::EveryMatchListed => {
                    let all = tx.matching_database_files(company_id, terms)?;
                    Ok(Resolved::Listed(
                        all.into_iter().map(|candidate| candidate.uid).collect(),
                    ))
                }
            })?,
        )
    };
    let filter = match resolved.as_deref() {
        None => FileFilter::Everything,
        Some(Resolved::Listed(allowed)) => FileFilter::Only(allowed),
        Some(Resolved::Broad {
            matching_with_views,
        }) => FileFilter::Among(matching_with_views),
    };
    let stored = StoreViews {
        tx: std::cell::RefCell::new(tx),
    };
    Ok(library.rank_and_count(company_id, query_views, filter, limit, &stored)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::large_library::{LibrarySpec, MATERIALS, generate};

    #[test]
    fn a_graph_search_lists_the_files_with_views_a_filter_selects_until_there_are_too_many() {
        for (store, _kept) in crate::test_stores::both() {
            let mut spec = LibrarySpec::new("Big", 120);
            spec.pool_pictures = 24;
            spec.text_only_records = 300;
            let generated = generate(&store, &spec, |_, _| {}).unwrap();
            let company = generated.company_id;
            let material = [FilterTerm::parse(&format!("material=[{}]", MATERIALS[0].0))];
            store
                .read_tx_blocking(|tx| -> Result<(), ServiceError> {
                    let matching = tx.matching_uids_with_views(&company, &material)?;
                    let with_views = matching.len();
                    let broad = || Resolved::Broad {
                        matching_with_views: GuidSet::new(&matching),
                    };
                    let held = tx.matching_database_files(&company, &material)?.len();
                    assert!(
                        with_views > 5 && held > 2 * with_views,
                        "{with_views} of {held}"
                    );
                    // More files hold the term than the limit, but few enough of them have views:
                    // those are listed, and only those.
                    let limit = with_views;
                    assert!(tx.one_condition_held_by_more_than(&company, &material, limit)?);
                    match resolve_for_graph(tx, &company, &material, limit)? {
                        Resolved::Listed(listed) => assert_eq!(listed.len(), with_views),
                        other => panic!("{}: {other:?}", tx.engine()),
                    }
                    // One file with views more than the limit: too many to restrict the graph's
                    // search to, held to check its candidates against.
                    assert_eq!(
                        resolve_for_graph(tx, &company, &material, with_views - 1)?,
                        broad()
                    );
                    // A filter of two conditions takes the listing, with the same outcome.
                    let two = [material[0].clone(), FilterTerm::parse("category=*")];
                    assert_eq!(
                        resolve_for_graph(tx, &company, &two, with_views - 1)?,
                        broad()
                    );
                    assert!(matches!(
                        resolve_for_graph(tx, &company, &two, with_views)?,
                        Resolved::Listed(listed) if listed.len() == with_views
                    ));
                    Ok(())
                })
                .unwrap();
        }
    }
}
