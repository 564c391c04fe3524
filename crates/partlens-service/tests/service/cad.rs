//! CAD models in the real service over 127.0.0.1: the sample library's STEP files index in every
//! build (pure Rust), are found by a picture of them and by the words of their product data, and a
//! CAD file that cannot be meshed is failed with its reason while staying findable by its words.
//! IGES files need the `occt` feature: without it they fail with a reason that says so; with it
//! (`cargo test -p partlens-service --features occt --test service cad::`) they index like STEP files.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use std::time::Duration;

use partlens_api::encoding::search_files_body;
use service_support::{Shape, TestService, png, result_uids, wait_until};

/// A file of the sample library's models folder.
fn sample(file: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/models")
            .join(file),
    )
    .unwrap()
}

/// A query view of the sample library (`views/flange-a.png`).
fn sample_view(file: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/views")
            .join(file),
    )
    .unwrap()
}

/// The extracted attributes of a file, from its PMI data.
async fn extracted_attributes(session: &service_support::Session, uid: &str) -> Vec<String> {
    let pmi = session
        .get(&format!("/api/PMIData?fileUID={uid}"))
        .await
        .json();
    pmi["ExtractedAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|value| value.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_models_index_and_are_found_by_their_picture_and_their_words() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    // Asynchronous indexing, as a client that uploads a library would.
    let mut models = Vec::new();
    for name in ["flange", "washer", "stepped-shaft"] {
        let reply = ann
            .put_binary(
                &format!(
                    "/api/FileBinary?file=CAD/{name}.step&isSearchInput=false&indexAsync=true"
                ),
                sample(&format!("{name}.step")),
            )
            .await;
        reply.expect(200);
        models.push(reply.string());
    }
    ann.upload_database_file("Parts/disc.png", png(Shape::Disc, 71), &[])
        .await;
    ann.upload_database_file("Parts/bracket.png", png(Shape::Bracket, 72), &[])
        .await;
    for uid in &models {
        let path = format!("/api/FileStatus?fileUID={uid}");
        wait_until(Duration::from_secs(120), "the STEP model to index", || {
            let ann = &ann;
            let path = path.clone();
            async move {
                let reply = ann.get(&path).await;
                (reply.status != 204).then_some(reply)
            }
        })
        .await
        .expect(200);
    }
    let flange = &models[0];
    let record = ann.get(&format!("/api/File?fileUID={flange}")).await.json();
    assert_eq!(record["IndexingFinished"], true, "{record}");
    assert_eq!(record["HasThumbnail"], true, "{record}");
    assert!(record.get("IndexingError").is_none(), "{record}");

    // Its product data and measurements are extracted attributes, in millimetres.
    let extracted = extracted_attributes(&ann, flange).await;
    for expected in [
        "part_number=PL-1002",
        "product_name=Flange",
        "step_schema=AP214",
    ] {
        assert!(extracted.contains(&expected.to_owned()), "{extracted:?}");
    }
    assert!(
        extracted
            .iter()
            .any(|a| a.starts_with("bounding_box(mm)=160×")),
        "{extracted:?}"
    );

    // Free text finds it by the words of its product data.
    assert_eq!(
        ann.search_uids("FT=weld neck flange").await,
        std::slice::from_ref(flange)
    );

    // A picture of it (the large image the service rendered of it) finds it first.
    let large = reqwest::get(record["PNGURLFromID"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(large.status(), 200);
    let picture = large.bytes().await.unwrap().to_vec();
    let reply = ann
        .put_json(
            "/api/Search?fileExtension=.png",
            search_files_body(&[picture]),
        )
        .await;
    reply.expect(200);
    let result = reply.json();
    assert_eq!(&result_uids(&result)[0], flange, "{result}");
    // So does a photo-like query view of the part (the sample library's, not made from the model).
    let reply = ann
        .put_json(
            "/api/Search?fileExtension=.png",
            search_files_body(&[sample_view("flange-a.png")]),
        )
        .await;
    reply.expect(200);
    let result = reply.json();
    // First among the models; the plain disc picture may come before it (with the descriptor of
    // issue 9's first round it did: 0.83 against 0.82 for the flange, 0.80 for the washer): seen
    // face-on, a flange drawn with its outline filled is a disc with holes.
    let first_model = result_uids(&result)
        .into_iter()
        .find(|uid| models.contains(uid));
    assert_eq!(first_model.as_ref(), Some(flange), "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cad_file_that_cannot_be_meshed_fails_with_its_reason_and_keeps_its_words() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    // The washer with a vertex that refers to itself: its shape is refused, its words are read.
    let text = String::from_utf8(sample("washer.step")).unwrap();
    let looped = text.replace("#7=VERTEX_POINT('',#6);", "#7=VERTEX_POINT('',#7);");
    assert_ne!(looped, text);
    let broken = ann
        .upload_database_file("CAD/looped-washer.step", looped.into_bytes(), &[])
        .await;
    let status = ann.get(&format!("/api/FileStatus?fileUID={broken}")).await;
    status.expect(422);
    assert_eq!(status.text(), "failed");
    let reason = status.header("x-failure-reason").unwrap();
    assert!(reason.contains("refers back to itself"), "{reason}");
    let record = ann.get(&format!("/api/File?fileUID={broken}")).await.json();
    assert_eq!(record["IndexingError"], reason.as_str());
    assert_eq!(record["HasThumbnail"], false);
    assert!(
        extracted_attributes(&ann, &broken)
            .await
            .contains(&"part_number=PL-1004".to_owned())
    );
    assert_eq!(
        ann.search_uids("FT=flat washer").await,
        std::slice::from_ref(&broken)
    );

    // The IGES washer: meshed by OpenCASCADE in a build with the occt feature, else failed with a
    // reason that says what is missing; its header's words are read either way.
    let iges = ann
        .upload_database_file("CAD/washer.igs", sample("washer.igs"), &[])
        .await;
    let status = ann.get(&format!("/api/FileStatus?fileUID={iges}")).await;
    if cfg!(feature = "occt") {
        status.expect(200);
        let extracted = extracted_attributes(&ann, &iges).await;
        assert!(
            extracted
                .iter()
                .any(|a| a.starts_with("bounding_box(mm)=22.")),
            "{extracted:?}"
        );
    } else {
        status.expect(422);
        let reason = status.header("x-failure-reason").unwrap();
        assert!(reason.contains("occt feature"), "{reason}");
    }
    assert!(
        extracted_attributes(&ann, &iges)
            .await
            .contains(&"part_number=PL-1004".to_owned())
    );

    // Bytes that are no STEP at all: failed with a reason, nothing rendered.
    let garbage = ann
        .upload_search_input(".step", &[0x42_u8; 2000], false)
        .await;
    let status = ann.get(&format!("/api/FileStatus?fileUID={garbage}")).await;
    status.expect(422);
    assert!(
        status
            .header("x-failure-reason")
            .unwrap()
            .contains("not a STEP file")
    );
}
