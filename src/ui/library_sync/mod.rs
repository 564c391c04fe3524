//! Library sync in the app: the Settings card where an admin chooses a folder, a target prefix and
//! an attributes CSV and previews how the CSV maps onto the folder ([`form`], [`preview`]), and the
//! syncs in the jobs panel with their progress, pause and resume ([`runs`]).
//!
//! The setup being edited lives in the settings (so it survives a restart); this state holds what
//! the backend answered: the latest preview and every sync run it reported. The work itself is in
//! `tasks::sync`; views send `Command`s and never wait.

mod form;
mod preview;
mod runs;

use partlens_tasks::Event;
use partlens_tasks::sync::{SyncPreview, SyncRun, SyncSetup};

/// The preview of the setup being edited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreviewState {
    /// Nothing asked yet (or the setup changed since).
    None,
    /// Asked for this setup; waiting.
    Loading(SyncSetup),
    /// The folder, record and CSV as they are for `for_setup`.
    Ready {
        /// The setup (as edited) the preview belongs to.
        for_setup: SyncSetup,
        /// What the backend read.
        preview: Box<SyncPreview>,
    },
    /// The setup cannot be used; the sentence says why.
    Failed {
        /// The setup that was previewed.
        for_setup: SyncSetup,
        /// What is wrong and what to do.
        message: String,
    },
}

/// Library sync: the preview of the setup being edited and the runs the backend reported.
#[derive(Debug)]
pub struct LibrarySync {
    preview: PreviewState,
    runs: Vec<SyncRun>,
    /// A preview to ask for at the end of the frame (after an edit of the mapping).
    preview_wanted: bool,
    /// True once the card was drawn: a setup kept from the last run is previewed when it first
    /// shows.
    shown: bool,
}

impl Default for LibrarySync {
    fn default() -> Self {
        Self {
            preview: PreviewState::None,
            runs: Vec::new(),
            preview_wanted: false,
            shown: false,
        }
    }
}

impl LibrarySync {
    /// The preview of the setup being edited.
    pub fn preview(&self) -> &PreviewState {
        &self.preview
    }

    /// The runs reported since the app started (the latest first), including those it restored.
    pub fn runs(&self) -> &[SyncRun] {
        &self.runs
    }

    /// Syncs that are running or waiting for a login (for the top bar's count).
    pub fn active_runs(&self) -> usize {
        self.runs.iter().filter(|run| run.phase.is_active()).count()
    }

    /// True when `setup` has a preview that worked and nothing was changed since.
    pub fn ready_to_run(&self, setup: &SyncSetup) -> bool {
        matches!(&self.preview, PreviewState::Ready { for_setup, .. } if for_setup == setup)
    }

    /// Takes the events about library sync (the rest is handed back); `setup` is the one being
    /// edited in the settings.
    pub fn handle_event(&mut self, event: Event, setup: &mut SyncSetup) -> Option<Event> {
        match event {
            Event::SyncFolderPicked(folder) => {
                if let Some(folder) = folder {
                    if setup.prefix.trim().is_empty()
                        && let Some(name) = folder.file_name()
                    {
                        setup.prefix = name.to_string_lossy().into_owned();
                    }
                    setup.folder = folder;
                    self.preview_wanted = true;
                }
            }
            Event::SyncCsvPicked(csv) => {
                if let Some(csv) = csv {
                    setup.attributes = Some(partlens_tasks::sync::CsvMapping {
                        csv,
                        ..Default::default()
                    });
                    self.preview_wanted = true;
                }
            }
            Event::SyncPreviewed {
                setup: asked,
                preview,
            } => self.take_preview(asked, preview, setup),
            Event::SyncUpdated(run) => self.take_run(run),
            other => return Some(other),
        }
        None
    }

    fn take_preview(
        &mut self,
        asked: SyncSetup,
        preview: Result<SyncPreview, String>,
        setup: &mut SyncSetup,
    ) {
        // An answer to an older request.
        if !matches!(&self.preview, PreviewState::Loading(waiting) if *waiting == asked) {
            return;
        }
        if *setup != asked {
            // The user changed the setup while it was read: this preview says nothing about it.
            self.preview = PreviewState::None;
            return;
        }
        self.preview = match preview {
            Ok(preview) => {
                // The columns the backend guessed become the ones the user sees and changes.
                if let (Some(edited), Some(resolved)) =
                    (setup.attributes.as_mut(), preview.setup.attributes.as_ref())
                {
                    edited.file_column = resolved.file_column.clone();
                    edited.attribute_columns = resolved.attribute_columns.clone();
                }
                PreviewState::Ready {
                    for_setup: setup.clone(),
                    preview: Box::new(preview),
                }
            }
            Err(message) => PreviewState::Failed {
                for_setup: asked,
                message,
            },
        };
    }

    fn take_run(&mut self, run: SyncRun) {
        // A run that ended changed what the folder's preview says (new files are now known).
        if !run.phase.is_active() {
            self.preview_wanted = true;
        }
        match self.runs.iter_mut().find(|known| known.key == run.key) {
            Some(known) => *known = run,
            None => self.runs.insert(0, run),
        }
    }

    /// Takes a run off the jobs panel (it stays recorded; nothing is stopped).
    fn dismiss(&mut self, key: &partlens_tasks::sync::SyncKey) {
        self.runs
            .retain(|run| &run.key != key || run.phase.is_active());
    }
}
