//! The views' vectors in PostgreSQL's pgvector HNSW index (issue 26): written with the views,
//! deleted with them, filled in at start for views stored without them, and asked for candidates
//! by a node for a company past the graph threshold (here 0 views: every company), whose scores stay
//! the exact scan's. On a real server (skipped with a message off CI when there is none).

use partlens_testkit::service::{Session, Shape, StoreKind, TestService, png, result_uids};

/// The UIDs and scores of a search reply, in order.
async fn ranked(session: &Session, query: &str) -> (Vec<String>, Vec<f64>, u64) {
    let reply = session.search(query).await;
    reply.expect(200);
    let body = reply.json();
    let scores = body["ResultsList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["Score"].as_f64().unwrap())
        .collect();
    let total = body["TotalResults"].as_u64().unwrap();
    (result_uids(&body), scores, total)
}

/// A second node on the database of `first` whose companies are all searched by the exact scan.
async fn exact_node(first: &TestService) -> (partlens_service::RunningService, tempfile::TempDir) {
    first
        .another_node(|config| {
            config.index_workers = 0;
            config.visual.ann_from_views = usize::MAX;
        })
        .await
}

#[tokio::test]
async fn a_large_company_is_searched_through_the_database_vector_index_with_exact_scores() {
    let Some(service) = TestService::start_on(StoreKind::Postgres, |config| {
        config.visual.ann_from_views = 0;
    })
    .await
    else {
        return;
    };
    let database = service.database.as_ref().unwrap();
    let count = |sql: &str| -> i64 { database.query_text(sql).unwrap().parse().unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM pg_extension WHERE extname = 'vector'"),
        1,
        "the schema installs pgvector where the server has it"
    );
    // `partlens-service check` says the index is used.
    let url = partlens_store::DatabaseUrl::parse(&database.url).unwrap();
    let (lines, usable) = tokio::task::spawn_blocking(move || {
        partlens_store::Store::check_blocking(std::path::Path::new("."), Some(&url))
    })
    .await
    .unwrap()
    .unwrap();
    assert!(usable);
    assert!(
        lines
            .iter()
            .any(|line| line.contains("searched through its HNSW index")),
        "{lines:?}"
    );
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 7), &[])
        .await;
    let twin = ann
        .upload_database_file("Parts/disc-twin.png", png(Shape::Disc, 8), &[])
        .await;
    let bracket = ann
        .upload_database_file("Parts/bracket.png", png(Shape::Bracket, 9), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 10), false)
        .await;
    // Every view of a database file has its vector; the search input's have none.
    let views = count(&format!(
        "SELECT count(*) FROM views WHERE file_uid IN ('{disc}', '{twin}', '{bracket}')"
    ));
    assert!(views >= 3);
    assert_eq!(count("SELECT count(*) FROM view_vectors"), views);
    assert_eq!(
        count(&format!(
            "SELECT count(*) FROM view_vectors WHERE file_uid = '{input}'"
        )),
        0
    );

    // The same answer, scores included, as a node that scans every view exactly.
    let query = format!("fileUID={input}");
    let (uids, scores, total) = ranked(&ann, &query).await;
    let (exact, _exact_dir) = exact_node(&service).await;
    let on_exact = Session {
        base: exact.base_url(),
        ..ann.clone()
    };
    let (exact_uids, exact_scores, exact_total) = ranked(&on_exact, &query).await;
    assert_eq!(total, 3);
    assert_eq!(
        (&uids, &scores, total),
        (&exact_uids, &exact_scores, exact_total)
    );
    assert_eq!(uids[2], bracket, "the discs rank first");

    // The candidates come from the index: a file whose vectors are gone is not found by the node
    // that asks it (still counted), while the exact node finds it.
    database.execute(&format!(
        "DELETE FROM view_vectors WHERE file_uid = '{bracket}'"
    ));
    let (uids, _, total) = ranked(&ann, &query).await;
    assert_eq!(total, 3);
    assert!(!uids.contains(&bracket), "{uids:?}");
    assert!(on_exact.search_uids(&query).await.contains(&bracket));

    // A node starting fills in the vectors of views stored without them.
    let (filler, _filler_dir) = exact_node(&service).await;
    assert_eq!(count("SELECT count(*) FROM view_vectors"), views);
    let (uids, _, _) = ranked(&ann, &query).await;
    assert_eq!(uids.last(), Some(&bracket));

    // A file deleted takes its vectors with it.
    service
        .session("admin")
        .await
        .delete(&format!("/api/File?fileUID={twin}"))
        .await
        .expect(200);
    assert_eq!(
        count(&format!(
            "SELECT count(*) FROM view_vectors WHERE file_uid = '{twin}'"
        )),
        0
    );
    let (uids, _, total) = ranked(&ann, &query).await;
    assert_eq!((uids, total), (vec![disc, bracket], 2));
    filler.shutdown().await;
    exact.shutdown().await;
}
