//! What the backend tells the front end. Plain data; every Event is followed by a repaint request.

use std::path::PathBuf;
use std::sync::Arc;

use super::duplicates::parts::{DuplicateParts, DuplicateRecord};
use super::history::SearchHistory;
use super::jobs::job::{Job, JobId};
use super::models::ModelPreview;
use super::samples::record::SampleLibraryStatus;
use super::search::view_search::{ViewInput, ViewSearchProgress};
use super::service_choice::ServiceChoice;
use super::sync::{SyncPreview, SyncRun, SyncSetup};
use super::thumbnails::DecodedImage;
use partlens_api::library::LibraryPage;
use partlens_api::{
    ApiError, Attribute, AttributeValue, FileRecord, FileUid, PmiData, RelationTree, SearchResult,
};

/// Who is logged in where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    /// The service.
    pub service: ServiceChoice,
    /// The base address the session talks to (for the local workspace, its loopback address).
    pub address: String,
    /// The user name.
    pub user: String,
    /// The company, when the service says (the local workspace does; the interface has no call for it).
    pub company: Option<String>,
}

/// How a message to the user weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Good to know.
    Info,
    /// Something did not work as the user wanted; the app carries on.
    Warning,
    /// Something failed.
    Error,
}

/// A message from the backend.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Opening a service is under way ("Starting the local service…").
    Connecting {
        /// What is happening, in words.
        detail: String,
    },
    /// Logged in; parked commands run again.
    LoggedIn(SessionInfo),
    /// What the local workspace is doing after its login ("Adding the sample library (3 of 22)…"),
    /// or `None` when that work has ended: the one banner's sentence.
    WorkspaceActivity {
        /// What is happening, in words; `None` when done.
        detail: Option<String>,
    },
    /// The service does not answer (stopped, unreachable, restarting): said once; uploads and
    /// searches wait for it, and it is asked again now and then.
    ServiceUnreachable {
        /// What happened, in words.
        message: String,
    },
    /// The service answers again; the work that waited runs.
    ServiceReachable,
    /// Where the local workspace's sample library is (for Settings, which can remove it).
    SampleLibrary(SampleLibraryStatus),
    /// The service needs a login (first start of a remote service, or a 401 at any time). What the
    /// user was doing is kept and runs again after the login.
    LoginRequired {
        /// The service to log in to.
        service: ServiceChoice,
        /// The user name to prefill.
        user: Option<String>,
        /// Why, when it is not the first login ("Your session has expired.").
        reason: Option<String>,
    },
    /// A login attempt failed; the form stays open.
    LoginFailed {
        /// What happened and what to do.
        message: String,
    },
    /// The service could not be opened at all (local workspace failed to start, bad address).
    ConnectFailed {
        /// What happened and what to do.
        message: String,
    },
    /// Logged out.
    LoggedOut,
    /// A message for the user.
    Notice {
        /// How it weighs.
        level: NoticeLevel,
        /// The sentence.
        message: String,
    },
    /// The jobs saved by an earlier run.
    JobsRestored(Vec<Job>),
    /// A job was added or changed.
    JobUpdated(Job),
    /// A job was taken off the list.
    JobRemoved(JobId),
    /// The user chose files in the dialog (empty when cancelled).
    FilesPicked(Vec<PathBuf>),
    /// The user chose views to search by (empty when cancelled).
    ViewsPicked(Vec<PathBuf>),
    /// Where search `id` is (uploading, indexing, searching).
    SearchProgress {
        /// The search.
        id: u64,
        /// Its progress, each view named by its slot.
        progress: ViewSearchProgress,
    },
    /// Search `id` finished.
    SearchFinished {
        /// The search.
        id: u64,
        /// The input UID each view was searched by, by slot (kept for the next search).
        inputs: Vec<ViewInput>,
        /// The result.
        result: SearchResult,
    },
    /// Before search `id` runs: the service no longer has the kept inputs of these views (404 or
    /// 422 on their status), so they go up again with the search.
    SearchInputsGone {
        /// The search.
        id: u64,
        /// The slots of those views.
        slots: Vec<u64>,
    },
    /// Search `id` failed or was cancelled; the sentence says why and what to do.
    SearchFailed {
        /// The search.
        id: u64,
        /// What happened.
        message: String,
        /// True when trying again later may succeed (network, 5xx, a timeout); false for a view
        /// the service cannot read.
        transient: bool,
    },
    /// The search history changed (or was read at start): every entry, newest first.
    HistoryChanged(SearchHistory),
    /// The company's attribute names.
    AttributeNames(Vec<String>),
    /// The company's file categories, by id; `None` when the service cannot list them (another
    /// service has no `GET /api/Categories`): the upload form then asks for a number.
    Categories(Option<Vec<partlens_api::FileCategory>>),
    /// The company's callback and its last deliveries, or why not (a 403 for a non-admin, a 404
    /// from a service without callbacks).
    CallbackLoaded(Result<partlens_api::CallbackOverview, ApiError>),
    /// The callback was saved (the settings, with a secret made by the save in full), or why not.
    CallbackSaved(Result<partlens_api::CallbackSettingsView, ApiError>),
    /// What the receiver answered the test event, or why it was not sent.
    CallbackTested(Result<partlens_api::CallbackTestOutcome, ApiError>),
    /// The values of an attribute, with counts.
    AttributeValues {
        /// The attribute.
        name: String,
        /// Its values.
        values: Vec<AttributeValue>,
    },
    /// A file record.
    RecordLoaded {
        /// The file.
        uid: FileUid,
        /// The record, decoded, with every field the service sent beside it.
        record: FileRecord,
    },
    /// A file's assembly relations, walked (`Command::LoadRelations`).
    RelationsLoaded {
        /// The file.
        uid: FileUid,
        /// Its components down to the leaf parts, or why they could not be read.
        components: Result<RelationTree, ApiError>,
        /// The assemblies that use it up to the top ones, or why they could not be read.
        used_in: Result<RelationTree, ApiError>,
    },
    /// A file record could not be loaded.
    RecordFailed {
        /// The file.
        uid: FileUid,
        /// Why.
        error: ApiError,
    },
    /// A file's attributes were saved (or cleared).
    AttributesSaved {
        /// The file.
        uid: FileUid,
        /// What the service has now.
        attributes: Vec<Attribute>,
        /// The record reloaded after the save, when that worked.
        record: Option<FileRecord>,
    },
    /// Saving (or clearing) attributes failed.
    AttributesSaveFailed {
        /// The file.
        uid: FileUid,
        /// Why.
        error: ApiError,
    },
    /// A file was deleted.
    FileDeleted(FileUid),
    /// A delete failed (403, 404, …).
    DeleteFailed {
        /// The file.
        uid: FileUid,
        /// Why.
        error: ApiError,
    },
    /// An image is decoded and scaled.
    ImageLoaded(DecodedImage),
    /// An image could not be had.
    ImageFailed {
        /// The key it was requested under.
        key: String,
        /// Why, in words.
        message: String,
    },
    /// A file's extracted PMI, free text and attributes.
    PmiLoaded {
        /// The file.
        uid: FileUid,
        /// What the service extracted (pages may be empty).
        data: PmiData,
    },
    /// A file's PMI could not be loaded.
    PmiFailed {
        /// The file.
        uid: FileUid,
        /// Why.
        error: ApiError,
    },
    /// Feedback on a file's extracted attributes was stored by the service.
    FeedbackSent {
        /// The file.
        uid: FileUid,
        /// The feedback id the service answered with.
        feedback_id: String,
    },
    /// Feedback could not be sent (refused, unreachable, invalid); the form is kept.
    FeedbackFailed {
        /// The file.
        uid: FileUid,
        /// Why.
        error: ApiError,
    },
    /// Feedback met a 401: it is kept and sent again after the login.
    FeedbackAwaitingLogin {
        /// The file.
        uid: FileUid,
    },
    /// A 3D model is read and ready to draw.
    ModelLoaded {
        /// The key it was requested under.
        key: String,
        /// The model, reduced for display, with its measurements.
        preview: Arc<ModelPreview>,
    },
    /// A 3D model cannot be shown (no copy on this computer, not a model format, over a limit).
    ModelUnavailable {
        /// The key it was requested under.
        key: String,
        /// Why, and what to do.
        reason: String,
    },
    /// The user chose a model file to show (none when cancelled).
    ModelFilePicked(Option<PathBuf>),
    /// The user chose the folder of a library sync (`None` when the dialog was cancelled).
    SyncFolderPicked(Option<PathBuf>),
    /// The user chose the attributes CSV of a library sync (`None` when cancelled).
    SyncCsvPicked(Option<PathBuf>),
    /// What a library sync would work on.
    SyncPreviewed {
        /// The setup the preview was asked for.
        setup: SyncSetup,
        /// The preview, or why the folder, the CSV or the setup cannot be used.
        preview: Result<SyncPreview, String>,
    },
    /// A library sync started, moved on, paused, stopped or ended.
    SyncUpdated(SyncRun),
    /// A page of the company's library.
    LibraryPageLoaded {
        /// The listing it was asked for (`Command::LoadLibraryPage`).
        request: u64,
        /// The page, with how many files the listing holds.
        page: LibraryPage,
    },
    /// A page of the library could not be loaded.
    LibraryPageFailed {
        /// The listing it was asked for.
        request: u64,
        /// The page's offset.
        offset: usize,
        /// Why.
        error: ApiError,
    },
    /// Where finding duplicates is ("The service is gathering…").
    DuplicatesProgress {
        /// The request (`Command::FindDuplicates`).
        request: u64,
        /// What is happening, in words.
        detail: String,
    },
    /// The company's duplicate parts, their files' records not yet loaded.
    DuplicatesFound {
        /// The request.
        request: u64,
        /// The groups.
        parts: DuplicateParts,
    },
    /// Duplicates could not be found.
    DuplicatesFailed {
        /// The request.
        request: u64,
        /// Why.
        error: ApiError,
    },
    /// The records asked for by `Command::LoadDuplicateRecords`.
    DuplicateRecordsLoaded {
        /// The `FindDuplicates` request whose groups the files belong to.
        request: u64,
        /// A record for each file asked for, in the order asked.
        records: Vec<DuplicateRecord>,
    },
}
