//! The visual index at scale, through the service: a company searched through its approximate graph
//! gets the same results as through the exact scan (uploads, deletes, overwrites, filters), the
//! graph is saved and loaded back at a restart, and a service killed while uploads are under way
//! comes back with a graph that matches what the store committed.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use partlens_api::encoding::QueryString;
use partlens_service::ServiceConfig;
use partlens_testkit::realworld::corpus_file;
use service_support::{Session, Shape, TestService, png, wait_until};

const SHAPES: [Shape; 4] = [
    Shape::Disc,
    Shape::HorizontalBar,
    Shape::VerticalBar,
    Shape::Bracket,
];

/// A graph from the first view on, asked for so few neighbours that the graph search itself runs
/// (not a scan of everything), looked after every 50 ms.
fn on_graph(config: &mut ServiceConfig) {
    config.visual.ann_from_views = 0;
    config.visual.ann.views_per_query_view = 4;
    config.visual.ann.direct_views = 4;
    config.visual_maintenance_interval = Duration::from_millis(50);
}

fn on_exact_scan(config: &mut ServiceConfig) {
    config.visual.ann_from_views = usize::MAX;
}

/// The saved file tables under `data/visual/` with their modification times.
fn saved_tables(data: &Path) -> Vec<(PathBuf, SystemTime)> {
    let Ok(entries) = std::fs::read_dir(data.join("visual")) else {
        return Vec::new();
    };
    let mut tables: Vec<(PathBuf, SystemTime)> = entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".files"))
        .map(|entry| (entry.path(), entry.metadata().unwrap().modified().unwrap()))
        .collect();
    tables.sort();
    tables
}

/// One search's answer: (UID, score) in order, and TotalResults.
type Answer = (Vec<(String, String)>, i64);

async fn answer(session: &Session, inner: &str, max_results: usize) -> Answer {
    let mut query = QueryString::new();
    query
        .push("filterStr", inner)
        .push("maxResults", max_results.to_string());
    let reply = session.get(&format!("/api/Search?{query}")).await;
    reply.expect(200);
    let body = reply.json();
    let results = body["ResultsList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["UID"].as_str().unwrap().to_owned(),
                item["Score"].to_string(),
            )
        })
        .collect();
    (results, body["TotalResults"].as_i64().unwrap())
}

/// Every query input with every filter, twice: the best three and the default number of results.
async fn answers(session: &Session, inputs: &[String]) -> Vec<Answer> {
    let mut all = Vec::new();
    for input in inputs {
        for filter in [
            "",
            "&FT=supplier=[S1]",
            "&FT=part_number=PL-00*",
            "&FT=bar",
            "&FT=supplier=S",
        ] {
            let inner = format!("fileUID={input}{filter}");
            for max_results in [3, 200] {
                let answer = answer(session, &inner, max_results).await;
                all.push(answer);
            }
        }
    }
    all
}

async fn upload_part(session: &Session, number: usize, shape: Shape, seed: u32) -> String {
    let name = format!("{shape:?}").to_lowercase();
    let supplier = format!("S{}", number % 3);
    let part_number = format!("PL-{number:03}");
    session
        .upload_database_file(
            &format!("Parts/{name}-{number}.png"),
            png(shape, seed),
            &[("supplier", &supplier), ("part_number", &part_number)],
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_answers_like_the_exact_scan_through_changes_and_restarts() {
    let mut service = TestService::start_with(on_graph).await;
    let admin = service.session("admin").await;
    let mut uids = Vec::new();
    for number in 0..16 {
        let shape = SHAPES[number % SHAPES.len()];
        uids.push(upload_part(&admin, number, shape, number as u32 + 1).await);
    }
    // A real model among the pictures: searched by pictures, the graph scores it on the few views
    // that decide its score, read from the store by position, which must give the score the
    // exact scan gives from all 163 of them.
    if let Some(nut) = corpus_file("mesh/freecadlib__Nuts__ISO4032_Hex_Nut_M8.stl") {
        let attributes = [("supplier", "S1"), ("part_number", "PL-099")];
        admin
            .upload_database_file("Parts/nut.stl", nut, &attributes)
            .await;
    }
    let inputs: Vec<String> = {
        let mut inputs = Vec::new();
        for (at, shape) in SHAPES.iter().enumerate() {
            inputs.push(
                admin
                    .upload_search_input(".png", &png(*shape, 100 + at as u32), false)
                    .await,
            );
        }
        inputs
    };
    let data = service.config.data_dir.clone();
    // On PostgreSQL no graph is saved (a node keeps nothing another needs): each start loads the
    // views from the database and builds the graph again; the answers must be the same.
    let saves_graphs = service.database.is_none();
    // The graph is built in the background and saved: from then on the graph answers.
    if saves_graphs {
        wait_until(Duration::from_secs(60), "the graph to be saved", || {
            let saved = !saved_tables(&data).is_empty();
            async move { saved.then_some(()) }
        })
        .await;
    }

    // Changes while on the graph: deletes, overwrites (same UID, other content), new files.
    for uid in [&uids[1], &uids[6], &uids[11]] {
        admin
            .delete(&format!("/api/File?fileUID={uid}"))
            .await
            .expect(200);
    }
    upload_part(&admin, 2, Shape::Disc, 77).await;
    upload_part(&admin, 7, Shape::Bracket, 78).await;
    upload_part(&admin, 16, Shape::VerticalBar, 79).await;
    upload_part(&admin, 17, Shape::HorizontalBar, 80).await;
    let on_graph_answers = answers(&admin, &inputs).await;
    assert!(
        on_graph_answers
            .iter()
            .any(|(results, _)| results.len() == 3),
        "searches find files"
    );

    // A restart loads the saved graph (saved again at shutdown, not built again) and answers alike.
    service.restart_with(on_graph).await;
    let saved = saved_tables(&data);
    assert_eq!(saved.len(), usize::from(saves_graphs));
    let admin = service.session("admin").await;
    assert_eq!(answers(&admin, &inputs).await, on_graph_answers);
    assert_eq!(
        saved_tables(&data),
        saved,
        "the loaded graph was not rebuilt"
    );

    // The exact scan over the same store gives the very same answers.
    service.restart_with(on_exact_scan).await;
    let admin = service.session("admin").await;
    assert_eq!(answers(&admin, &inputs).await, on_graph_answers);
    // A company on the exact scan keeps no saved graph (it would be stale the next time).
    assert!(saved_tables(&data).is_empty());
    service.stop().await;
}

/// Starts `partlens-service serve` on 127.0.0.1:0 over `data` and returns it with its base URL.
/// Without indexing workers: an upload the kill interrupted is put back in the queue at the next
/// start and stays there, so every run after the kill sees the same committed files.
async fn serve_binary(data: &Path, ann_from_views: usize) -> (service_support::Child, String) {
    let ann_from_views = ann_from_views.to_string();
    service_support::serve_binary(
        data,
        &["--index-workers", "0", "--ann-from-views", &ann_from_views],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_killed_during_uploads_comes_back_with_a_graph_that_matches_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    service_support::add_standard_users(&ServiceConfig::new(&data));
    let (mut server, base) = serve_binary(&data, 0).await;
    let admin = Session::login(&base, "admin").await;
    for number in 0..8 {
        upload_part(&admin, number, SHAPES[number % 4], number as u32 + 1).await;
    }
    let inputs = vec![
        admin
            .upload_search_input(".png", &png(Shape::Disc, 200), false)
            .await,
        admin
            .upload_search_input(".png", &png(Shape::Bracket, 201), false)
            .await,
    ];
    wait_until(Duration::from_secs(60), "the graph to be saved", || {
        let saved = !saved_tables(&data).is_empty();
        async move { saved.then_some(()) }
    })
    .await;
    // More uploads and a delete, and the process killed while some are still under way: what the
    // store committed is in the journal, the graph in memory is lost with the process.
    admin
        .delete(&format!(
            "/api/File?fileUID={}",
            upload_part(&admin, 8, Shape::Disc, 9).await
        ))
        .await
        .expect(200);
    upload_part(&admin, 9, Shape::Bracket, 10).await;
    let in_flight: Vec<_> = (10..14)
        .map(|number| {
            let base = base.clone();
            tokio::spawn(async move {
                let session = Session::login(&base, "admin").await;
                let name = format!("Parts/late-{number}.png");
                let mut query = QueryString::new();
                query.push("file", &name).push("isSearchInput", "false");
                session
                    .put_binary(
                        &format!("/api/FileBinary?{query}"),
                        png(SHAPES[number % 4], number as u32 + 300),
                    )
                    .await
            })
        })
        .collect();
    wait_until(Duration::from_secs(60), "one more upload", || {
        let done = in_flight.iter().any(tokio::task::JoinHandle::is_finished);
        async move { done.then_some(()) }
    })
    .await;
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    for upload in in_flight {
        let _ = upload.await;
    }

    // Back on the graph: loaded from its snapshot and brought up to date from the journal.
    let (server, base) = serve_binary(&data, 0).await;
    let admin = Session::login(&base, "admin").await;
    let on_graph = answers(&admin, &inputs).await;
    drop(server);
    // The exact scan of the same store is the truth.
    let (server, base) = serve_binary(&data, usize::MAX).await;
    let admin = Session::login(&base, "admin").await;
    let exact = answers(&admin, &inputs).await;
    drop(server);
    assert_eq!(on_graph, exact);
    assert!(exact.iter().any(|(results, _)| !results.is_empty()));
}

/// The views `GET /metrics` counts in the graphs and beside them.
async fn graph_views(base: &str) -> (u64, u64) {
    let text = crate::metrics::metrics_text(base).await;
    let count = |place: &str| {
        let series = format!("partlens_visual_graph_views{{place=\"{place}\"}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&series))
            .map_or(0, |value| value.trim().parse().unwrap())
    };
    (count("graph"), count("beside"))
}

/// `serve --graph-directions 92`: the graph holds a model's views from 92 directions and its
/// picture's, and keeps its other views beside it (a picture's one view in the graph).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_told_fewer_directions_keeps_a_models_other_views_beside_it() {
    let Some(nut) = corpus_file("mesh/freecadlib__Nuts__ISO4032_Hex_Nut_M8.stl") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    service_support::add_standard_users(&ServiceConfig::new(&data));
    let arguments = ["--ann-from-views", "0", "--graph-directions", "92"];
    let (_server, base) = service_support::serve_binary(&data, &arguments).await;
    let admin = Session::login(&base, "admin").await;
    admin.upload_database_file("Parts/nut.stl", nut, &[]).await;
    upload_part(&admin, 1, Shape::Disc, 1).await;
    let base_for_wait = base.clone();
    let (in_graph, beside) = wait_until(Duration::from_secs(60), "the graph", || {
        let base = base_for_wait.clone();
        async move {
            let (in_graph, beside) = graph_views(&base).await;
            // Both files in the graph's company: the model's views and the picture's.
            (in_graph + beside > 163).then_some((in_graph, beside))
        }
    })
    .await;
    // 163 views (211 for a flat part): 92 directions and the picture in the graph, with the
    // picture's one view; the other 70 (118) beside it.
    assert_eq!(in_graph, 93 + 1);
    assert!(beside == 70 || beside == 118, "{beside} beside the graph");
}
