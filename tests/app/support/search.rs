//! The Search place under test: the sample workspace, searching from the query bar and waiting for
//! the answer, the stored names of the results, typing into a labelled field, and a company service
//! with an admin and a user that an app logs in to. Shared by the app tests of the Search place
//! (`app_search.rs`, `app_viewer.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use partlens::ui::App;
use partlens::ui::model_view::ModelEntry;
use partlens::ui::results::ResultsStatus;
use partlens::ui::search_place::SearchPage;
use partlens::workspace::{LocalServiceLauncher, WorkspaceConfig};
use partlens_api::{ApiClient, Attribute, Credentials, FileUid, UploadRequest, UploadSource};
use partlens_service::{RunningService, ServiceConfig, admin};
use partlens_tasks::ServiceChoice;

use super::*;

/// The sample library shipped in `assets/samples`.
pub fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join("samples")
}

/// The local workspace in `data_dir` with the sample library already added (a copy of the one
/// [`copy_sample_template`] made for the test binary, unless `data_dir` holds something already).
pub fn sample_workspace(data_dir: &Path) -> Arc<LocalServiceLauncher> {
    copy_sample_template(data_dir);
    fresh_sample_workspace(data_dir)
}

/// The local workspace in `data_dir`, adding the sample library itself when it is new.
pub fn fresh_sample_workspace(data_dir: &Path) -> Arc<LocalServiceLauncher> {
    Arc::new(LocalServiceLauncher::new(WorkspaceConfig {
        data_dir: data_dir.to_path_buf(),
        samples_dir: Some(samples_dir()),
        user: "tester".into(),
        index_workers: Some(2),
    }))
}

/// The local workspace in `data_dir` without samples, indexing with `index_workers` workers.
pub fn empty_workspace(data_dir: &Path, index_workers: usize) -> Arc<LocalServiceLauncher> {
    Arc::new(LocalServiceLauncher::new(WorkspaceConfig {
        data_dir: data_dir.to_path_buf(),
        samples_dir: None,
        user: "tester".into(),
        index_workers: Some(index_workers),
    }))
}

/// Presses Enter (in the focused field), steps until that started a new search, and waits for it.
pub fn search_with_enter(harness: &mut Harness<'_, App>) {
    let before = harness.state().search().searches_started();
    harness.key_press(egui::Key::Enter);
    step_until(harness, "Enter to start a search", |harness| {
        harness.state().search().searches_started() > before
    });
    wait_for_search(harness);
}

/// Steps until the running search (started this frame or earlier) has its answer; fails on an error.
pub fn wait_for_search(harness: &mut Harness<'_, App>) {
    step_until(harness, "the search to finish", |harness| {
        !harness.state().search().is_searching()
    });
    if let ResultsStatus::Failed { message, .. } = harness.state().search().results().status() {
        panic!("the search failed: {message}");
    }
    assert_eq!(
        harness.state().search().results().status(),
        &ResultsStatus::Ready
    );
}

/// The stored file names of the results, in display order.
pub fn result_files(harness: &Harness<'_, App>) -> Vec<String> {
    harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .map(|row| row.file_name.clone())
        .collect()
}

/// Types into the field with this accessible label (focusing it first, which may take a frame or two
/// after a modal closed).
pub fn type_into(harness: &mut Harness<'_, App>, label: &str, text: &str) {
    step_until(harness, &format!("the focus in \"{label}\""), |harness| {
        let field = harness.get_by_label(label);
        if field.accesskit_node().is_focused() {
            true
        } else {
            field.focus();
            false
        }
    });
    harness.get_by_label(label).type_text(text);
    harness.step();
}

/// A running service of company "Acme" with an admin ("boss") and a user ("alice").
pub fn company_service(runtime: &tokio::runtime::Runtime, dir: &Path) -> RunningService {
    company_service_with(runtime, dir, |_| {})
}

/// [`company_service`] with its configuration changed by `adjust`.
pub fn company_service_with(
    runtime: &tokio::runtime::Runtime,
    dir: &Path,
    adjust: impl FnOnce(&mut ServiceConfig),
) -> RunningService {
    std::fs::create_dir_all(dir).unwrap();
    admin::add_user(dir, "Acme", "boss", "boss password", true).unwrap();
    admin::add_user(dir, "Acme", "alice", "alice password", false).unwrap();
    runtime.block_on(async {
        let mut config = ServiceConfig::new(dir);
        config.addr = "127.0.0.1:0".parse().unwrap();
        adjust(&mut config);
        RunningService::start(config).await.unwrap()
    })
}

/// A client of the service logged in as the admin.
pub fn admin_client(runtime: &tokio::runtime::Runtime, service: &RunningService) -> ApiClient {
    runtime.block_on(async {
        let mut client = ApiClient::new(&service.base_url()).unwrap();
        client
            .login(&Credentials {
                client_id: "partlens".into(),
                username: "boss".into(),
                password: "boss password".into(),
            })
            .await
            .unwrap();
        client
    })
}

/// Uploads a company-database file as the admin.
pub fn add_database_file(
    runtime: &tokio::runtime::Runtime,
    client: &ApiClient,
    path: &Path,
    stored_path: &str,
    attributes: &[&str],
) -> FileUid {
    let attributes: Vec<Attribute> = attributes
        .iter()
        .map(|text| Attribute::parse(text).unwrap())
        .collect();
    let request = UploadRequest::database(
        UploadSource::Path(path.to_path_buf()),
        stored_path,
        attributes,
    );
    runtime.block_on(async { client.upload(&request, None).await.unwrap().uid })
}

/// Searches for `text`, opens the result called `name` and waits for its record.
pub fn open_result(harness: &mut Harness<'_, App>, text: &str, name: &str) {
    type_into(harness, "Search text", text);
    search_with_enter(harness);
    harness.get_by_label(&format!("Open {name}")).click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    step_until(harness, "the record", |harness| {
        harness.state().search().detail().record().is_some()
    });
}

/// Where the detail's 3D model is (`None`: no model asked for).
pub fn detail_model_entry(harness: &Harness<'_, App>) -> Option<ModelEntry> {
    harness
        .state()
        .search()
        .detail()
        .model()
        .and_then(|model| model.entry().cloned())
}

/// Steps until the detail's model is ready (fails on an unavailable one).
pub fn wait_for_detail_model(harness: &mut Harness<'_, App>) {
    step_until(harness, "the detail's 3D model", |harness| {
        let entry = detail_model_entry(harness);
        if let Some(ModelEntry::Unavailable(reason)) = &entry {
            panic!("the model is unavailable: {reason}");
        }
        matches!(entry, Some(ModelEntry::Ready(_)))
    });
}

/// Ticks the results called `names` and opens their comparison.
pub fn compare_results(harness: &mut Harness<'_, App>, names: &[String]) {
    for name in names {
        harness.get_by_label(&format!("Compare {name}")).click();
        harness.run_steps(2);
    }
    harness
        .get_by_label(&format!("Compare ({})", names.len()))
        .click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Compare);
}

/// An app on the local workspace in `data` that starts with a search by the sample photo of the
/// gear (results ordered by score, pictures and models of several kinds), its results shown.
pub fn app_searching_by_the_gear_photo(
    runtime: &tokio::runtime::Runtime,
    data: &Path,
) -> Harness<'static, App> {
    let mut parts = AppParts::new(data, sample_workspace(data));
    parts.initial_views = vec![samples_dir().join("views").join("gear-a.png")];
    let mut harness = app_harness(runtime, &parts);
    wait_logged_in(&mut harness);
    step_until(&mut harness, "the search by the photo", |harness| {
        harness
            .state()
            .search()
            .results()
            .ordered_rows()
            .next()
            .is_some()
    });
    harness
}

/// An app on `service` of [`company_service`], logged in through the form as its user alice.
pub fn app_as_alice(
    runtime: &tokio::runtime::Runtime,
    data: &Path,
    service: &RunningService,
) -> Harness<'static, App> {
    app_on(runtime, data, service, "alice", "alice password")
}

/// An app on `service`, logged in through the form.
pub fn app_on(
    runtime: &tokio::runtime::Runtime,
    data: &Path,
    service: &RunningService,
    user: &str,
    password: &str,
) -> Harness<'static, App> {
    let mut parts = AppParts::new(data, sample_workspace(data));
    parts.settings.service = ServiceChoice::remote(&service.base_url(), "partlens");
    let mut harness = app_harness(runtime, &parts);
    log_in_through_the_form(&mut harness, user, password);
    wait_logged_in(&mut harness);
    harness
}
