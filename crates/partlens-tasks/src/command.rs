//! What the front end asks the backend to do. Plain data: views push Commands, the app hands them to
//! the [`Backend`](super::backend::Backend), which answers with [`Event`](super::event::Event)s.

use super::jobs::job::{JobId, UploadSpec};
use super::jobs::poll::PollPolicy;
use super::models::ModelRequest;
use super::search::view_search::ViewSearchRequest;
use super::service_choice::ServiceChoice;
use super::sync::{SyncKey, SyncSetup};
use super::thumbnails::ImageRequest;
use partlens_api::library::LibraryQuery;
use partlens_api::{Attribute, FeedbackRequest, FileUid};

/// A request to the backend.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Use this service: open the local workspace (logged in without a prompt) or a remote service
    /// (with the remembered token of `user`, or by asking for a login).
    Connect {
        /// The service.
        service: ServiceChoice,
        /// The last user of a remote service: their remembered token is looked up, and the login
        /// form is prefilled with the name.
        user: Option<String>,
    },
    /// Log in to a remote service.
    LogIn {
        /// The service (its address and client id as typed in the login form).
        service: ServiceChoice,
        /// The user name.
        user: String,
        /// The plain password; only its digest is sent and it is never stored.
        password: String,
        /// Keep the token in the OS keyring.
        remember: bool,
    },
    /// Forget the session and any remembered token of the current user.
    LogOut,
    /// Ask the user for files with the native dialog; answers `Event::FilesPicked`.
    PickFiles,
    /// Upload these files, one job each.
    Upload(Vec<UploadSpec>),
    /// Stop a job that is queued, uploading or being indexed.
    CancelJob(JobId),
    /// Start a failed or cancelled job again (the file is uploaded again).
    RetryJob(JobId),
    /// Take a finished job off the list.
    RemoveJob(JobId),
    /// Take every finished job off the list.
    ClearFinishedJobs,
    /// Poll indexing with this policy from now on.
    SetPollPolicy(PollPolicy),
    /// Carry on with an unfinished job: upload it, or poll its indexing when the upload went through
    /// (after a restart, or after a login that a 401 asked for).
    ResumeJob(JobId),
    /// Ask the user for views to search by; answers `Event::ViewsPicked`.
    PickViews,
    /// Run a search (upload the views that need it, wait for their indexing, search); answers
    /// `Event::SearchProgress`, then `SearchFinished` or `SearchFailed`, all with this `id`.
    Search {
        /// Chosen by the front end, so that answers to an older search can be told apart.
        id: u64,
        /// What to search.
        request: ViewSearchRequest,
        /// Keep the search in the history once it finished: recorded by the backend itself, with
        /// the input UIDs its views got and a copy of each (to upload it again if the service
        /// loses it); then `Event::HistoryChanged`.
        keep_in_history: bool,
    },
    /// Stop the search with this id.
    CancelSearch(u64),
    /// Load the company's attribute names (`GET /api/FileAttributes`); answers
    /// `Event::AttributeNames`.
    LoadAttributeNames,
    /// Load the company's file categories (`GET /api/Categories`, this service's own); answers
    /// `Event::Categories`.
    LoadCategories,
    /// Load the company's callback and its last deliveries (`GET /api/Callback`, this service's
    /// own, for admins); answers `Event::CallbackLoaded`. A 401 parks it until the next login.
    LoadCallback,
    /// Set the company's callback (`PUT /api/Callback`); answers `Event::CallbackSaved`.
    SaveCallback(partlens_api::CallbackUpdate),
    /// Send the test event to the company's callback now (`POST /api/Callback/Test`); answers
    /// `Event::CallbackTested`, then `CallbackLoaded` with the test among the deliveries.
    TestCallback,
    /// Load the values of an attribute (`GET /api/AttributeValues`); answers
    /// `Event::AttributeValues`.
    LoadAttributeValues(String),
    /// Load a file record; answers `Event::RecordLoaded` or `RecordFailed`.
    LoadRecord(FileUid),
    /// Walk a file's assembly relations: its components down to the leaf parts and the
    /// assemblies that use it up to the top ones; answers `Event::RelationsLoaded`.
    LoadRelations(FileUid),
    /// Set a file's attributes (`PUT /api/FileAttributes`): the full list when `delete_existing`,
    /// else added; answers `Event::AttributesSaved` or `AttributesSaveFailed`.
    SaveAttributes {
        /// The file.
        uid: FileUid,
        /// The attributes to send.
        attributes: Vec<Attribute>,
        /// Replace every attribute (true) or add these (false).
        delete_existing: bool,
    },
    /// Remove every attribute of a file (`DELETE /api/FileAttributes`); answers like
    /// `SaveAttributes`.
    ClearAttributes(FileUid),
    /// Delete a file; answers `Event::FileDeleted` or `DeleteFailed`.
    DeleteFile(FileUid),
    /// Load an image (a thumbnail, a large image, a local view) decoded and scaled; answers
    /// `Event::ImageLoaded` or `ImageFailed`.
    LoadImage(ImageRequest),
    /// Stop loading the image with this key (its card scrolled away).
    CancelImage(String),
    /// Load a file's extracted PMI, free text and attributes (`GET /api/PMIData`); answers
    /// `Event::PmiLoaded` or `PmiFailed`. A 401 parks it until the next login.
    LoadPmi(FileUid),
    /// Send feedback on extracted attributes (`PUT /api/ExtractedAttributeFeedback`); answers
    /// `Event::FeedbackSent` or `FeedbackFailed`. A 401 parks it (`Event::FeedbackAwaitingLogin`) and
    /// it is sent again after the login (with the same feedback id, so the service keeps one).
    SendFeedback(FeedbackRequest),
    /// Save a search of the history under a name (kept until removed), or take its name away
    /// (`None`); answers `Event::HistoryChanged`, or a notice saying why not.
    NameSearch {
        /// The history entry.
        id: u64,
        /// The name, or `None` to unsave.
        name: Option<String>,
    },
    /// Take a search off the history; answers `Event::HistoryChanged`.
    RemoveSearch(u64),
    /// Take every search without a name off the history; answers `Event::HistoryChanged`.
    ClearHistory,
    /// Ask where to save the result list and write this CSV text there; answers with a notice.
    ExportCsv {
        /// The file name the dialog offers.
        suggested_name: String,
        /// The CSV text.
        csv: String,
    },
    /// Read a 3D model for the preview, from where this computer has it; answers
    /// `Event::ModelLoaded` or `ModelUnavailable`.
    LoadModel(ModelRequest),
    /// Ask the user for a model file to show in 3D; answers `Event::ModelFilePicked`.
    PickModelFile,
    /// Ask where to save a comparison and write this CSV text there; answers with a notice.
    ExportComparison {
        /// The file name the dialog offers.
        suggested_name: String,
        /// The CSV text.
        csv: String,
    },
    /// Write the result list's CSV text to a path the user already chose (in the app's own file
    /// browser); answers with a notice.
    ExportCsvTo {
        /// Where to write it.
        path: std::path::PathBuf,
        /// The CSV text.
        csv: String,
    },
    /// Write a comparison's CSV text to a path the user already chose; answers with a notice.
    ExportComparisonTo {
        /// Where to write it.
        path: std::path::PathBuf,
        /// The CSV text.
        csv: String,
    },
    /// Ask the user for the folder of a library sync; answers `Event::SyncFolderPicked`.
    PickSyncFolder,
    /// Ask the user for the attributes CSV of a library sync; answers `Event::SyncCsvPicked`.
    PickSyncCsv,
    /// Read what a library sync would work on (folder, record, CSV; nothing is sent); answers
    /// `Event::SyncPreviewed`.
    PreviewSync(SyncSetup),
    /// Run a library sync, or carry it on where it stopped; answers `Event::SyncUpdated` as it
    /// goes. A 401 parks it until the next login.
    StartSync(SyncSetup),
    /// Pause the library sync with this key (it carries on when started again).
    PauseSync(SyncKey),
    /// Load one page of the company's library (`GET /api/Files`, this project's service); answers
    /// `Event::LibraryPageLoaded` or `Event::LibraryPageFailed` with the same `request`.
    LoadLibraryPage {
        /// Which listing the page belongs to (the Library's filters at the time), so a page of an
        /// older listing is recognised and dropped.
        request: u64,
        /// The page and its filters.
        query: LibraryQuery,
    },
    /// Find the company's duplicate parts (`GET /api/Duplicates`, this project's service); answers
    /// `Event::DuplicatesProgress`, then `DuplicatesFound` (the groups without their files'
    /// records: see `LoadDuplicateRecords`) or `DuplicatesFailed`, all with this `request`. A 401
    /// parks it.
    FindDuplicates {
        /// Chosen by the front end, so that an answer to an older request is recognised.
        request: u64,
        /// The lowest pair score taken for one part (0..1); the service's default when `None`.
        min_score: Option<f64>,
    },
    /// Stop waiting for the duplicates of this request (the service finishes on its own).
    CancelDuplicates(u64),
    /// Load the records (picture links, attributes) of these files of the groups found by
    /// `FindDuplicates` with `request`, a few calls at a time; answers one
    /// `Event::DuplicateRecordsLoaded` with the same `request`, a record for each file (`None`
    /// where it could not be loaded). A 401 parks it. The place asks only for the files on or near
    /// the screen, so a library of thousands of groups costs a call a file seen, not a file found.
    LoadDuplicateRecords {
        /// The `FindDuplicates` request whose groups the files belong to.
        request: u64,
        /// The files.
        uids: Vec<FileUid>,
    },
    /// Remove the local workspace's sample library (it is never added again); answers
    /// `Event::SampleLibrary` and a notice.
    RemoveSampleLibrary,
    /// Ask the service now whether it answers (the *Retry* of the banner that says it is away);
    /// answers `Event::ServiceReachable` when it does.
    CheckService,
}

impl std::fmt::Display for Command {
    /// A short description for logs (never the password).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Connect { service, .. } => write!(f, "connect to {}", service.label()),
            Self::LogIn { service, user, .. } => {
                write!(f, "log in to {} as {user}", service.label())
            }
            Self::LogOut => f.write_str("log out"),
            Self::PickFiles => f.write_str("pick files"),
            Self::Upload(specs) => write!(f, "upload {} files", specs.len()),
            Self::CancelJob(id) => write!(f, "cancel job {id}"),
            Self::RetryJob(id) => write!(f, "retry job {id}"),
            Self::RemoveJob(id) => write!(f, "remove job {id}"),
            Self::ClearFinishedJobs => f.write_str("clear finished jobs"),
            Self::SetPollPolicy(_) => f.write_str("set poll policy"),
            Self::ResumeJob(id) => write!(f, "resume job {id}"),
            Self::PickViews => f.write_str("pick views"),
            Self::Search { id, request, .. } => {
                write!(
                    f,
                    "search {id} ({} views to upload)",
                    request.uploads().count()
                )
            }
            Self::CancelSearch(id) => write!(f, "cancel search {id}"),
            Self::LoadAttributeNames => f.write_str("load attribute names"),
            Self::LoadCategories => f.write_str("load categories"),
            Self::LoadCallback => f.write_str("load the callback"),
            // The update may carry a secret: never in a log line.
            Self::SaveCallback(_) => f.write_str("save the callback"),
            Self::TestCallback => f.write_str("test the callback"),
            Self::LoadAttributeValues(name) => write!(f, "load values of {name}"),
            Self::LoadRecord(uid) => write!(f, "load record {uid}"),
            Self::LoadRelations(uid) => write!(f, "load assembly relations of {uid}"),
            Self::SaveAttributes {
                uid, attributes, ..
            } => write!(f, "save {} attributes of {uid}", attributes.len()),
            Self::ClearAttributes(uid) => write!(f, "clear attributes of {uid}"),
            Self::DeleteFile(uid) => write!(f, "delete {uid}"),
            // Image URLs may carry a token: never in a log line.
            Self::LoadImage(_) => f.write_str("load an image"),
            Self::CancelImage(_) => f.write_str("cancel an image"),
            Self::LoadPmi(uid) => write!(f, "load the PMI of {uid}"),
            Self::SendFeedback(request) => write!(
                f,
                "send feedback on {} attributes{}",
                request.attributes.len(),
                request
                    .file_uid
                    .as_ref()
                    .map(|uid| format!(" of {uid}"))
                    .unwrap_or_default()
            ),
            Self::NameSearch { id, name } => match name {
                Some(_) => write!(f, "save search {id} under a name"),
                None => write!(f, "unsave search {id}"),
            },
            Self::RemoveSearch(id) => write!(f, "remove search {id} from the history"),
            Self::ClearHistory => f.write_str("clear the search history"),
            Self::ExportCsv { csv, .. } => write!(f, "export {} bytes of CSV", csv.len()),
            Self::LoadModel(request) => write!(f, "load the model {}", request.key),
            Self::PickModelFile => f.write_str("pick a model file"),
            Self::ExportComparison { csv, .. } => {
                write!(f, "export {} bytes of comparison CSV", csv.len())
            }
            Self::ExportCsvTo { csv, .. } => write!(f, "write {} bytes of CSV", csv.len()),
            Self::ExportComparisonTo { csv, .. } => {
                write!(f, "write {} bytes of comparison CSV", csv.len())
            }
            Self::PickSyncFolder => f.write_str("pick a folder to sync"),
            Self::PickSyncCsv => f.write_str("pick an attributes CSV"),
            Self::LoadLibraryPage { request, query } => write!(
                f,
                "load library page at {} for listing {request}",
                query.offset
            ),
            Self::PreviewSync(setup) => write!(f, "preview the sync of {}", setup.folder.display()),
            Self::StartSync(setup) => write!(f, "sync {}", setup.folder.display()),
            Self::PauseSync(key) => write!(f, "pause sync {key}"),
            Self::FindDuplicates { request, min_score } => match min_score {
                Some(score) => write!(f, "find duplicates {request} (min score {score})"),
                None => write!(f, "find duplicates {request}"),
            },
            Self::CancelDuplicates(request) => write!(f, "cancel duplicates {request}"),
            Self::LoadDuplicateRecords { request, uids } => {
                write!(f, "load {} records of duplicates {request}", uids.len())
            }
            Self::RemoveSampleLibrary => f.write_str("remove the sample library"),
            Self::CheckService => f.write_str("check the service"),
        }
    }
}
