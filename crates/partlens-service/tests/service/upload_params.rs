//! Upload and search parameters that must change what the service does (issue 48): `textOnly`
//! (a real drawing and a real model found by their words, never by their shape), `categoryId` with
//! the company's categories (`partlens-service category`, `GET /api/Categories`), the `Value`,
//! `IsCustom` and `Timestamp` of `GET /api/FileAttributes`, and the minimum size of each file of
//! `PUT /api/Search`. Each test fails when its parameter is ignored. Run on the store
//! `PARTLENS_TEST_STORE` names (SQLite by default, PostgreSQL in CI's second pass).

use partlens_api::encoding::{QueryString, search_files_body};
use partlens_service::categories;
use partlens_testkit::realworld::corpus_file;
use partlens_testkit::service::{Session, Shape, TestService, png};

/// A drawing of the corpus with a title block (its drawing number is in its text).
const DRAWING: &str = "pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf";
/// A small model of the corpus whose product is named `608ZZ_Ball_Bearing`.
const MODEL: &str = "step/freecadlib__Bearings__608ZZ_Ball_Bearing.step";

/// Uploads a company-database file with `PUT /api/FileBinary` and `extra` query parameters;
/// returns the reply.
async fn upload_with(
    session: &Session,
    stored_path: &str,
    bytes: Vec<u8>,
    extra: &[(&str, &str)],
) -> partlens_testkit::service::Reply {
    let mut query = QueryString::new();
    query
        .push("file", stored_path)
        .push("isSearchInput", "false");
    for (name, value) in extra {
        query.push(name, *value);
    }
    session
        .put_binary(&format!("/api/FileBinary?{query}"), bytes)
        .await
}

/// The UIDs a search by the search input `input_uid` finds.
async fn found_by_input(session: &Session, input_uid: &str) -> Vec<String> {
    session.search_uids(&format!("fileUID={input_uid}")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_only_files_are_found_by_their_words_and_never_by_their_shape() {
    let (Some(drawing), Some(model)) = (corpus_file(DRAWING), corpus_file(MODEL)) else {
        return;
    };
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let text_only = [("textOnly", "true"), ("attributes", "project=trident")];
    let reply = upload_with(
        &ann,
        "Drawings/plate-words.pdf",
        drawing.clone(),
        &text_only,
    )
    .await;
    reply.expect(200);
    let drawing_uid = reply.string();
    let reply = upload_with(&ann, "Models/bearing-words.step", model.clone(), &text_only).await;
    reply.expect(200);
    let model_uid = reply.string();
    // The same drawing indexed as usual: what a search by its picture does find.
    let pictured = ann
        .upload_database_file("Drawings/plate-pictured.pdf", drawing.clone(), &[])
        .await;

    for uid in [&drawing_uid, &model_uid] {
        let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
        assert_eq!(record["IndexingFinished"], true, "{record}");
        assert_eq!(record["HasThumbnail"], false, "{record}");
        assert_eq!(record["ThumbNailURLFromID"], "", "{record}");
        assert_eq!(record["PNGURLFromID"], "", "{record}");
        assert_eq!(record["TextOnly"], true, "{record}");
    }
    // Found by its words (the drawing number and the product name are in the files, not their
    // paths) and by attributes.
    let by_words = ann.search_uids("FT=VRN-BP-VT-250").await;
    assert!(by_words.contains(&drawing_uid), "{by_words:?}");
    assert_eq!(
        ann.search_uids("FT=608zz").await,
        std::slice::from_ref(&model_uid)
    );
    let by_attribute = ann.search_uids("FT=project=[trident]").await;
    assert!(
        by_attribute.contains(&drawing_uid) && by_attribute.contains(&model_uid),
        "{by_attribute:?}"
    );
    // Never by its shape: a search by its own picture finds the pictured copy only, one by its
    // own model not the model (only the pictured drawing, the one file with views).
    let drawing_input = ann.upload_search_input(".pdf", &drawing, false).await;
    assert_eq!(found_by_input(&ann, &drawing_input).await, [pictured]);
    let model_input = ann.upload_search_input(".step", &model, false).await;
    let by_model = found_by_input(&ann, &model_input).await;
    assert!(
        !by_model.contains(&model_uid) && !by_model.contains(&drawing_uid),
        "{by_model:?}"
    );
}

/// Defines Acme's categories as an admin does (`partlens-service category add`).
async fn define_categories(service: &TestService) {
    let (data, database) = (
        service.config.data_dir.clone(),
        service.config.database.clone(),
    );
    tokio::task::spawn_blocking(move || {
        let add = |id, name: &str, requires: &[&str]| {
            let requires: Vec<String> = requires.iter().map(|name| (*name).to_owned()).collect();
            categories::add_category_in(&data, database.as_ref(), "Acme", id, name, &requires)
                .unwrap()
        };
        assert_eq!(add(Some(7), "Drawings", &[]).id, 7);
        assert_eq!(add(None, "Models", &["material"]).id, 8);
        // A name taken (in any case) is refused, as is an unknown company.
        assert!(
            categories::add_category_in(&data, database.as_ref(), "Acme", None, "drawings", &[])
                .is_err()
        );
        assert!(
            categories::add_category_in(&data, database.as_ref(), "Initech", None, "X", &[])
                .is_err()
        );
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_company_with_categories_files_every_upload_under_one() {
    let service = TestService::start().await;
    define_categories(&service).await;
    let ann = service.session("ann").await;
    let listed = ann.get("/api/Categories").await;
    listed.expect(200);
    assert_eq!(
        listed.json(),
        serde_json::json!([
            {"ID": 7, "Name": "Drawings", "RequiredAttributes": []},
            {"ID": 8, "Name": "Models", "RequiredAttributes": ["material"]}
        ])
    );
    let picture = || png(Shape::Disc, 1);
    // Without a category, with one the company lacks, without the attributes it requires: 400s
    // that say what to send.
    let missing = upload_with(&ann, "a/none.png", picture(), &[]).await;
    missing.expect(400);
    assert!(
        missing.text().contains("7 (Drawings), 8 (Models)"),
        "{}",
        missing.text()
    );
    let unknown = upload_with(&ann, "a/unknown.png", picture(), &[("categoryId", "9")]).await;
    unknown.expect(400);
    assert!(
        unknown.text().contains("categoryId=9"),
        "{}",
        unknown.text()
    );
    let lacking = upload_with(&ann, "a/lacking.png", picture(), &[("categoryId", "8")]).await;
    lacking.expect(400);
    assert!(lacking.text().contains("material"), "{}", lacking.text());
    upload_with(&ann, "a/bad.png", picture(), &[("categoryId", "x")])
        .await
        .expect(400);
    // Filed: the category is an attribute of the record, found by the ordinary filters.
    let reply = upload_with(&ann, "a/drawing.png", picture(), &[("categoryId", "7")]).await;
    reply.expect(200);
    let drawing = reply.string();
    let model_attributes = [("categoryId", "8"), ("attributes", "material=steel")];
    let reply = upload_with(
        &ann,
        "a/model.png",
        png(Shape::Bracket, 2),
        &model_attributes,
    )
    .await;
    reply.expect(200);
    let model = reply.string();
    assert_eq!(ann.attributes_of(&drawing).await, ["category=Drawings"]);
    let filed = ann.attributes_of(&model).await;
    assert!(filed.contains(&"category=Models".to_owned()), "{filed:?}");
    assert_eq!(
        ann.search_uids("FT=category=[Drawings]").await,
        std::slice::from_ref(&drawing)
    );
    assert_eq!(
        ann.search_uids("FT=category=[models]").await,
        std::slice::from_ref(&model)
    );
    // Overwritten in place without attributes: checked with the attributes the file keeps (the
    // drawing has no material), and it takes the new category.
    let reply = upload_with(&ann, "a/drawing.png", picture(), &[("categoryId", "8")]).await;
    reply.expect(400);
    let reply = upload_with(&ann, "a/model.png", picture(), &[("categoryId", "7")]).await;
    reply.expect(200);
    assert_eq!(reply.string(), model);
    let refiled = ann.attributes_of(&model).await;
    assert!(
        refiled.contains(&"material=steel".to_owned())
            && refiled.contains(&"category=Drawings".to_owned()),
        "{refiled:?}"
    );
    // Search inputs are not filed; another company has no categories and refuses a categoryId.
    ann.upload_search_input(".png", &picture(), false).await;
    let gus = service.session("gus").await;
    let refused = upload_with(&gus, "g/one.png", picture(), &[("categoryId", "7")]).await;
    refused.expect(400);
    assert!(
        refused.text().contains("no categories"),
        "{}",
        refused.text()
    );
    upload_with(&gus, "g/one.png", picture(), &[])
        .await
        .expect(200);
    assert_eq!(
        gus.get("/api/Categories").await.json(),
        serde_json::json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_attributes_say_the_single_value_who_set_each_name_and_when() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    ann.upload_database_file(
        "p/one.png",
        png(Shape::Disc, 1),
        &[("material", "steel"), ("region", "EU")],
    )
    .await;
    ann.upload_database_file(
        "p/two.png",
        png(Shape::Bracket, 2),
        &[("material", "Steel"), ("region", "US")],
    )
    .await;
    let reply = ann.get("/api/FileAttributes").await;
    reply.expect(200);
    let list = reply.json();
    let entry = |name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|item| item["Name"] == name)
            .unwrap_or_else(|| panic!("{name} in {list}"))
            .clone()
    };
    let material = entry("material");
    assert!(
        material["Value"] == "steel" || material["Value"] == "Steel",
        "{material}"
    );
    assert_eq!(material["IsCustom"], true);
    let stamped = material["Timestamp"].as_str().unwrap_or_default();
    assert!(
        chrono::DateTime::parse_from_rfc3339(stamped).is_ok(),
        "{material}"
    );
    assert_eq!(entry("region")["Value"], serde_json::Value::Null);
    // What the service extracted from the pictures (their size) is listed, not custom.
    let width = entry("width_px");
    assert_eq!(width["IsCustom"], false, "{width}");
    assert!(width["Timestamp"].is_string(), "{width}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_call_search_refuses_a_file_under_the_minimum_size_and_says_which() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let body = search_files_body(&[png(Shape::Disc, 1), b"tiny".to_vec()]);
    let reply = ann.put_json("/api/Search?fileExtension=.png", body).await;
    reply.expect(400);
    let text = reply.text();
    assert!(text.contains("file 2 of the body"), "{text}");
    assert!(text.contains("1024"), "{text}");
    // The same call without the small file searches.
    let whole = ann
        .put_json(
            "/api/Search?fileExtension=.png",
            search_files_body(&[png(Shape::Disc, 1)]),
        )
        .await;
    whole.expect(200);
    assert_eq!(
        whole.json()["InputFileUID"].as_str().map(str::len),
        Some(36)
    );
}
