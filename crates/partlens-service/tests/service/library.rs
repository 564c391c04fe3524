//! `GET /api/Files` (the Library, this service's extension) over HTTP on 127.0.0.1: a company's
//! database files newest first in pages, narrowed by kind, folder and an attribute filter; the
//! fields a card needs; another company's files and search inputs never listed; bad pages refused
//! with a sentence and callers without a token with 401.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use partlens_api::encoding::QueryString;
use service_support::{Session, Shape, TestService, png};

/// A file of the sample library (`models/washer.stl`).
fn sample(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/samples"))
            .join(path),
    )
    .unwrap()
}

/// The UIDs of a page, in order.
fn page_uids(page: &serde_json::Value) -> Vec<String> {
    page["Files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["UID"].as_str().unwrap().to_owned())
        .collect()
}

/// `GET /api/Files` with these parameters (the filter's inner string encoded as `filterStr`).
async fn files(session: &Session, parameters: &[(&str, &str)]) -> serde_json::Value {
    let mut query = QueryString::new();
    for (name, value) in parameters {
        query.push(name, *value);
    }
    let reply = session.get(&format!("/api/Files?{query}")).await;
    reply.expect(200);
    reply.json()
}

/// The UIDs listed with these parameters (one page of at most 500) and the total.
async fn listed(session: &Session, parameters: &[(&str, &str)]) -> (Vec<String>, u64) {
    let mut all = vec![("limit", "500")];
    all.extend_from_slice(parameters);
    let page = files(session, &all).await;
    (page_uids(&page), page["TotalFiles"].as_u64().unwrap())
}

#[tokio::test]
async fn files_pages_the_companys_database_files_newest_first_by_kind_folder_and_attribute() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let gus = service.session("gus").await;
    // Oldest first; each a database file of Acme.
    let bracket_a = ann
        .upload_database_file(
            "Parts/Brackets/bracket-a.png",
            png(Shape::Bracket, 1),
            &[("material", "steel")],
        )
        .await;
    let bracket_b = ann
        .upload_database_file(
            "Parts/Brackets/bracket-b.png",
            png(Shape::Bracket, 2),
            &[("material", "aluminium")],
        )
        .await;
    let shaft = ann
        .upload_database_file(
            "Parts/Shafts/shaft.png",
            png(Shape::HorizontalBar, 3),
            &[("material", "steel")],
        )
        .await;
    let washer = ann
        .upload_database_file("Models/washer.stl", sample("models/washer.stl"), &[])
        .await;
    let drawing = ann
        .upload_database_file(
            "Drawings/l-bracket-drawing.pdf",
            sample("drawings/l-bracket-drawing.pdf"),
            &[],
        )
        .await;
    let notes = ann
        .upload_database_file(
            "Notes/readme.txt",
            "partlens notes\n".repeat(80).into(),
            &[],
        )
        .await;
    // Never listed: a search input, and another company's file.
    ann.upload_search_input(".png", &png(Shape::Disc, 4), false)
        .await;
    gus.upload_database_file("Parts/Brackets/globex.png", png(Shape::Bracket, 5), &[])
        .await;
    let newest_first = vec![
        notes.clone(),
        drawing.clone(),
        washer.clone(),
        shaft.clone(),
        bracket_b.clone(),
        bracket_a.clone(),
    ];

    // Pages of two, newest first, and past the end an empty page with the same total.
    let mut paged = Vec::new();
    for offset in ["0", "2", "4", "6"] {
        let page = files(&ann, &[("offset", offset), ("limit", "2")]).await;
        assert_eq!(page["TotalFiles"], 6);
        assert_eq!(page["Offset"].as_u64(), Some(offset.parse().unwrap()));
        paged.extend(page_uids(&page));
    }
    assert_eq!(paged, newest_first);
    // Without a limit, a page of 100.
    assert_eq!(page_uids(&files(&ann, &[]).await), newest_first);

    // What a card and the table need.
    let page = files(&ann, &[("limit", "6")]).await;
    let shaft_file = &page["Files"][3];
    assert_eq!(shaft_file["UID"], shaft.as_str());
    assert_eq!(shaft_file["FileName"], "Parts/Shafts/shaft.png");
    assert_eq!(shaft_file["Kind"], "picture");
    assert_eq!(shaft_file["Folder"], "Parts/Shafts");
    assert_eq!(shaft_file["State"], "completed");
    assert_eq!(shaft_file["Size"], png(Shape::HorizontalBar, 3).len());
    assert!(shaft_file["UploadedAt"].as_str().unwrap().starts_with("20"));
    assert!(shaft_file["Score"].is_null());
    assert!(
        shaft_file["ThumbNailURLFromID"]
            .as_str()
            .unwrap()
            .contains("/api/Image")
    );
    assert_eq!(shaft_file["Attributes"][0]["Name"], "material");
    assert_eq!(shaft_file["Attributes"][0]["Value"], "steel");
    assert_eq!(page["Files"][2]["Kind"], "model");
    assert_eq!(page["Files"][1]["Kind"], "drawing");
    assert_eq!(page["Files"][0]["Kind"], "other");

    // By kind.
    assert_eq!(
        listed(&ann, &[("kind", "picture")]).await,
        (vec![shaft.clone(), bracket_b.clone(), bracket_a.clone()], 3)
    );
    assert_eq!(
        listed(&ann, &[("kind", "model")]).await,
        (vec![washer.clone()], 1)
    );
    assert_eq!(
        listed(&ann, &[("kind", "Drawing")]).await,
        (vec![drawing.clone()], 1)
    );
    assert_eq!(
        listed(&ann, &[("kind", "other")]).await,
        (vec![notes.clone()], 1)
    );

    // By folder: the folder and below, in any case, never a folder that only starts alike.
    assert_eq!(
        listed(&ann, &[("folder", "Parts")]).await.0,
        [shaft.clone(), bracket_b.clone(), bracket_a.clone()]
    );
    assert_eq!(
        listed(&ann, &[("folder", "/parts/brackets/")]).await.0,
        [bracket_b.clone(), bracket_a.clone()]
    );
    assert_eq!(listed(&ann, &[("folder", "Part")]).await, (Vec::new(), 0));

    // By attribute (the FT conditions of a search), alone and with the other filters.
    assert_eq!(
        listed(&ann, &[("filterStr", "FT=material%3D%5Bsteel%5D")]).await,
        (vec![shaft.clone(), bracket_a.clone()], 2)
    );
    assert_eq!(
        listed(
            &ann,
            &[
                ("filterStr", "FT=material%3D%5Bsteel%5D"),
                ("folder", "Parts/Brackets"),
                ("kind", "picture"),
            ]
        )
        .await,
        (vec![bracket_a.clone()], 1)
    );
    let filtered_page = files(
        &ann,
        &[
            ("filterStr", "FT=material%3D%5Bsteel%5D"),
            ("offset", "1"),
            ("limit", "1"),
        ],
    )
    .await;
    assert_eq!(page_uids(&filtered_page), std::slice::from_ref(&bracket_a));
    assert_eq!(filtered_page["TotalFiles"], 2);

    // A file uploaded again over its path is the newest.
    ann.upload_database_file(
        "Parts/Brackets/bracket-a.png",
        png(Shape::Bracket, 6),
        &[("material", "steel")],
    )
    .await;
    assert_eq!(listed(&ann, &[]).await.0[0], bracket_a);

    // The other company sees its own file only.
    assert_eq!(listed(&gus, &[]).await.1, 1);
}

#[tokio::test]
async fn files_refuses_pages_out_of_range_and_callers_without_a_token() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    for (query, words) in [
        ("limit=0", "1 to 500"),
        ("limit=501", "1 to 500"),
        ("offset=-3", "whole number"),
        ("limit=many", "whole number"),
        ("kind=sketch", "picture, model, drawing"),
        (
            "filterStr=fileUID%3D3f2504e0-4f89-41d3-9a0c-0305e82c3301",
            "FT conditions",
        ),
    ] {
        let reply = ann.get(&format!("/api/Files?{query}")).await;
        reply.expect(400);
        let detail = reply.json()["detail"].as_str().unwrap().to_owned();
        assert!(detail.contains(words), "{query}: {detail}");
    }
    // The largest page is fine, on an empty library too.
    let empty = files(&ann, &[("limit", "500")]).await;
    assert_eq!(empty["TotalFiles"], 0);
    assert!(page_uids(&empty).is_empty());

    service.anonymous(None).get("/api/Files").await.expect(401);
    service
        .anonymous(Some("not-a-token"))
        .get("/api/files?limit=10")
        .await
        .expect(401);
}

/// A store beside the running service on its records (its PostgreSQL database, or the SQLite file
/// of its data folder), for writing a large library straight into it. Blocking.
fn store_beside(data_dir: &std::path::Path, database: Option<&str>) -> partlens_store::Store {
    let url = database.map(|url| partlens_store::DatabaseUrl::parse(url).unwrap());
    partlens_store::Store::open_configured_blocking(data_dir, url.as_ref()).unwrap()
}

#[tokio::test]
async fn a_large_library_written_straight_into_either_store_is_paged_newest_first_and_filtered() {
    use partlens_testkit::library::{record_name, record_uid, write_library_into};
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let records = 2_500;
    let data_dir = service.config.data_dir.clone();
    let database = service
        .database
        .as_ref()
        .map(|database| database.url.clone());
    tokio::task::spawn_blocking(move || {
        let store = store_beside(&data_dir, database.as_deref());
        write_library_into(&store, "Acme", records);
    })
    .await
    .unwrap();
    let first = files(&ann, &[("limit", "3")]).await;
    assert_eq!(first["TotalFiles"].as_u64(), Some(records as u64));
    assert_eq!(
        page_uids(&first),
        [records - 1, records - 2, records - 3].map(record_uid)
    );
    assert_eq!(
        first["Files"][0]["DisplayName"].as_str(),
        Some(record_name(records - 1).as_str())
    );
    let last = files(&ann, &[("offset", "2499"), ("limit", "10")]).await;
    assert_eq!(page_uids(&last), [record_uid(0)]);
    let (_, in_folder) = listed(&ann, &[("folder", "Library/Group-3")]).await;
    assert_eq!(in_folder, 250);
    let (_, models) = listed(&ann, &[("kind", "model")]).await;
    assert_eq!(models, 833);
    let (steel, total) = listed(&ann, &[("filterStr", "FT=material=[steel]")]).await;
    assert_eq!(total, 1_250);
    assert_eq!(steel[0], record_uid(2_498));
}
