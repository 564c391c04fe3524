//! The Duplicates place, driven with egui_kittest against a real service on 127.0.0.1: one part
//! uploaded twice (the sample flange as its STL and its STEP file) and another part (the sample
//! shaft's STL) are one group of the flange's two files, the shaft in none; the group's *Compare*
//! opens the compare page on those two files and leads back; a file's card opens its detail and
//! leads back; a company without files says it has no duplicates and how to get some.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::duplicates::DuplicatesStatus;
use partlens::ui::duplicates::groups::RecordState;
use partlens::ui::place::Place;
use partlens::ui::search_place::SearchPage;

use crate::support::*;

/// Goes to Duplicates through the top bar and waits for the answer.
fn open_duplicates(harness: &mut Harness<'_, App>) {
    harness
        .get_by_role_and_label(Role::Button, "Duplicates")
        .click();
    step_until(harness, "the duplicates", |harness| {
        matches!(
            harness.state().duplicates().status(),
            DuplicatesStatus::Ready | DuplicatesStatus::Failed(_)
        )
    });
    if let DuplicatesStatus::Failed(sentence) = harness.state().duplicates().status() {
        panic!("the duplicates failed: {sentence}");
    }
    harness.step();
}

/// Steps until every indexed file of the company can be compared (uploads of the company database
/// are indexed in the background).
fn wait_indexed(
    runtime: &tokio::runtime::Runtime,
    client: &partlens_api::ApiClient,
    uids: &[partlens_api::FileUid],
) {
    for uid in uids {
        runtime.block_on(async {
            let deadline = std::time::Instant::now() + DEADLINE;
            loop {
                let status = client.file_status(uid).await.unwrap();
                if status.is_terminal() {
                    assert!(
                        matches!(status, partlens_api::FileStatus::Completed { .. }),
                        "{uid}: {status:?}"
                    );
                    break;
                }
                assert!(std::time::Instant::now() < deadline, "{uid} not indexed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        });
    }
}

#[test]
fn a_part_uploaded_twice_is_one_group_that_compares_and_opens_its_files() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &dir.path().join("service"));
    let admin = admin_client(&runtime, &service);
    let models = samples_dir().join("models");
    let uids = [
        add_database_file(
            &runtime,
            &admin,
            &models.join("flange.stl"),
            "parts/flange.stl",
            &["material=steel"],
        ),
        add_database_file(
            &runtime,
            &admin,
            &models.join("flange.step"),
            "cad/flange-rev-b.step",
            &["material=steel"],
        ),
        add_database_file(
            &runtime,
            &admin,
            &models.join("stepped-shaft.stl"),
            "parts/stepped-shaft.stl",
            &[],
        ),
    ];
    wait_indexed(&runtime, &admin, &uids);
    let mut harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    open_duplicates(&mut harness);
    assert_eq!(harness.state().place(), Place::Duplicates);

    // One group: the flange's two files, never the shaft.
    let groups = harness.state().duplicates().groups();
    assert_eq!(groups.len(), 1, "{groups:?}");
    let mut names: Vec<&str> = groups[0]
        .files
        .iter()
        .map(|file| file.row.file_name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["cad/flange-rev-b.step", "parts/flange.stl"]);
    assert!(
        groups[0].score >= 0.885 && groups[0].score <= 1.0,
        "{}",
        groups[0].score
    );
    // On screen: the count, each file with its format and size, and no card of the shaft.
    harness.get_by_label("1 group of 2 files");
    harness.get_by_label("Open flange.stl");
    harness.get_by_label("Open flange-rev-b.step");
    assert!(harness.query_by_label("Open stepped-shaft.stl").is_none());
    let captions: Vec<String> = groups[0].files.iter().map(|file| file.caption()).collect();
    assert!(
        captions
            .iter()
            .any(|caption| caption.starts_with("STL · ") && caption.ends_with(" mm")),
        "{captions:?}"
    );
    assert!(
        captions
            .iter()
            .any(|caption| caption.starts_with("STEP · ") && caption.ends_with(" mm")),
        "{captions:?}"
    );
    for file in &groups[0].files {
        assert!(
            harness.query_all_by_label(&file.size).next().is_some(),
            "{} on screen",
            file.size
        );
    }
    harness.get_by_label("STEP");
    harness.get_by_label("STL");
    // Their thumbnails come from the records the task layer loaded (asked for once the cards
    // were on screen).
    step_until(&mut harness, "the files' records", |harness| {
        harness.state().duplicates().groups()[0]
            .files
            .iter()
            .all(|file| file.record == RecordState::Answered)
    });
    let groups = harness.state().duplicates().groups();
    assert!(
        groups[0]
            .files
            .iter()
            .all(|file| !file.row.thumbnail_url.is_empty())
    );

    // Compare opens the compare page on the two files, and its back button leads here again.
    harness
        .get_by_role_and_label(Role::Button, "Compare part 1")
        .click();
    harness.step();
    assert_eq!(harness.state().place(), Place::Search);
    assert_eq!(harness.state().search().page(), SearchPage::Compare);
    let mut compared: Vec<String> = harness
        .state()
        .search()
        .compare()
        .rows()
        .iter()
        .map(|row| row.file_name.clone())
        .collect();
    compared.sort_unstable();
    assert_eq!(compared, ["cad/flange-rev-b.step", "parts/flange.stl"]);
    step_until_label(&mut harness, "Comparing 2 files of one part");
    // The comparison is drawn by the Search place, but the top bar lights Duplicates.
    assert_eq!(harness.state().highlighted_place(), Place::Duplicates);
    step_until(&mut harness, "the compared pictures", |harness| {
        harness.state().search().compare().pictures_settled()
    });
    harness.get_by_label("Back to Duplicates").click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().place(), Place::Duplicates);
    harness.get_by_label("1 group of 2 files");

    // A file's card opens its detail, which leads back here too.
    harness.get_by_label("Open flange-rev-b.step").click();
    harness.step();
    assert_eq!(harness.state().place(), Place::Search);
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    step_until(&mut harness, "the record", |harness| {
        harness.state().search().detail().record().is_some()
    });
    assert!(harness.query_by_label("Back to results").is_none());
    assert_eq!(harness.state().highlighted_place(), Place::Duplicates);
    // The Search tab leads to the search, not to this file.
    harness
        .get_by_role_and_label(Role::Button, "Search")
        .click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Results);
    assert_eq!(harness.state().highlighted_place(), Place::Search);
    harness
        .get_by_role_and_label(Role::Button, "Duplicates")
        .click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().highlighted_place(), Place::Duplicates);
    harness.get_by_label("Open flange-rev-b.step").click();
    harness.step();
    step_until(&mut harness, "the record", |harness| {
        harness.state().search().detail().record().is_some()
    });
    harness.get_by_label("Back to Duplicates").click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().place(), Place::Duplicates);
    // Shown again without asking the service again.
    assert_eq!(harness.state().duplicates().requests_sent(), 1);
    close_app(&runtime, harness);
}

#[test]
fn a_company_without_files_has_no_duplicates_and_says_how_to_get_some() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &dir.path().join("service"));
    let mut harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    // Ctrl+Shift+D goes there too.
    harness.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::D,
    );
    harness.step();
    assert_eq!(harness.state().place(), Place::Duplicates);
    step_until(&mut harness, "the duplicates", |harness| {
        harness.state().duplicates().status() == &DuplicatesStatus::Ready
    });
    harness.step();
    assert!(harness.state().duplicates().groups().is_empty());
    harness.get_by_label("No duplicate parts in this company's library.");
    harness.get_by_label_contains("no indexed files to compare yet");
    harness.get_by_label("Add files…");
    close_app(&runtime, harness);
}
