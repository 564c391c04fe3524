//! The local workspace: the local service started in-process on 127.0.0.1 with its data in the
//! platform's data directory, an account for the OS user logged in without a prompt, and a new
//! workspace filled with the sample library so that the first search shows results.
//!
//! The account's password is random and kept in `<workspace>/local-account.json` (mode 0600): it only
//! ever goes to the service on the loopback address, and it lets the app log in again by itself when
//! a token expires. The task layer reaches all this through
//! [`partlens_tasks::LocalWorkspaceLauncher`], and the stored content of the workspace's files (which
//! the 3D preview reads models from) through [`partlens_tasks::StoredContent`].

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use partlens_api::{ApiClient, Attribute, Credentials, FileUid};
use partlens_engine::samples::{MANIFEST_FILE_NAME, read_manifest};
use partlens_service::{RunningService, ServiceConfig, StoredFiles};
// The data directory is shared with the command line, so it lives in the task layer.
pub use partlens_tasks::data_dir::{DATA_DIR_ENV, default_data_dir};
use partlens_tasks::samples::record::{
    SAMPLE_RECORD_FILE_NAME, SampleLibrary, SamplePart, SampleRecord, SampleState, read_record,
    write_record,
};
use partlens_tasks::service_choice::DEFAULT_CLIENT_ID;
use partlens_tasks::{
    LocalWorkspaceLauncher, OpenedWorkspace, RunningWorkspace, StoredContent, StoredFile,
    WorkspaceError, WorkspaceProgressFn,
};

/// The environment variable that points at a sample library (a folder with `manifest.json`).
pub const SAMPLES_DIR_ENV: &str = "PARTLENS_SAMPLES_DIR";

/// The company of the local workspace's account.
pub const LOCAL_COMPANY: &str = "Local workspace";

/// The file that holds the local account (user, random password).
pub const ACCOUNT_FILE_NAME: &str = "local-account.json";

/// Present in a workspace made before the sample record while its sample library still had to be
/// added: read once into the record ([`sample_library`]).
const SEED_PENDING_FILE_NAME: &str = "samples-pending";

/// Where the sample library is: `$PARTLENS_SAMPLES_DIR`, else where an installed package puts it
/// beside the executable ([`installed_samples_dirs`]), else the source tree's `assets/samples` (for
/// `cargo run`).
pub fn default_samples_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(SAMPLES_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let mut candidates = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(installed_samples_dirs))
        .unwrap_or_default();
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join("samples"),
    );
    candidates
        .into_iter()
        .find(|dir| dir.join(MANIFEST_FILE_NAME).is_file())
}

/// Where the packages put the sample library, relative to the folder of the executable, in the
/// order they are tried: `assets/samples` beside it (a portable folder, the Windows installers),
/// `../share/partlens/samples` (the Debian package: `/usr/bin` → `/usr/share/partlens/samples`),
/// `../lib/partlens/assets/samples` (cargo-packager's AppImage and .deb resources) and
/// `../Resources/assets/samples` (a macOS `.app` bundle).
pub fn installed_samples_dirs(exe_dir: &Path) -> Vec<PathBuf> {
    let assets_samples = Path::new("assets").join("samples");
    vec![
        exe_dir.join(&assets_samples),
        exe_dir
            .join("..")
            .join("share")
            .join("partlens")
            .join("samples"),
        exe_dir
            .join("..")
            .join("lib")
            .join("partlens")
            .join(&assets_samples),
        exe_dir.join("..").join("Resources").join(&assets_samples),
    ]
}

/// The OS user's name (`$USER`, `$USERNAME`, `$LOGNAME`), or "partlens-user".
pub fn os_user_name() -> String {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .map(|name| name.trim().to_owned())
        .find(|name| !name.is_empty())
        .unwrap_or_else(|| "partlens-user".to_owned())
}

/// How the local workspace is opened.
#[derive(Clone, Debug)]
pub struct WorkspaceConfig {
    /// The app's data directory; the service's data goes to `<data_dir>/workspace`.
    pub data_dir: PathBuf,
    /// The sample library to add to a new workspace (none: no samples).
    pub samples_dir: Option<PathBuf>,
    /// The account's user name.
    pub user: String,
    /// Indexing workers of the service (`None`: its default).
    pub index_workers: Option<usize>,
}

impl WorkspaceConfig {
    /// The defaults for a data directory: samples from [`default_samples_dir`], the OS user.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            samples_dir: default_samples_dir(),
            user: os_user_name(),
            index_workers: None,
        }
    }

    /// The service's data directory.
    pub fn service_dir(&self) -> PathBuf {
        self.data_dir.join("workspace")
    }
}

/// The local account as kept on disk.
#[derive(Clone, Serialize, Deserialize)]
struct LocalAccount {
    user: String,
    password: String,
    company: String,
}

/// Starts the local service and opens the workspace (see the module doc).
#[derive(Clone, Debug)]
pub struct LocalServiceLauncher {
    config: WorkspaceConfig,
}

impl LocalServiceLauncher {
    /// A launcher for this configuration.
    pub fn new(config: WorkspaceConfig) -> Self {
        Self { config }
    }
}

impl LocalWorkspaceLauncher for LocalServiceLauncher {
    fn open(
        &self,
        progress: WorkspaceProgressFn,
    ) -> BoxFuture<'static, Result<OpenedWorkspace, WorkspaceError>> {
        let config = self.config.clone();
        Box::pin(async move { open_workspace(config, progress).await })
    }
}

/// The running service, shut down gracefully by the backend.
struct LocalService(RunningService);

impl RunningWorkspace for LocalService {
    fn shutdown(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move { self.0.shutdown().await })
    }
}

/// The running service's answer to "where are the bytes of this file" (its record gives the
/// extension, its disk the path).
struct WorkspaceContent(StoredFiles);

impl StoredContent for WorkspaceContent {
    fn stored_file(&self, uid: &FileUid) -> BoxFuture<'static, Option<StoredFile>> {
        let files = self.0.clone();
        let uid = uid.clone();
        Box::pin(async move {
            match files.content(&uid).await {
                Ok(content) => content.map(|content| StoredFile {
                    path: content.path,
                    extension: content.extension,
                    stored_path: content.stored_path,
                }),
                Err(error) => {
                    tracing::warn!("the workspace store could not be read: {error}");
                    None
                }
            }
        })
    }
}

async fn open_workspace(
    config: WorkspaceConfig,
    progress: WorkspaceProgressFn,
) -> Result<OpenedWorkspace, WorkspaceError> {
    let service_dir = config.service_dir();
    let account = {
        let service_dir = service_dir.clone();
        let user = config.user.clone();
        tokio::task::spawn_blocking(move || prepare_account(&service_dir, &user))
            .await
            .map_err(|error| WorkspaceError(format!("setting up the account failed: {error}")))??
    };

    progress("Starting the local service…".into());
    let mut service_config = ServiceConfig::new(&service_dir);
    service_config.addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    if let Some(workers) = config.index_workers {
        service_config.index_workers = workers;
    }
    let service = RunningService::start(service_config)
        .await
        .map_err(|error| WorkspaceError(format!("the local service did not start: {error}")))?;

    let credentials = Credentials {
        client_id: DEFAULT_CLIENT_ID.to_owned(),
        username: account.user.clone(),
        password: account.password.clone(),
    };
    let mut client = ApiClient::new(&service.base_url()).map_err(|error| {
        WorkspaceError(format!("the local service address is unusable: {error}"))
    })?;
    if let Err(error) = client.login(&credentials).await {
        service.shutdown().await;
        return Err(WorkspaceError(format!(
            "the local service refused the workspace account: {error}"
        )));
    }
    tracing::info!(
        "local workspace open at {} as {}",
        service.base_url(),
        account.user
    );

    let content = WorkspaceContent(service.stored_files());

    let samples = match config.samples_dir.clone() {
        Some(samples_dir) => {
            let service_dir = service_dir.clone();
            tokio::task::spawn_blocking(move || sample_library(&samples_dir, &service_dir))
                .await
                .unwrap_or_else(|error| {
                    tracing::warn!("no sample library: {error}");
                    None
                })
        }
        None => {
            tracing::info!("no sample library found; the workspace has none");
            None
        }
    };
    Ok(OpenedWorkspace {
        client,
        credentials,
        company: account.company,
        service: Box::new(LocalService(service)),
        content: Arc::new(content),
        samples,
    })
}

/// Reads the account file, or creates the account of a new workspace (marking the samples as still to
/// add); makes sure the service's store has the user with this password, as an admin.
fn prepare_account(service_dir: &Path, user: &str) -> Result<LocalAccount, WorkspaceError> {
    std::fs::create_dir_all(service_dir).map_err(|error| {
        WorkspaceError(format!("cannot create {}: {error}", service_dir.display()))
    })?;
    let path = service_dir.join(ACCOUNT_FILE_NAME);
    let account = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<LocalAccount>(&text).map_err(|error| {
            WorkspaceError(format!(
                "{} is damaged ({error}); delete it to create a new account",
                path.display()
            ))
        })?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let account = LocalAccount {
                user: user.to_owned(),
                password: random_password(),
                company: LOCAL_COMPANY.to_owned(),
            };
            write_private(&path, &account)?;
            // A new workspace: its sample library is to be added.
            let record = service_dir.join(SAMPLE_RECORD_FILE_NAME);
            write_record(&record, &SampleRecord::default()).map_err(|error| {
                WorkspaceError(format!("cannot write {}: {error}", record.display()))
            })?;
            account
        }
        Err(error) => {
            return Err(WorkspaceError(format!(
                "cannot read {}: {error}",
                path.display()
            )));
        }
    };
    // Idempotent: creates the company and user, or resets the password of an existing user (for
    // instance after the store was deleted but the account file kept).
    partlens_service::admin::add_user(
        service_dir,
        &account.company,
        &account.user,
        &account.password,
        true,
    )
    .map_err(|error| WorkspaceError(format!("cannot create the workspace account: {error}")))?;
    Ok(account)
}

/// 256 random bits as hex (uuid v4 draws from the OS's random source).
fn random_password() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Writes the account file readable by the owner only.
fn write_private(path: &Path, account: &LocalAccount) -> Result<(), WorkspaceError> {
    use std::io::Write as _;
    let text = serde_json::to_string_pretty(account)
        .map_err(|error| WorkspaceError(format!("cannot encode the account: {error}")))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|error| WorkspaceError(format!("cannot write {}: {error}", path.display())))?;
    file.write_all(text.as_bytes())
        .map_err(|error| WorkspaceError(format!("cannot write {}: {error}", path.display())))
}

/// The sample library of `samples_dir` for the workspace in `service_dir`: its parts from the
/// manifest (a part with a bad attribute is left out), and its record. A workspace made before the
/// record has none: its library is to be added when the old marker says so, else it was added.
fn sample_library(samples_dir: &Path, service_dir: &Path) -> Option<SampleLibrary> {
    let manifest = match read_manifest(samples_dir) {
        Ok(manifest) => manifest,
        Err(problem) => {
            tracing::warn!("no sample library: {problem}");
            return None;
        }
    };
    let parts: Vec<SamplePart> = manifest
        .parts
        .iter()
        .filter_map(|part| {
            let attributes = part
                .attributes
                .iter()
                .map(|text| Attribute::parse(text))
                .collect::<Result<Vec<_>, _>>();
            match attributes {
                Ok(attributes) => Some(SamplePart {
                    path: samples_dir.join(&part.file),
                    stored_path: part.stored_path.clone(),
                    attributes,
                }),
                Err(error) => {
                    tracing::warn!("sample {}: bad attribute: {error}", part.file);
                    None
                }
            }
        })
        .collect();
    let record_path = service_dir.join(SAMPLE_RECORD_FILE_NAME);
    if !record_path.exists() {
        let pending = service_dir.join(SEED_PENDING_FILE_NAME);
        let record = if pending.exists() {
            SampleRecord::default()
        } else {
            SampleRecord {
                state: SampleState::Added,
                added: parts.iter().map(|part| part.stored_path.clone()).collect(),
            }
        };
        if let Err(error) = write_record(&record_path, &record) {
            tracing::warn!("cannot write {}: {error}", record_path.display());
        } else if let Err(error) = std::fs::remove_file(&pending)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!("cannot remove {}: {error}", pending.display());
        }
    }
    tracing::info!(
        "sample library ({:?}) of {} parts from {}",
        read_record(&record_path).state,
        parts.len(),
        samples_dir.display()
    );
    Some(SampleLibrary { parts, record_path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_account_is_private_and_read_back_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(ACCOUNT_FILE_NAME);
        let account = LocalAccount {
            user: "alice".into(),
            password: random_password(),
            company: LOCAL_COMPANY.into(),
        };
        write_private(&path, &account).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let back: LocalAccount =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back.password, account.password);
        assert_eq!(account.password.len(), 64);
        assert_ne!(random_password(), random_password());
    }

    #[test]
    fn every_package_layout_finds_its_sample_library() {
        let layouts = [
            ("partlens", "partlens/assets/samples"),
            ("usr/bin", "usr/share/partlens/samples"),
            ("usr/bin", "usr/lib/partlens/assets/samples"),
            (
                "partlens.app/Contents/MacOS",
                "partlens.app/Contents/Resources/assets/samples",
            ),
        ];
        for (exe_dir, samples_dir) in layouts {
            let root = tempfile::tempdir().unwrap();
            let exe_dir = root.path().join(exe_dir);
            let samples_dir = root.path().join(samples_dir);
            std::fs::create_dir_all(&exe_dir).unwrap();
            std::fs::create_dir_all(&samples_dir).unwrap();
            std::fs::write(samples_dir.join("manifest.json"), "{}").unwrap();
            let found = installed_samples_dirs(&exe_dir)
                .into_iter()
                .find(|dir| dir.join(MANIFEST_FILE_NAME).is_file())
                .unwrap_or_else(|| panic!("no sample library found for {}", exe_dir.display()));
            assert_eq!(
                found.canonicalize().unwrap(),
                samples_dir.canonicalize().unwrap()
            );
        }
    }
}
