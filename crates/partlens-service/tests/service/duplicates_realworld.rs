//! Duplicate parts on real files (`GET /api/Duplicates`, issue 23): the real-world corpus's models
//! that are in it in more than one format (the manifest's `twin`: a STEP file and its STL, some
//! with a PLY too; among them several sizes of one standard part, ISO 4032 nuts M4/M8/M10, DIN 127
//! washers M8/M12/M30, DIN 471 rings, NEMA 17 motors 40/47 mm) uploaded into one company's
//! database over HTTP; the service must put every part's files in one group and never two parts
//! (so never two sizes of one part) in one group.
//!
//! One known exception is allowed, not required (the test still passes once it is fixed):
//! [`JOINED_ALLOWED`], with its reason. Every part's files must be one group.
//!
//! Without the corpus the test says so and passes, except under CI (`CI` set). IGES files take part
//! in a build with `occt` (the default build does not read them).

use std::collections::{BTreeMap, BTreeSet};

use futures_util::StreamExt as _;
use partlens_testkit::realworld::{CorpusFile, corpus_dir, corpus_files_for_test};
use partlens_testkit::service::TestService;

/// Parts that may share a group: the Voron fan-saver hotend mounts for the Dragon and the Revo have
/// the same outside and size and differ in their bores; their views score 0.93 against each other,
/// above the lowest twin's 0.89.
const JOINED_ALLOWED: [&str; 2] = ["voron0:hm_fs_Dragon", "voron0:hm_fs_Revo_Voron"];

/// The models whose part is in the corpus in another format too, as this build reads them.
fn twin_models(files: Vec<CorpusFile>) -> Vec<CorpusFile> {
    // IGES only in a build with `occt` (a plain `match` reads as `matches!` to clippy there).
    let readable = |file: &CorpusFile| {
        matches!(file.group(), "STEP" | "mesh")
            || (file.group() == "IGES" && cfg!(feature = "occt"))
    };
    let models: Vec<CorpusFile> = files
        .into_iter()
        .filter(|file| readable(file) && !file.twin.is_empty())
        .collect();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for file in &models {
        *count.entry(file.twin.as_str()).or_default() += 1;
    }
    let twins: BTreeSet<String> = count
        .into_iter()
        .filter(|(_, files)| *files > 1)
        .map(|(twin, _)| twin.to_owned())
        .collect();
    models
        .into_iter()
        .filter(|file| twins.contains(&file.twin))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_part_in_two_formats_is_one_group_and_no_two_parts_are() {
    let Some(files) = corpus_files_for_test() else {
        return;
    };
    let models = twin_models(files);
    assert!(models.len() >= 40, "{} models with twins", models.len());
    let service = TestService::start().await;
    let ann = service.session("ann").await;

    // Two uploads at a time: the service indexes on both cores.
    let uploads = futures_util::stream::iter(models.iter().enumerate())
        .map(|(index, file)| {
            let ann = &ann;
            async move {
                let bytes = std::fs::read(corpus_dir().join(&file.relative)).unwrap();
                let name = file.relative.replace('/', "_");
                let reply = ann
                    .put_binary(
                        &format!("/api/FileBinary?file=corpus%2F{name}&isSearchInput=false"),
                        bytes,
                    )
                    .await;
                (index, reply.status, reply.string())
            }
        })
        .buffer_unordered(2)
        .collect::<Vec<_>>()
        .await;
    let mut file_of: BTreeMap<String, &CorpusFile> = BTreeMap::new();
    for (index, status, body) in uploads {
        // Every STEP and mesh file of the corpus is read (tests/service/realworld.rs holds them to
        // that); one that is not would make its pair ungroupable, so it is a failure here too.
        assert_eq!(status, 200, "{}: {body}", models[index].relative);
        file_of.insert(body, &models[index]);
    }

    ann.get("/api/Duplicates?minScore=1.5").await.expect(400);
    let reply = ann.get("/api/Duplicates").await;
    reply.expect(200);
    let body = reply.json();
    assert_eq!(
        body["FilesCompared"].as_u64(),
        Some(models.len() as u64),
        "{body}"
    );
    let groups = body["Groups"].as_array().unwrap();

    let mut group_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems: Vec<String> = Vec::new();
    for (at, group) in groups.iter().enumerate() {
        let score = group["Score"].as_f64().unwrap();
        assert!((0.885..=1.0).contains(&score), "{group}");
        let members: Vec<&CorpusFile> = group["Files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|file| file_of[file["UID"].as_str().unwrap()])
            .collect();
        let parts: BTreeSet<&str> = members.iter().map(|file| file.twin.as_str()).collect();
        if parts.len() > 1 && !parts.iter().all(|part| JOINED_ALLOWED.contains(part)) {
            problems.push(format!(
                "one group (score {score:.3}) holds {} parts: {:?}",
                parts.len(),
                members
                    .iter()
                    .map(|file| &file.relative)
                    .collect::<Vec<_>>()
            ));
        }
        for file in members {
            group_of.insert(file.relative.as_str(), at);
        }
    }
    let mut parts: BTreeMap<&str, Vec<&CorpusFile>> = BTreeMap::new();
    for file in &models {
        parts.entry(file.twin.as_str()).or_default().push(file);
    }
    for (part, files) in &parts {
        let groups: BTreeSet<Option<&usize>> = files
            .iter()
            .map(|file| group_of.get(file.relative.as_str()))
            .collect();
        if groups.len() != 1 || groups.contains(&None) {
            problems.push(format!(
                "the files of {part} are not one group: {:?}",
                files
                    .iter()
                    .map(|file| (&file.relative, group_of.get(file.relative.as_str())))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
