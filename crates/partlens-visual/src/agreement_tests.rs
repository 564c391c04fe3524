//! The approximate search against the exact scan on small libraries: the same answers through
//! inserts, deletes, re-uploads and every kind of filter; a saved graph that loads back the same,
//! refuses damage and ignores what a killed save left; a graph brought up to date from the journal
//! after changes it never saw (a kill after they were committed).

use std::collections::{HashMap, HashSet};

use super::ann::{AnnIndex, AnnSettings};
use super::{
    AnnSearch, ExactScan, FileFilter, FilterForm, GuidSet, StoredViews, ViewSearch, VisualLibrary,
    VisualSettings, snapshot,
};
use partlens_engine::ViewDescriptor;
use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};

const COMPANY: &str = "7d0b4f1e-0000-4000-8000-000000000001";

fn pool() -> SyntheticViews {
    let pictures = partlens_engine::samples::parts::PART_NAMES.len();
    SyntheticViews::analysed(pictures, 2).unwrap()
}

fn uid(number: usize) -> String {
    format!("00000000-0000-4000-8000-{number:012x}")
}

/// A library of `files` files of 1 to 3 views, perturbed from the pool.
fn library(pool: &SyntheticViews, files: usize, seed: u64) -> HashMap<String, Vec<ViewDescriptor>> {
    let mut random = seeded(seed);
    (0..files)
        .map(|number| {
            let views = 1 + number % 3;
            (uid(number), pool.file_views(number, views, &mut random))
        })
        .collect()
}

fn queries(pool: &SyntheticViews, seed: u64) -> Vec<Vec<ViewDescriptor>> {
    let mut random = seeded(seed);
    (0..12)
        .map(|query| pool.file_views(query * 5, 1 + query % 3, &mut random))
        .collect()
}

/// Settings under which the graph returns every view, so any difference from the exact scan is a
/// bookkeeping fault (keys, slots, deletes, re-ranking, filters), not an approximation.
fn exhaustive() -> AnnSettings {
    AnnSettings {
        views_per_query_view: 10_000,
        views_per_view_of_several: 10_000,
        direct_views: 0,
        ..AnnSettings::default()
    }
}

fn both(
    files: &HashMap<String, Vec<ViewDescriptor>>,
    settings: AnnSettings,
) -> (ExactScan, AnnSearch) {
    let mut exact = ExactScan::new();
    let mut approximate = AnnSearch::new(settings);
    let mut ordered: Vec<(&String, &Vec<ViewDescriptor>)> = files.iter().collect();
    ordered.sort_by(|a, b| a.0.cmp(b.0));
    for (uid, views) in ordered {
        exact.insert(COMPANY, uid, views).unwrap();
        approximate.insert(COMPANY, uid, views).unwrap();
    }
    (exact, approximate)
}

fn assert_agree(
    exact: &dyn ViewSearch,
    approximate: &dyn ViewSearch,
    stored: &HashMap<String, Vec<ViewDescriptor>>,
    queries: &[Vec<ViewDescriptor>],
) {
    let listed: HashSet<String> = stored
        .keys()
        .filter(|uid| uid.ends_with(['1', '5', '9']))
        .cloned()
        .collect();
    let few: HashSet<String> = stored.keys().take(3).cloned().collect();
    let even = GuidSet::new(
        stored
            .keys()
            .filter(|uid| uid.ends_with(['0', '2', '4', '6', '8'])),
    );
    for (number, query) in queries.iter().enumerate() {
        for (label, filter) in [
            ("everything", FileFilter::Everything),
            ("listed", FileFilter::Only(&listed)),
            ("few", FileFilter::Only(&few)),
            ("among", FileFilter::Among(&even)),
        ] {
            let want = exact.rank(COMPANY, query, filter, 10, stored).unwrap();
            let got = approximate
                .rank(COMPANY, query, filter, 10, stored)
                .unwrap();
            assert_eq!(got, want, "query {number}, filter {label}");
            assert!(
                !want.is_empty() || label == "few",
                "query {number}, filter {label}"
            );
        }
    }
}

#[test]
fn the_graph_answers_like_the_exact_scan_through_deletes_and_re_uploads() {
    let pool = pool();
    let mut files = library(&pool, 240, 1);
    let queries = queries(&pool, 2);
    let (mut exact, mut approximate) = both(&files, exhaustive());
    assert_eq!(approximate.view_count(COMPANY), exact.view_count(COMPANY));
    assert_agree(&exact, &approximate, &files, &queries);

    // Deletes and re-uploads (new views under the same UID), then a few new files.
    let mut random = seeded(3);
    for number in (0..240).step_by(4) {
        let uid = uid(number);
        if number % 8 == 0 {
            files.remove(&uid);
            exact.remove(COMPANY, &uid).unwrap();
            approximate.remove(COMPANY, &uid).unwrap();
        } else {
            let views = pool.file_views(number + 7, 1 + number % 2, &mut random);
            exact.insert(COMPANY, &uid, &views).unwrap();
            approximate.insert(COMPANY, &uid, &views).unwrap();
            files.insert(uid, views);
        }
    }
    for number in 240..260 {
        let views = pool.file_views(number, 2, &mut random);
        exact.insert(COMPANY, &uid(number), &views).unwrap();
        approximate.insert(COMPANY, &uid(number), &views).unwrap();
        files.insert(uid(number), views);
    }
    assert_eq!(approximate.file_count(COMPANY), files.len());
    assert_eq!(approximate.view_count(COMPANY), exact.view_count(COMPANY));
    assert_agree(&exact, &approximate, &files, &queries);
    // Another company sees nothing of these.
    assert!(
        approximate
            .rank("other", &queries[0], FileFilter::Everything, 10, &files)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn both_paths_rank_and_count_the_same_matches_and_the_library_takes_the_filter_its_path_wants() {
    let pool = pool();
    let files = library(&pool, 240, 11);
    let queries = queries(&pool, 12);
    let (exact, approximate) = both(&files, exhaustive());
    assert_eq!(exact.filter_form(COMPANY), FilterForm::EveryMatchListed);
    assert_eq!(
        approximate.filter_form(COMPANY),
        FilterForm::ListedWhenSelective
    );
    let listed: HashSet<String> = files
        .keys()
        .filter(|uid| uid.ends_with(['1', '5', '9']))
        .cloned()
        .collect();
    let odd = GuidSet::new(
        files
            .keys()
            .filter(|uid| uid.ends_with(['1', '3', '5', '7', '9'])),
    );
    for (number, query) in queries.iter().enumerate() {
        for (label, filter, matches) in [
            ("everything", FileFilter::Everything, files.len()),
            ("listed", FileFilter::Only(&listed), listed.len()),
            ("among", FileFilter::Among(&odd), odd.len()),
        ] {
            let want = exact.rank(COMPANY, query, filter, 10, &files).unwrap();
            for (path, search) in [
                ("exact", &exact as &dyn ViewSearch),
                ("graph", &approximate),
            ] {
                let (ranked, counted) = search
                    .rank_and_count(COMPANY, query, filter, 10, &files)
                    .unwrap();
                assert_eq!(ranked, want, "{path}: query {number}, filter {label}");
                assert_eq!(counted, matches, "{path}: query {number}, filter {label}");
            }
        }
    }

    // The library ranks through the exact scan until the company has a graph, then through it.
    let mut visual = VisualLibrary::new(VisualSettings::default());
    let mut ordered: Vec<(String, Vec<ViewDescriptor>)> = files.clone().into_iter().collect();
    ordered.sort_by(|a, b| a.0.cmp(&b.0));
    for (uid, views) in &ordered {
        visual.insert(COMPANY, uid, views).unwrap();
    }
    assert_eq!(visual.filter_form(COMPANY), FilterForm::EveryMatchListed);
    let graph = AnnIndex::build(&ordered, exhaustive(), 2).unwrap().unwrap();
    visual.install_graph(COMPANY, graph, None, 0);
    assert_eq!(visual.filter_form(COMPANY), FilterForm::ListedWhenSelective);
    let filter = FileFilter::Only(&listed);
    let want = exact
        .rank(COMPANY, &queries[0], filter, 10, &files)
        .unwrap();
    assert_eq!(
        visual
            .rank_and_count(COMPANY, &queries[0], filter, 10, &files)
            .unwrap(),
        (want, listed.len())
    );
}

#[test]
fn with_few_candidates_the_graph_still_finds_the_exact_best_files() {
    let pool = pool();
    let files = library(&pool, 400, 4);
    let queries = queries(&pool, 5);
    let settings = AnnSettings {
        views_per_query_view: 60,
        views_per_view_of_several: 60,
        direct_views: 200,
        ..AnnSettings::default()
    };
    let (exact, approximate) = both(&files, settings);
    let listed: HashSet<String> = files
        .keys()
        .filter(|uid| uid.ends_with(['3', '7']))
        .cloned()
        .collect();
    let mut found = 0;
    let mut wanted = 0;
    for query in &queries {
        for filter in [FileFilter::Everything, FileFilter::Only(&listed)] {
            let want = exact.rank(COMPANY, query, filter, 10, &files).unwrap();
            let got = approximate
                .rank(COMPANY, query, filter, 10, &files)
                .unwrap();
            // Every score shown is the exact score of that file.
            let exact_scores: HashMap<String, f32> = exact
                .rank(COMPANY, query, filter, usize::MAX, &files)
                .unwrap()
                .into_iter()
                .collect();
            for (uid, score) in &got {
                assert_eq!(exact_scores.get(uid), Some(score));
            }
            let truth: HashSet<&String> = want.iter().map(|(uid, _)| uid).collect();
            wanted += truth.len();
            found += got.iter().filter(|(uid, _)| truth.contains(uid)).count();
        }
    }
    let recall = found as f64 / wanted as f64;
    assert!(recall >= 0.95, "recall@10 {recall}");
}

#[test]
fn a_long_list_of_files_is_found_and_estimated_on_several_threads_and_answers_like_the_exact_scan()
{
    let pool = pool();
    let files = library(&pool, 2_400, 8);
    let queries = queries(&pool, 9);
    let (exact, approximate) = both(&files, AnnSettings::default());
    let mut listed: HashSet<String> = files
        .keys()
        .filter(|uid| !uid.ends_with('0'))
        .cloned()
        .collect();
    let held = listed.len();
    assert!(held >= super::ann::PARALLEL_FROM_FILES, "{held} listed");
    // Neither a file the graph does not hold nor a word that is not a GUID is counted or found.
    listed.insert(uid(99_999));
    listed.insert("not a guid".to_owned());
    let index = approximate.graphs().company(COMPANY).unwrap();
    assert_eq!(index.count_listed(&listed), held);
    for (number, query) in queries.iter().enumerate() {
        let filter = FileFilter::Only(&listed);
        let want = exact.rank(COMPANY, query, filter, 10, &files).unwrap();
        let got = approximate
            .rank(COMPANY, query, filter, 10, &files)
            .unwrap();
        assert_eq!(want.len(), 10, "query {number}");
        assert_eq!(got, want, "query {number}");
        // Counted on the way as the separate count counts them.
        let (counted, held_counted) = index.rank_counted(query, filter, 10, &files).unwrap();
        assert_eq!(counted, want, "query {number}");
        assert_eq!(held_counted, Some(held), "query {number}");
    }
    let (_, unlisted) = index
        .rank_counted(&queries[0], FileFilter::Everything, 10, &files)
        .unwrap();
    assert_eq!(unlisted, None, "nothing listed, nothing counted");
}

#[test]
fn a_saved_graph_loads_back_the_same_and_damage_is_refused() {
    let pool = pool();
    let files = library(&pool, 120, 6);
    let queries = queries(&pool, 7);
    let mut ordered: Vec<(String, Vec<ViewDescriptor>)> = files.clone().into_iter().collect();
    ordered.sort_by(|a, b| a.0.cmp(&b.0));
    let mut index = AnnIndex::build(&ordered, exhaustive(), 2).unwrap().unwrap();
    // A hole in the slots (a deleted file) must survive the round trip.
    index.remove(&uid(5)).unwrap();
    let mut stored = files.clone();
    stored.remove(&uid(5));
    let folder = tempfile::tempdir().unwrap();
    snapshot::save(folder.path(), COMPANY, &index, 42).unwrap();
    // What a save killed half-way leaves: a graph file nobody names and a temporary table.
    std::fs::write(
        folder
            .path()
            .join(format!("{COMPANY}-00000000000000ff.graph")),
        b"half",
    )
    .unwrap();
    std::fs::write(
        folder.path().join(format!(".{COMPANY}.files.00ff.tmp")),
        b"half",
    )
    .unwrap();
    let loaded = snapshot::load(folder.path(), COMPANY).unwrap().unwrap();
    assert_eq!(loaded.journal_position, 42);
    assert_eq!(loaded.index.file_count(), index.file_count());
    assert_eq!(loaded.index.view_count(), index.view_count());
    for query in &queries {
        assert_eq!(
            loaded
                .index
                .rank(query, FileFilter::Everything, 10, &stored)
                .unwrap(),
            index
                .rank(query, FileFilter::Everything, 10, &stored)
                .unwrap()
        );
    }
    let names: Vec<String> = std::fs::read_dir(folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names.len(),
        4,
        "left-overs of a killed save are removed: {names:?}"
    );

    // A flipped byte in the table is refused; no snapshot at all is `None`.
    let table = folder.path().join(format!("{COMPANY}.files"));
    let mut bytes = std::fs::read(&table).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&table, &bytes).unwrap();
    assert!(snapshot::load(folder.path(), COMPANY).is_err());
    snapshot::discard(folder.path(), COMPANY).unwrap();
    assert!(snapshot::load(folder.path(), COMPANY).unwrap().is_none());
    assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 0);
}

#[test]
fn files_the_graph_cannot_key_are_refused() {
    let pool = pool();
    let mut random = seeded(8);
    let views = pool.file_views(0, 1, &mut random);
    let mut approximate = AnnSearch::new(AnnSettings::default());
    assert!(approximate.insert(COMPANY, "not-a-guid", &views).is_err());
    approximate.insert(COMPANY, &uid(1), &views).unwrap();
    assert_eq!(approximate.file_count(COMPANY), 1);
    // Removing what is not there is no error.
    approximate.remove(COMPANY, &uid(2)).unwrap();
    approximate.remove(COMPANY, "not-a-guid").unwrap();
}

#[test]
fn a_multi_view_query_finds_the_file_best_for_its_views_together() {
    // Two unlike query views A and B; many one-view files near each of them; one file "between"
    // them (their blend). The blend is nearest to neither view alone, but best for both together
    // (a one-view file's score is the mean of its similarities to the query views).
    let pool = pool();
    let a = pool.base(0).clone();
    let b = pool.base(1).clone();
    let mut random = seeded(21);
    let mut files: HashMap<String, Vec<ViewDescriptor>> = HashMap::new();
    for number in 0..60 {
        let near = if number % 2 == 0 { &a } else { &b };
        let noise: Vec<f32> = (0..97)
            .map(|_| rand::RngExt::random_range(&mut random, -1.0..1.0))
            .collect();
        files.insert(uid(number), vec![near.perturbed(&noise, 0.02, &[])]);
    }
    let between = uid(1000);
    files.insert(between.clone(), vec![a.blended(1.0, &[(&b, 1.0)])]);
    let query = vec![a.clone(), b.clone()];
    let settings = AnnSettings {
        views_per_query_view: 5,
        views_per_view_of_several: 5,
        direct_views: 0,
        ..AnnSettings::default()
    };
    let (exact, approximate) = both(&files, settings);
    let want = exact
        .rank(COMPANY, &query, FileFilter::Everything, 1, &files)
        .unwrap();
    assert_eq!(want.first().map(|(uid, _)| uid), Some(&between));
    // Neither view alone has it among its five nearest files...
    for view in &query {
        let alone = exact
            .rank(
                COMPANY,
                std::slice::from_ref(view),
                FileFilter::Everything,
                5,
                &files,
            )
            .unwrap();
        assert!(alone.iter().all(|(uid, _)| uid != &between));
    }
    // ...but the graph, asked for five views a query view, finds it first.
    let got = approximate
        .rank(COMPANY, &query, FileFilter::Everything, 1, &files)
        .unwrap();
    assert_eq!(got, want);
}

/// `count` files from the pool: models of 163 views, flat models of 211 and pictures in turn.
fn models_and_pictures(
    pool: &SyntheticViews,
    count: usize,
    seed: u64,
) -> Vec<(String, Vec<ViewDescriptor>)> {
    use partlens_engine::mesh::{VIEWS_PER_FLAT_MODEL, VIEWS_PER_MODEL};
    let mut random = seeded(seed);
    (0..count)
        .map(|number| {
            let views = match number % 4 {
                0 => return (uid(number), pool.file_views(number, 1, &mut random)),
                1 => VIEWS_PER_FLAT_MODEL,
                _ => VIEWS_PER_MODEL,
            };
            // A model's views carry its D2 distribution, so a search by pictures scores it on
            // the views each picture matches best (the deciding views read from the store).
            let model = pool
                .file_views(number, views, &mut random)
                .into_iter()
                .map(|view| view.with_shape(Some(mesh_shape())))
                .collect();
            (uid(number), model)
        })
        .collect()
}

/// A D2 distribution (any: what matters is that a model's views carry one).
fn mesh_shape() -> partlens_engine::ShapeDistribution {
    let mut bytes = vec![0_u8; partlens_engine::ShapeDistribution::STORED_LEN];
    bytes[..2].copy_from_slice(&u16::MAX.to_le_bytes());
    partlens_engine::ShapeDistribution::from_bytes(&bytes).unwrap()
}

#[test]
fn a_graph_of_models_spread_views_scores_all_of_them_and_loads_back() {
    let pool = pool();
    let mut ordered = models_and_pictures(&pool, 24, 31);
    let spread = AnnSettings {
        graph_directions: 92,
        ..exhaustive()
    };
    let mut index = AnnIndex::build(&ordered, spread, 2).unwrap().unwrap();
    let whole = AnnIndex::build(&ordered, exhaustive(), 2).unwrap().unwrap();
    assert_eq!(index.view_count(), whole.view_count());
    // 6 pictures, 18 models of 93 views in the graph: the rest beside it.
    assert_eq!(index.graph().size(), 6 + 18 * 93);
    // A model replaced by new views and another removed: the views beside follow.
    let mut random = seeded(32);
    ordered[2].1 = pool
        .file_views(77, ordered[2].1.len(), &mut random)
        .into_iter()
        .map(|view| view.with_shape(Some(mesh_shape())))
        .collect();
    index.insert(&ordered[2].0, &ordered[2].1).unwrap();
    index.remove(&ordered[5].0).unwrap();
    ordered.remove(5);
    let stored: HashMap<String, Vec<ViewDescriptor>> = ordered.iter().cloned().collect();
    let mut exact = ExactScan::new();
    for (uid, views) in &ordered {
        exact.insert(COMPANY, uid, views).unwrap();
    }
    let folder = tempfile::tempdir().unwrap();
    snapshot::save(folder.path(), COMPANY, &index, 7).unwrap();
    let loaded = snapshot::load(folder.path(), COMPANY)
        .unwrap()
        .unwrap()
        .index;
    assert_eq!(loaded.view_count(), index.view_count());
    // A snapshot saved before the graph held its files' views: loads holding none, and reads its
    // candidates from the store.
    let held_file = saved_file(folder.path(), "held");
    let held_bytes = std::fs::read(&held_file).unwrap();
    std::fs::remove_file(&held_file).unwrap();
    let unheld = snapshot::load(folder.path(), COMPANY)
        .unwrap()
        .unwrap()
        .index;
    std::fs::write(&held_file, &held_bytes).unwrap();
    // Every file is a candidate (the settings return every view). The ranking is the exact scan's
    // to the bit, before and after the round trip. The graph that holds its files scores them from
    // its own vectors and reads nothing from the store; the one that does not reads a model's views
    // that decide it, far fewer than the models have (for one query view a few of each model's 163
    // or 211; more for several, and where a model's views tie within the estimates' rounding:
    // these synthetic models repeat their pictures).
    let counting = Counting {
        stored: &stored,
        views: std::cell::Cell::new(0),
    };
    let library_views: usize = ordered.iter().map(|(_, views)| views.len()).sum();
    for query in queries(&pool, 33) {
        let want = exact
            .rank(COMPANY, &query, FileFilter::Everything, 30, &stored)
            .unwrap();
        assert_eq!(want.len(), 23);
        for (searched, holds) in [(&index, true), (&loaded, true), (&unheld, false)] {
            counting.views.set(0);
            let got = searched
                .rank(&query, FileFilter::Everything, 30, &counting)
                .unwrap();
            assert_eq!(got, want);
            let read = counting.views.get();
            if holds {
                assert_eq!(
                    read, 0,
                    "views read from the store by a graph that holds them"
                );
            } else {
                assert!(
                    read > 0 && read < library_views / 5,
                    "{read} of {library_views} views read"
                );
            }
        }
    }
    // A held view cut short is refused (the graph is built again).
    std::fs::write(&held_file, &held_bytes[..held_bytes.len() - 1]).unwrap();
    assert!(snapshot::load(folder.path(), COMPANY).is_err());
    std::fs::write(&held_file, &held_bytes).unwrap();
    // Vectors beside the graph cut short are refused (the graph is built again).
    let beside = saved_file(folder.path(), "beside");
    let bytes = std::fs::read(&beside).unwrap();
    std::fs::write(&beside, &bytes[..bytes.len() - 2]).unwrap();
    assert!(snapshot::load(folder.path(), COMPANY).is_err());
}

/// The file of a saved graph in `folder` whose name ends in `.extension`.
fn saved_file(folder: &std::path::Path, extension: &str) -> std::path::PathBuf {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|found| found == extension))
        .unwrap()
}

/// Stored views that count how many views they hand out.
struct Counting<'a> {
    stored: &'a HashMap<String, Vec<ViewDescriptor>>,
    views: std::cell::Cell<usize>,
}

impl StoredViews for Counting<'_> {
    fn views_of(
        &self,
        uids: &[String],
    ) -> Result<Vec<(String, Vec<ViewDescriptor>)>, super::VisualError> {
        let read = self.stored.views_of(uids)?;
        self.views
            .set(self.views.get() + read.iter().map(|(_, views)| views.len()).sum::<usize>());
        Ok(read)
    }

    fn views_at(
        &self,
        wanted: &[(String, Vec<u32>)],
    ) -> Result<Vec<(String, Vec<ViewDescriptor>)>, super::VisualError> {
        let read = self.stored.views_at(wanted)?;
        self.views
            .set(self.views.get() + read.iter().map(|(_, views)| views.len()).sum::<usize>());
        Ok(read)
    }
}

#[test]
fn a_selective_filter_ranks_many_models_by_their_coarse_views_and_answers_like_the_exact_scan() {
    let pool = pool();
    let files = models_and_pictures(&pool, 48, 41);
    // Every listed file compared directly (no graph search), and few kept: with 3 results asked
    // the best 12 models by their coarse views are estimated on every view, of the 30 listed.
    let settings = AnnSettings {
        graph_directions: 92,
        views_per_query_view: 2,
        views_per_view_of_several: 2,
        direct_views: 1_000_000,
        ..AnnSettings::default()
    };
    let index = AnnIndex::build(&files, settings, 2).unwrap().unwrap();
    let stored: HashMap<String, Vec<ViewDescriptor>> = files.iter().cloned().collect();
    let mut exact = ExactScan::new();
    for (uid, views) in &files {
        exact.insert(COMPANY, uid, views).unwrap();
    }
    let listed: HashSet<String> = files
        .iter()
        .enumerate()
        .filter(|(number, _)| number % 8 != 3)
        .map(|(_, (uid, _))| uid.clone())
        .collect();
    let mut random = seeded(42);
    let mut compared = 0;
    for (number, (uid, views)) in files.iter().enumerate() {
        if views.len() == 1 || !listed.contains(uid) {
            continue;
        }
        // A photograph-like view of the model, from a direction that is not a coarse one, and a
        // query of three such views.
        let one = vec![partlens_engine::samples::synthetic_views::noised(
            &views[number % 7 + 1],
            &mut random,
        )];
        let three: Vec<ViewDescriptor> = [2, 40, 90]
            .iter()
            .map(|&position| {
                partlens_engine::samples::synthetic_views::noised(&views[position], &mut random)
            })
            .collect();
        for query in [one, three] {
            let want = exact
                .rank(COMPANY, &query, FileFilter::Only(&listed), 3, &stored)
                .unwrap();
            let got = index
                .rank(&query, FileFilter::Only(&listed), 3, &stored)
                .unwrap();
            assert_eq!(got, want, "model {number}");
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} searches compared");
}

#[test]
fn a_model_nearest_by_a_view_beside_the_graph_is_found_whatever_its_views_in_the_graph_say() {
    use partlens_engine::mesh::VIEWS_PER_MODEL;
    use partlens_engine::samples::synthetic_views::noised;
    let pool = pool();
    let mut random = seeded(51);
    let spread = AnnSettings {
        graph_directions: 92,
        ..exhaustive()
    };
    let in_graph = super::graph_views::GraphViews::new(92).graph_positions(VIEWS_PER_MODEL);
    let original = pool.base(0).clone();
    let query = vec![noised(&original, &mut random)];
    // A model whose views from the graph's directions show another part, and whose others are the
    // query's own picture; pictures of that picture photographed twice over, nearer the query than
    // the model's views in the graph, further than its others; more of them than a batch of
    // estimates, so that the model's bound (its views in the graph) would leave it out.
    let other = pool.base(5).clone();
    let model: Vec<ViewDescriptor> = (0..VIEWS_PER_MODEL)
        .map(|position| {
            if in_graph.contains(&position) {
                other.clone()
            } else {
                original.clone()
            }
        })
        .collect();
    let mut files = vec![(uid(0), model)];
    for number in 1..80 {
        let photographed = noised(&original, &mut random);
        files.push((uid(number), vec![noised(&photographed, &mut random)]));
    }
    let stored: HashMap<String, Vec<ViewDescriptor>> = files.iter().cloned().collect();
    let mut exact = ExactScan::new();
    for (uid, views) in &files {
        exact.insert(COMPANY, uid, views).unwrap();
    }
    let want = exact
        .rank(COMPANY, &query, FileFilter::Everything, 3, &stored)
        .unwrap();
    assert_eq!(want[0].0, uid(0), "the model is the best file");
    // The model's views in the graph alone, as another company's picture.
    const ALONE: &str = "7d0b4f1e-0000-4000-8000-000000000002";
    exact.insert(ALONE, &uid(99), &[other]).unwrap();
    let alone = exact
        .rank(ALONE, &query, FileFilter::Everything, 1, &stored)
        .unwrap();
    assert!(
        want[2].1 > alone[0].1,
        "the pictures are nearer than the model's views in the graph"
    );
    let index = AnnIndex::build(&files, spread, 2).unwrap().unwrap();
    let got = index
        .rank(&query, FileFilter::Everything, 3, &stored)
        .unwrap();
    assert_eq!(got, want);
}
