//! What the file browser was opened for: which pick command it stands in for, how it chooses (many
//! files, one file, a folder, a place to save), its filters, and the event or command its answer
//! becomes, the same as the native dialog's answer through the task layer.

use std::path::PathBuf;

use super::listing::FileFilter;
use partlens_tasks::file_picker::PART_EXTENSIONS;
use partlens_tasks::{Command, Event};

/// Part files: pictures, models, drawings, archives.
const PARTS: FileFilter = FileFilter {
    label: "Parts (pictures, models, drawings)",
    extensions: PART_EXTENSIONS,
};

/// Models the 3D view reads from a file.
const MODELS: FileFilter = FileFilter {
    label: "3D models (STL, OBJ, PLY)",
    extensions: &["stl", "obj", "ply"],
};

/// CSV files.
const CSV: FileFilter = FileFilter {
    label: "CSV",
    extensions: &["csv", "txt"],
};

/// How the browser chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChooseMode {
    /// Several files.
    ManyFiles,
    /// One file.
    OneFile,
    /// One folder.
    Folder,
    /// A new or existing file to write.
    Save,
}

/// What the browser is choosing for.
#[derive(Clone, Debug, PartialEq)]
pub enum BrowsePurpose {
    /// Files to upload (`Command::PickFiles`).
    UploadFiles,
    /// Views to search by (`Command::PickViews`).
    SearchViews,
    /// A model file to see in 3D (`Command::PickModelFile`).
    ModelFile,
    /// Where to save the result list (`Command::ExportCsv`).
    ExportResults {
        /// The file name offered.
        suggested_name: String,
        /// The CSV text.
        csv: String,
    },
    /// Where to save a comparison (`Command::ExportComparison`).
    ExportComparison {
        /// The file name offered.
        suggested_name: String,
        /// The CSV text.
        csv: String,
    },
    /// The folder of a library sync (`Command::PickSyncFolder`).
    SyncFolder,
    /// The attributes CSV of a library sync (`Command::PickSyncCsv`).
    SyncCsv,
}

/// What a finished browser hands on: the event the native dialog would have brought, or the command
/// that writes an export.
#[derive(Clone, Debug, PartialEq)]
pub enum BrowseAnswer {
    /// Handled like the task layer's answer (boxed: events are large).
    Event(Box<Event>),
    /// Sent to the task layer (boxed: commands are large).
    Command(Box<Command>),
}

impl BrowsePurpose {
    /// The purpose a command asks a file dialog for; `None` for other commands.
    pub fn of_command(command: &Command) -> Option<Self> {
        Some(match command {
            Command::PickFiles => Self::UploadFiles,
            Command::PickViews => Self::SearchViews,
            Command::PickModelFile => Self::ModelFile,
            Command::ExportCsv {
                suggested_name,
                csv,
            } => Self::ExportResults {
                suggested_name: suggested_name.clone(),
                csv: csv.clone(),
            },
            Command::ExportComparison {
                suggested_name,
                csv,
            } => Self::ExportComparison {
                suggested_name: suggested_name.clone(),
                csv: csv.clone(),
            },
            Command::PickSyncFolder => Self::SyncFolder,
            Command::PickSyncCsv => Self::SyncCsv,
            _ => return None,
        })
    }

    /// The browser's title.
    pub fn title(&self) -> &'static str {
        match self {
            Self::UploadFiles => "Add files to upload",
            Self::SearchViews => "Add views to search by",
            Self::ModelFile => "Open a model file to see in 3D",
            Self::ExportResults { .. } => "Save the result list as CSV",
            Self::ExportComparison { .. } => "Save the comparison as CSV",
            Self::SyncFolder => "Choose the folder to sync",
            Self::SyncCsv => "Choose the attributes CSV",
        }
    }

    /// How it chooses.
    pub fn mode(&self) -> ChooseMode {
        match self {
            Self::UploadFiles | Self::SearchViews => ChooseMode::ManyFiles,
            Self::ModelFile | Self::SyncCsv => ChooseMode::OneFile,
            Self::ExportResults { .. } | Self::ExportComparison { .. } => ChooseMode::Save,
            Self::SyncFolder => ChooseMode::Folder,
        }
    }

    /// The filters offered, the first one chosen at first.
    pub fn filters(&self) -> &'static [FileFilter] {
        match self {
            Self::UploadFiles | Self::SearchViews => &[PARTS, FileFilter::ALL],
            Self::ModelFile => &[MODELS, FileFilter::ALL],
            Self::ExportResults { .. } | Self::ExportComparison { .. } | Self::SyncCsv => {
                &[CSV, FileFilter::ALL]
            }
            Self::SyncFolder => &[FileFilter::ALL],
        }
    }

    /// The file name a save starts with.
    pub fn suggested_name(&self) -> &str {
        match self {
            Self::ExportResults { suggested_name, .. }
            | Self::ExportComparison { suggested_name, .. } => suggested_name,
            _ => "",
        }
    }

    /// The confirming button's caption.
    pub fn confirm_caption(&self) -> &'static str {
        match self.mode() {
            ChooseMode::ManyFiles => "Add",
            ChooseMode::OneFile => "Open",
            ChooseMode::Folder => "Choose this folder",
            ChooseMode::Save => "Save",
        }
    }

    /// What choosing `paths` hands on; `None` when nothing was chosen.
    pub fn chosen(self, paths: Vec<PathBuf>) -> Option<BrowseAnswer> {
        let first = paths.first().cloned()?;
        Some(match self {
            Self::UploadFiles => BrowseAnswer::Event(Box::new(Event::FilesPicked(paths))),
            Self::SearchViews => BrowseAnswer::Event(Box::new(Event::ViewsPicked(paths))),
            Self::ModelFile => BrowseAnswer::Event(Box::new(Event::ModelFilePicked(Some(first)))),
            Self::SyncFolder => BrowseAnswer::Event(Box::new(Event::SyncFolderPicked(Some(first)))),
            Self::SyncCsv => BrowseAnswer::Event(Box::new(Event::SyncCsvPicked(Some(first)))),
            Self::ExportResults { csv, .. } => {
                BrowseAnswer::Command(Box::new(Command::ExportCsvTo { path: first, csv }))
            }
            Self::ExportComparison { csv, .. } => {
                BrowseAnswer::Command(Box::new(Command::ExportComparisonTo { path: first, csv }))
            }
        })
    }

    /// What cancelling hands on: the native dialog's "nothing", where the task layer sends one.
    pub fn cancelled(self) -> Option<BrowseAnswer> {
        let event = match self {
            Self::UploadFiles => Event::FilesPicked(Vec::new()),
            Self::SearchViews => Event::ViewsPicked(Vec::new()),
            Self::ModelFile => Event::ModelFilePicked(None),
            Self::SyncFolder => Event::SyncFolderPicked(None),
            Self::SyncCsv => Event::SyncCsvPicked(None),
            Self::ExportResults { .. } | Self::ExportComparison { .. } => return None,
        };
        Some(BrowseAnswer::Event(Box::new(event)))
    }
}
