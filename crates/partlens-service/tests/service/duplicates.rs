//! Duplicates kept up to date as files are indexed (issue 51): a file is paired with its
//! candidate duplicates when it is indexed, so `GET /api/Duplicates` reads stored pairs; a deleted
//! file leaves its group, an overwritten one is paired again; files indexed before pairing existed
//! are paired by the backfill at start, which `GET /metrics` shows. Pictures stand in for parts (two
//! copies of one drawing of a disc, a bracket).

use std::collections::BTreeSet;
use std::time::Duration;

use partlens_testkit::service::{Session, Shape, TestService, png, wait_until};

/// The groups of `GET /api/Duplicates?minScore=…` (`None`: the default) as sets of UIDs, with the
/// reply's `FilesCompared`.
async fn groups(ann: &Session, min_score: Option<&str>) -> (u64, Vec<BTreeSet<String>>) {
    let path = match min_score {
        Some(score) => format!("/api/Duplicates?minScore={score}"),
        None => "/api/Duplicates".to_owned(),
    };
    let reply = ann.get(&path).await;
    reply.expect(200);
    let body = reply.json();
    let groups = body["Groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| {
            group["Files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|file| file["UID"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect();
    (body["FilesCompared"].as_u64().unwrap(), groups)
}

fn set(uids: &[&String]) -> BTreeSet<String> {
    uids.iter().map(|uid| (*uid).clone()).collect()
}

/// The stored pairs naming `uid` on either side.
fn pairs_naming(service: &TestService, uid: &str) -> String {
    service
        .query_text(&format!(
            "SELECT count(*) FROM file_pairs WHERE file_uid = '{uid}' OR other_uid = '{uid}'"
        ))
        .unwrap_or_default()
}

#[tokio::test]
async fn a_file_is_paired_when_indexed_grouped_with_its_twin_and_leaves_its_group_when_deleted() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 11), &[])
        .await;
    let bracket = ann
        .upload_database_file("Parts/bracket.png", png(Shape::Bracket, 12), &[])
        .await;
    let copy = ann
        .upload_database_file("Copies/disc.png", png(Shape::Disc, 11), &[])
        .await;
    // Paired after it was indexed, in the background, or by the call asking for duplicates,
    // which pairs what still waits first: either way the groups are read from stored pairs.
    let (compared, found) = groups(&ann, None).await;
    assert_eq!(compared, 3);
    assert_eq!(found, [set(&[&disc, &copy])]);
    let found = service.query_text(&format!(
        "SELECT count(*) FROM file_pairs WHERE file_uid = '{copy}' AND other_uid = '{disc}'"
    ));
    assert_eq!(found.as_deref(), Some("1"));
    // Every pair is kept, whatever its score: at minScore 0 the bracket joins too.
    let (_, found) = groups(&ann, Some("0")).await;
    assert_eq!(found, [set(&[&disc, &copy, &bracket])]);

    let admin = service.session("admin").await;
    admin
        .delete(&format!("/api/File?fileUID={copy}"))
        .await
        .expect(200);
    assert_eq!(pairs_naming(&service, &copy), "0");
    let (compared, found) = groups(&ann, None).await;
    assert_eq!(compared, 2);
    assert!(found.is_empty(), "{found:?}");

    // Overwritten with the disc's drawing, the bracket is indexed and paired again.
    let replaced = ann
        .upload_database_file("Parts/bracket.png", png(Shape::Disc, 11), &[])
        .await;
    assert_eq!(replaced, bracket);
    let (compared, found) = groups(&ann, None).await;
    assert_eq!(compared, 2);
    assert_eq!(found, [set(&[&disc, &bracket])]);
}

#[tokio::test]
async fn files_indexed_before_pairing_existed_are_paired_by_the_backfill_at_start() {
    let mut service = TestService::start().await;
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 11), &[])
        .await;
    let copy = ann
        .upload_database_file("Copies/disc.png", png(Shape::Disc, 11), &[])
        .await;
    service.stop().await;
    // As a data folder or database made before pairing: indexed files, no pairs.
    service.execute("DELETE FROM file_pairs; DELETE FROM paired_files;");
    service.restart_with(|_| {}).await;
    let ann = service.session("ann").await;
    wait_until(
        Duration::from_secs(30),
        "the backfill to pair both files",
        || {
            let ann = ann.clone();
            async move {
                let (compared, found) = groups(&ann, None).await;
                (compared == 2).then_some(found)
            }
        },
    )
    .await;
    let (_, found) = groups(&ann, None).await;
    assert_eq!(found, [set(&[&disc, &copy])]);
    let metrics = crate::metrics::metrics_text(&service.base).await;
    assert!(
        metrics.contains("\npartlens_duplicates_unpaired_files 0\n"),
        "{metrics}"
    );
}
