//! `.zip` uploads over HTTP on 127.0.0.1: a company-database zip of real parts becomes a bundle of
//! searchable records under its folder, listed as the zip's children, replaced on overwrite and
//! deleted with it; a zip search input of two pictures searches as the two-view search; hostile
//! archives are refused with their reason and leave the store as it was.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Cursor, Write};

use partlens_api::encoding::base64_file_body;
use partlens_testkit::realworld::corpus_file;
use partlens_testkit::service as service_support;
use service_support::{Session, Shape, TestService, files_under, png, result_uids};
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

fn deflated() -> SimpleFileOptions {
    SimpleFileOptions::default().compression_method(CompressionMethod::Deflated)
}

/// A zip of `(name, bytes)` entries, deflated.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        writer.start_file(*name, deflated()).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// `PUT /api/FileBinary` of a company-database file at `path`.
async fn put_database_file(
    session: &Session,
    path: &str,
    bytes: Vec<u8>,
) -> service_support::Reply {
    let mut query = partlens_api::encoding::QueryString::new();
    query.push("file", path).push("isSearchInput", "false");
    session
        .put_binary(&format!("/api/FileBinary?{query}"), bytes)
        .await
}

/// The sentence of a refusal (its problem details' `detail`).
fn detail(reply: &service_support::Reply) -> String {
    reply.json()["detail"].as_str().unwrap().to_owned()
}

/// The UIDs of a relation list (`AssemblyChildren` / `AssemblyParents`).
fn related_uids(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["UID"].as_str().unwrap().to_owned())
        .collect()
}

/// Searches by uploading `bytes` as a search input of `extension`; the result UIDs.
async fn search_by_file(session: &Session, extension: &str, bytes: &[u8]) -> Vec<String> {
    let input = session.upload_search_input(extension, bytes, false).await;
    session.search_uids(&format!("fileUID={input}")).await
}

const STEP: &str = "step/freecadlib__Bearings__608ZZ_Ball_Bearing.step";
const STL: &str = "mesh/ur_ros2__ur10__base.stl";
const PDF: &str = "pdf/voron0__Bottom_Panel.pdf";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_zip_is_a_bundle_of_searchable_records_replaced_and_deleted_with_it() {
    let (Some(step), Some(stl), Some(pdf)) =
        (corpus_file(STEP), corpus_file(STL), corpus_file(PDF))
    else {
        return;
    };
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let archive = zip_of(&[
        ("bearing.step", &step),
        ("meshes/base.stl", &stl),
        ("drawings/bottom panel.pdf", &pdf),
        ("notes.txt", b"not a part: skipped and listed"),
    ]);
    let reply = put_database_file(&ann, "Bundles/kit.zip", archive).await;
    reply.expect(200);
    let zip_uid = reply.string();
    let zip = ann.file_record(&zip_uid).await;
    assert_eq!(zip["IndexingFinished"], true, "{zip}");
    let children = zip["AssemblyChildren"].as_array().unwrap().clone();
    let names: Vec<&str> = children
        .iter()
        .map(|child| child["FileName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Bundles/kit/bearing.step",
            "Bundles/kit/meshes/base.stl",
            "Bundles/kit/drawings/bottom panel.pdf"
        ]
    );
    assert_eq!(children[0]["DisplayName"], "bearing.step");
    assert!(children.iter().all(|child| child["Quantity"] == 1));
    let extracted = zip["ExtractedAttributes"].to_string();
    assert!(extracted.contains("archive_entries=3"), "{extracted}");
    assert!(
        extracted.contains("archive_skipped=notes.txt"),
        "{extracted}"
    );
    let child_uids = related_uids(&zip["AssemblyChildren"]);
    // The zip and its three readable entries: four records. The Library and a search say how
    // many relations each has, without listing them.
    assert_eq!(ann.library_total().await, 4);
    let listed = ann.get("/api/Files?limit=500").await.json();
    for file in listed["Files"].as_array().unwrap() {
        let (children, parents) = (&file["AssemblyChildCount"], &file["AssemblyParentCount"]);
        if file["UID"] == zip_uid.as_str() {
            assert_eq!(
                (children, parents),
                (&serde_json::json!(3), &serde_json::Value::Null)
            );
        } else {
            assert_eq!(
                (children, parents),
                (&serde_json::Value::Null, &serde_json::json!(1))
            );
        }
    }
    let reply = ann.search("FT=bearing").await;
    reply.expect(200);
    let found = reply.json();
    let bearing = found["ResultsList"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["FileName"] == "Bundles/kit/bearing.step")
        .unwrap_or_else(|| panic!("the bearing found by its name: {found}"));
    assert_eq!(bearing["AssemblyParentCount"], 1, "{bearing}");
    for (uid, (extension, bytes)) in
        child_uids
            .iter()
            .zip([(".step", &step), (".stl", &stl), (".pdf", &pdf)])
    {
        let child = ann.file_record(uid).await;
        assert_eq!(child["IndexingFinished"], true, "{child}");
        assert_eq!(child["HasThumbnail"], true, "{child}");
        assert_eq!(related_uids(&child["AssemblyParents"]), [zip_uid.as_str()]);
        assert_eq!(child["AssemblyParents"][0]["FileName"], "Bundles/kit.zip");
        // Each entry is found first by a search by its own file.
        let found = search_by_file(&ann, extension, bytes).await;
        assert_eq!(found.first(), Some(uid), "{extension}: {found:?}");
    }
    // Uploaded again without the mesh: the same records for the same paths, the mesh's gone.
    let smaller = zip_of(&[("bearing.step", &step), ("drawings/bottom panel.pdf", &pdf)]);
    let reply = put_database_file(&ann, "Bundles/kit.zip", smaller).await;
    reply.expect(200);
    assert_eq!(reply.string(), zip_uid);
    let zip = ann.file_record(&zip_uid).await;
    assert_eq!(
        related_uids(&zip["AssemblyChildren"]),
        [child_uids[0].clone(), child_uids[2].clone()]
    );
    assert_eq!(ann.library_total().await, 3);
    ann.get(&format!("/api/File?fileUID={}", child_uids[1]))
        .await
        .expect(404);
    // A bundle overwritten in place by a file that is no bundle loses its entries.
    let other = zip_of(&[("panel.pdf", &pdf)]);
    let reply = put_database_file(&ann, "Bundles/other.zip", other).await;
    reply.expect(200);
    let other_uid = reply.string();
    let panel = related_uids(&ann.file_record(&other_uid).await["AssemblyChildren"]);
    assert_eq!(panel.len(), 1);
    let reply = ann
        .put_binary(
            &format!("/api/FileBinary?file=Bundles/other.png&isSearchInput=false&uid={other_uid}"),
            png(Shape::Disc, 3),
        )
        .await;
    reply.expect(200);
    ann.get(&format!("/api/File?fileUID={}", panel[0]))
        .await
        .expect(404);
    let overwritten = ann.file_record(&other_uid).await;
    assert_eq!(overwritten["AssemblyChildren"], serde_json::json!([]));
    // Deleting the zip (an admin's call) deletes its entries.
    let admin = service.session("admin").await;
    admin
        .delete(&format!("/api/File?fileUID={zip_uid}"))
        .await
        .expect(200);
    for uid in &child_uids {
        ann.get(&format!("/api/File?fileUID={uid}"))
            .await
            .expect(404);
    }
    // The picture that overwrote the other bundle is all that is left.
    assert_eq!(ann.library_total().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zip_search_input_of_two_pictures_searches_as_the_two_view_search() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    for (path, shape, seed) in [
        ("Catalogue/disc.png", Shape::Disc, 20),
        ("Catalogue/disc twin.png", Shape::Disc, 21),
        ("Catalogue/flat bar.png", Shape::HorizontalBar, 22),
        ("Catalogue/post.png", Shape::VerticalBar, 23),
        ("Catalogue/bracket.png", Shape::Bracket, 24),
    ] {
        ann.upload_database_file(path, png(shape, seed), &[]).await;
    }
    let (disc, bar) = (png(Shape::Disc, 30), png(Shape::HorizontalBar, 31));
    let disc_input = ann.upload_search_input(".png", &disc, false).await;
    let bar_input = ann.upload_search_input(".png", &bar, false).await;
    let two_views = ann
        .search(&format!("fileUID={disc_input},{bar_input}"))
        .await;
    two_views.expect(200);
    let two_views = two_views.json();
    let archive = zip_of(&[("front.png", &disc), ("side.png", &bar)]);
    let zip_input = ann.upload_search_input(".zip", &archive, false).await;
    let by_zip = ann.search(&format!("fileUID={zip_input}")).await;
    by_zip.expect(200);
    let by_zip = by_zip.json();
    assert!(!result_uids(&two_views).is_empty());
    assert_eq!(result_uids(&by_zip), result_uids(&two_views));
    assert_eq!(by_zip["TotalResults"], two_views["TotalResults"]);
    let scores = |body: &serde_json::Value| -> Vec<serde_json::Value> {
        body["ResultsList"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["Score"].clone())
            .collect()
    };
    assert_eq!(scores(&by_zip), scores(&two_views));
    // The zip input has a thumbnail (its first picture's) and is indexed.
    assert_eq!(ann.file_record(&zip_input).await["HasThumbnail"], true);
    // Asynchronous indexing of a .zip search input stays a 400, as the interface says.
    ann.put_json(
        "/api/File?file=.zip&indexAsync=true",
        base64_file_body(&archive),
    )
    .await
    .expect(400);
    // A .zip search input holds the pictures or models of one part, at most ten.
    let eleven: Vec<(String, Vec<u8>)> = (0..11)
        .map(|index| (format!("{index}.png"), png(Shape::Disc, 40 + index)))
        .collect();
    let eleven: Vec<(&str, &[u8])> = eleven
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    for (archive, reason) in [
        (zip_of(&eleven), "holds 11 files"),
        (
            zip_of(&[("front.png", &disc), ("notes.txt", b"words, not a view")]),
            "\"notes.txt\" of the .zip search input is not a picture or a model",
        ),
    ] {
        let reply = ann
            .put_json("/api/File?file=.zip", base64_file_body(&archive))
            .await;
        reply.expect(400);
        assert!(detail(&reply).contains(reason), "{}", reply.text());
    }
}

/// A zip whose one entry is `bytes` zero bytes, deflated as it is written (never held whole).
fn zeros_zip(name: &str, bytes: u64) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    writer
        .start_file(name, deflated().large_file(bytes >= u64::from(u32::MAX)))
        .unwrap();
    let chunk = vec![0u8; 1024 * 1024];
    let mut left = bytes;
    while left > 0 {
        let now = left.min(chunk.len() as u64) as usize;
        writer.write_all(&chunk[..now]).unwrap();
        left -= now as u64;
    }
    writer.finish().unwrap().into_inner()
}

/// 42.zip's shape, smaller: three levels of archives, each holding the level below four times.
fn nested_zip() -> Vec<u8> {
    let mut level = zeros_zip("0.bin", 1024 * 1024);
    for depth in 1..=3 {
        let copies: Vec<(String, Vec<u8>)> = (0..4)
            .map(|copy| (format!("{depth}-{copy}.zip"), level.clone()))
            .collect();
        let entries: Vec<(&str, &[u8])> = copies
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
            .collect();
        level = zip_of(&entries);
    }
    level
}

/// 100,000 empty entries, stored.
fn many_entries_zip() -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    for index in 0..100_000 {
        writer.start_file(format!("{index}.png"), stored).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn symlink_zip(part: &[u8]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    writer.start_file("plate.png", deflated()).unwrap();
    writer.write_all(part).unwrap();
    writer
        .add_symlink("passwd.png", "/etc/passwd", deflated())
        .unwrap();
    writer.finish().unwrap().into_inner()
}

/// What the data directory holds of stored files, images and bodies being received.
fn stored_files(service: &TestService) -> usize {
    ["files", "images", "tmp"]
        .iter()
        .map(|folder| files_under(&service.dir.path().join(folder)).len())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_archives_are_refused_with_their_reason_and_nothing_is_stored() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let part = png(Shape::Disc, 1);
    ann.upload_database_file("Parts/disc.png", part.clone(), &[])
        .await;
    let (records, files) = (ann.library_total().await, stored_files(&service));
    let bombs: [(&str, Vec<u8>, &str); 6] = [
        (
            "42.zip-style nesting",
            nested_zip(),
            "archives are read one level deep",
        ),
        (
            "a gigabyte of zeros",
            zeros_zip("zeros.png", 1024 * 1024 * 1024),
            "unpacks to more than 268435456 bytes, the limit of one entry",
        ),
        (
            "100,000 empty entries",
            many_entries_zip(),
            "holds 100000 entries, over the limit of 1000 entries",
        ),
        (
            "a ../ path",
            zip_of(&[("parts/../../etc/cron.d/job.png", &part)]),
            "climbs out of the archive with \"..\"",
        ),
        (
            "an absolute path",
            zip_of(&[("/etc/plate.png", &part)]),
            "has an absolute path",
        ),
        ("a symbolic link", symlink_zip(&part), "is a symbolic link"),
    ];
    for (what, archive, reason) in bombs {
        let as_database_file = put_database_file(&ann, "Bombs/bomb.zip", archive.clone()).await;
        let as_search_input = ann
            .put_json("/api/File?file=.zip", base64_file_body(&archive))
            .await;
        for reply in [as_database_file, as_search_input] {
            reply.expect(400);
            let detail = detail(&reply);
            assert!(
                detail.starts_with("the .zip is refused: "),
                "{what}: {detail}"
            );
            assert!(detail.contains(reason), "{what}: {detail}");
        }
        assert_eq!(ann.library_total().await, records, "{what}");
        assert_eq!(stored_files(&service), files, "{what}");
    }
}
