//! A large company searched through the database's own vector index (PostgreSQL with pgvector:
//! `store/postgres/view_vectors.rs`) instead of a graph each node builds: the index proposes the
//! files of the views nearest the query's, and the node scores those candidates exactly on its
//! exact index ([`VisualIndex::rank`], the scores and order of the exact scan), so what a user sees
//! is the exact scan's answer wherever the candidates hold it.
//!
//! Candidates, as the in-memory graph asks for them (`ann.rs`): the
//! [`AnnSettings::views_per_query_view`] nearest views of a one-view query, the
//! [`AnnSettings::views_per_view_of_several`] nearest of each view of a query of several and of
//! their mean, at least as many as the results wanted.
//!
//! A query of several views is taken only from
//! [`VisualSettings::several_through_index_from_views`] views of the company on: below, the exact
//! scan of its views is faster than the index's walks (one for each view and their mean).
//!
//! Taken only without a metadata filter ([`FileFilter::Everything`]): a listed filter restricts the
//! exact scan to its files (cost proportional to them), and a broad one is answered by the exact
//! scan too (the index cannot be asked for views of a set of files); a store without a vector index
//! ([`StoredViews::nearest_files`] says `None`) leaves the exact scan to answer.

use super::ann::mean_vector;
use super::{FileFilter, Ranked, StoredViews, VisualSettings};
#[cfg(doc)]
use crate::AnnSettings;
use crate::error::VisualError;
use partlens_engine::{ViewDescriptor, VisualIndex};

/// The query's views as the vectors the index holds (features as `f32`), with their mean when there
/// are several.
fn query_vectors(query: &[ViewDescriptor]) -> Vec<Vec<f32>> {
    let mut vectors: Vec<Vec<f32>> = query
        .iter()
        .map(|view| {
            view.features()
                .iter()
                .map(|&value| f32::from(value))
                .collect()
        })
        .collect();
    if vectors.len() > 1 {
        // Views of another descriptor (another length) are left out of the mean.
        let length = vectors[0].len();
        let same_length: Vec<Vec<f32>> = vectors
            .iter()
            .filter(|vector| vector.len() == length)
            .cloned()
            .collect();
        vectors.push(mean_vector(&same_length));
    }
    vectors
}

/// The company's best `limit` files and how many files the search matched (all of the company's),
/// through the store's vector index; `None` when this path does not apply (a filter, no vector
/// index in the store, several query views on a company of fewer views than
/// [`VisualSettings::several_through_index_from_views`]), and the exact scan answers.
pub(crate) fn rank_and_count(
    index: &VisualIndex,
    company: &str,
    query: &[ViewDescriptor],
    filter: FileFilter<'_>,
    limit: usize,
    stored: &dyn StoredViews,
    settings: &VisualSettings,
) -> Result<Option<(Ranked, usize)>, VisualError> {
    if !matches!(filter, FileFilter::Everything) || query.is_empty() || limit == 0 {
        return Ok(None);
    }
    if query.len() > 1 && index.view_count() < settings.several_through_index_from_views {
        return Ok(None);
    }
    let views_each = if query.len() == 1 {
        settings.ann.views_per_query_view
    } else {
        settings.ann.views_per_view_of_several
    }
    .max(limit);
    let Some(candidates) = stored.nearest_files(company, &query_vectors(query), views_each)? else {
        return Ok(None);
    };
    // The candidates looked up, not every file of the company asked whether it is one.
    let ranked = index.rank_listed(query, candidates.iter().map(String::as_str), limit);
    Ok(Some((ranked, index.len())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};

    #[test]
    fn several_query_views_add_their_mean() {
        let pool = SyntheticViews::analysed(4, 2).unwrap();
        let mut random = seeded(9);
        let views: Vec<ViewDescriptor> = (0..3).map(|i| pool.perturbed(i, &mut random)).collect();
        let vectors = query_vectors(&views);
        assert_eq!(vectors.len(), 4);
        let feature = 17;
        let mean = views
            .iter()
            .map(|view| f32::from(view.features()[feature]))
            .sum::<f32>()
            / 3.0;
        assert!((vectors[3][feature] - mean).abs() < 1e-3);
        assert_eq!(query_vectors(&views[..1]).len(), 1);
    }

    /// A store that proposes the given files.
    struct Proposing(Option<Vec<String>>);

    impl StoredViews for Proposing {
        fn views_of(
            &self,
            _uids: &[String],
        ) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError> {
            Ok(Vec::new())
        }

        fn nearest_files(
            &self,
            _company: &str,
            _vectors: &[Vec<f32>],
            _views_each: usize,
        ) -> Result<Option<Vec<String>>, VisualError> {
            Ok(self.0.clone())
        }
    }

    /// Six one-view files `file-0`…`file-5` of a synthetic pool, the pool and the random source
    /// the queries are drawn from.
    fn six_files(seed: u64) -> (VisualIndex, SyntheticViews, rand::rngs::StdRng) {
        let pool = SyntheticViews::analysed(6, 2).unwrap();
        let mut random = seeded(seed);
        let mut index = VisualIndex::new();
        for file in 0..6 {
            index.insert(
                format!("file-{file}"),
                vec![pool.perturbed(file, &mut random)],
            );
        }
        (index, pool, random)
    }

    #[test]
    fn candidates_are_scored_exactly_and_the_rest_left_out() {
        let (index, pool, mut random) = six_files(4);
        let query = vec![pool.perturbed(2, &mut random)];
        let exact = index.rank(&query, |_| true, 10);
        let proposing = Proposing(Some(vec!["file-2".into(), "file-4".into()]));
        let settings = VisualSettings::default();
        let (ranked, matched) = rank_and_count(
            &index,
            "company",
            &query,
            FileFilter::Everything,
            10,
            &proposing,
            &settings,
        )
        .unwrap()
        .unwrap();
        assert_eq!(matched, 6);
        let uids: Vec<&str> = ranked.iter().map(|(uid, _)| uid.as_str()).collect();
        assert_eq!(uids.len(), 2);
        assert!(uids.contains(&"file-2") && uids.contains(&"file-4"));
        for (uid, score) in &ranked {
            let (_, exact_score) = exact.iter().find(|(u, _)| u == uid).unwrap();
            assert_eq!(score, exact_score, "{uid} is scored exactly");
        }
        // No vector index, or a filter: the exact scan answers.
        let none = Proposing(None);
        let everything = FileFilter::Everything;
        assert!(
            rank_and_count(&index, "c", &query, everything, 10, &none, &settings)
                .unwrap()
                .is_none()
        );
        let listed: std::collections::HashSet<String> = ["file-1".to_owned()].into();
        let only = FileFilter::Only(&listed);
        assert!(
            rank_and_count(&index, "c", &query, only, 10, &proposing, &settings)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn several_query_views_go_through_the_index_only_from_the_settings_views_on() {
        let (index, pool, mut random) = six_files(5);
        let query: Vec<ViewDescriptor> = (0..3).map(|i| pool.perturbed(i, &mut random)).collect();
        let proposing = Proposing(Some(vec!["file-1".into()]));
        let asked = |from_views: usize, query: &[ViewDescriptor]| {
            let settings = VisualSettings {
                several_through_index_from_views: from_views,
                ..VisualSettings::default()
            };
            let everything = FileFilter::Everything;
            rank_and_count(&index, "c", query, everything, 10, &proposing, &settings).unwrap()
        };
        // The company has six views: from seven on the exact scan answers three query views,
        // from six on the index does.
        assert!(asked(7, &query).is_none());
        let (ranked, _) = asked(6, &query).unwrap();
        assert_eq!(ranked.len(), 1);
        // One query view goes through the index whatever the company's size.
        assert!(asked(7, &query[..1]).is_some());
    }
}
