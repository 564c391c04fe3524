//! The query bar: up to ten view slots ([`views`]), a free-text field and attribute filter rows
//! with completion of attribute names and values ([`filters`]), and the indexing progress of the
//! uploaded views.
//!
//! The state rule lives in [`SearchBar::plan`]: each view keeps the search-input UID it got once it was
//! uploaded and indexed, so changing the text or the filters searches again by those UIDs
//! (`GET /api/Search`) without uploading anything; only views without a UID (new, or failed) go up.
//! A view gets its UID only when the workflow reports it indexed, so no search is ever planned for an
//! input that is not indexed yet.
//!
//! The bar sends what the task layer does (the file picker, completions, thumbnails) as `Command`s
//! and returns the search to run as a [`SearchIntent`].

pub mod filters;
pub mod history;
pub mod sketch;
pub mod views;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

pub use self::filters::{FilterOperator, FilterRow, suggestions};
pub use self::views::{
    ViewKind, ViewSlot, ViewSource, ViewState, view_kind, view_thumbnail_request,
};
use super::app_command::CommandQueue;
use super::texture_cache::TextureCache;
use partlens_api::{AttributeValue, FileUid, SearchFilter};
use partlens_tasks::Command;
use partlens_tasks::search::search_flow::FileSearchProgress;
use partlens_tasks::search::view_search::KeptInput;

/// Most views one search takes (the interface's limit).
pub const MAX_VIEWS: usize = partlens_api::limits::MAX_SEARCH_FILES;

/// The id of the search text field; Ctrl+F puts the focus there.
pub const SEARCH_FIELD_ID: &str = "search_text_field";

/// What a search needs done: the views to upload (with their slot ids) and the filter, which holds
/// the UIDs of the views already indexed plus the text and attribute terms.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchPlan {
    /// Views without a UID yet, in slot order: they go up (single call or two-step).
    pub uploads: Vec<(u64, ViewSource)>,
    /// Indexed input UIDs, text and attribute terms.
    pub filter: SearchFilter,
    /// The indexed views with where their bytes are, to upload again if the service lost them.
    pub kept: Vec<KeptInput>,
}

impl SearchPlan {
    /// True when nothing needs uploading: a `GET /api/Search` by UIDs and terms does it.
    pub fn is_by_uids_only(&self) -> bool {
        self.uploads.is_empty()
    }

    /// The slot ids of the views this run uploads.
    pub fn upload_ids(&self) -> Vec<u64> {
        self.uploads.iter().map(|(id, _)| *id).collect()
    }
}

/// What the user asked the query bar to do that the Search place carries out (the results show the
/// search running). Work for the task layer (the file picker, completions, thumbnails) goes straight
/// to it as a `Command`.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchIntent {
    /// Run this search (the bar now shows it running).
    Run(SearchPlan),
    /// Show the searches kept in the history.
    ShowHistory,
}

/// The query bar's state.
#[derive(Debug, Default)]
pub struct SearchBar {
    views: Vec<ViewSlot>,
    next_view_id: u64,
    /// The free text.
    pub text: String,
    filters: Vec<FilterRow>,
    attribute_names: Option<Vec<String>>,
    names_requested: bool,
    attribute_values: HashMap<String, Vec<AttributeValue>>,
    values_requested: HashSet<String>,
    running: Option<Vec<u64>>,
    active_filter: Option<usize>,
    stage: Option<String>,
    message: Option<String>,
    sketch_pad: sketch::SketchPad,
}

impl SearchBar {
    /// An empty bar.
    pub fn new() -> Self {
        Self::default()
    }

    /// The view slots, in order.
    pub fn views(&self) -> &[ViewSlot] {
        &self.views
    }

    /// The filter rows.
    pub fn filters(&self) -> &[FilterRow] {
        &self.filters
    }

    /// Adds a filter row.
    pub fn add_filter(&mut self, row: FilterRow) {
        self.filters.push(row);
    }

    /// Removes every filter row and the text.
    pub fn clear_filters(&mut self) {
        self.filters.clear();
        self.text.clear();
    }

    /// What the running search is doing, in words ("Indexing view 2 of 2 (4 s)…").
    pub fn stage(&self) -> Option<&str> {
        self.stage.as_deref()
    }

    /// The sentence shown under the bar (a refusal, an error), if any.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// True while a search is running.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Adds a view, refusing an eleventh view, a duplicate, a file without extension and a view of
    /// another kind than the others. Returns the new slot's id, or the sentence saying why not.
    pub fn add_view(&mut self, source: ViewSource) -> Result<u64, String> {
        let result = self.check_new_view(&source);
        match result {
            Ok(()) => {
                let id = self.next_view_id;
                self.next_view_id += 1;
                self.views.push(ViewSlot {
                    id,
                    source,
                    state: ViewState::New,
                });
                self.message = None;
                Ok(id)
            }
            Err(message) => {
                self.message = Some(message.clone());
                Err(message)
            }
        }
    }

    fn check_new_view(&self, source: &ViewSource) -> Result<(), String> {
        if self.views.len() >= MAX_VIEWS {
            return Err(format!(
                "A search takes at most {MAX_VIEWS} views; remove one to add {}.",
                source.name()
            ));
        }
        if self.views.iter().any(|slot| &slot.source == source) {
            return Err(format!(
                "{} is already a view of this search.",
                source.name()
            ));
        }
        if let ViewSource::File(path) = source
            && path.extension().is_none()
        {
            return Err(format!(
                "{} has no file extension, so the service cannot tell its format.",
                source.name()
            ));
        }
        if let Some(first) = self.views.first() {
            let (have, new) = (view_kind(&first.source), view_kind(source));
            if have != new {
                return Err(format!(
                    "All views of one search must be of one kind. These views are {}; {} is one of \
                     the {}. Remove the {} first to search by it.",
                    have.plural(),
                    source.name(),
                    new.plural(),
                    have.plural()
                ));
            }
        }
        Ok(())
    }

    /// Removes a view; its UID is simply no longer searched by.
    pub fn remove_view(&mut self, id: u64) {
        self.views.retain(|slot| slot.id != id);
    }

    /// Removes every view.
    pub fn clear_views(&mut self) {
        self.views.clear();
    }

    /// The text and attribute terms, without input UIDs; an error sentence for a half-filled row.
    pub fn terms_filter(&self) -> Result<SearchFilter, String> {
        let mut filter = SearchFilter::new().text(&self.text);
        for row in &self.filters {
            if let Some(term) = row.term()? {
                filter = filter.term(term);
            }
        }
        Ok(filter)
    }

    /// The search to run now (see the module documentation for the rule), or the sentence saying why
    /// there is none.
    pub fn plan(&self) -> Result<SearchPlan, String> {
        let terms = self.terms_filter()?;
        let kept: Vec<KeptInput> = self
            .views
            .iter()
            .filter_map(|slot| match &slot.state {
                ViewState::Indexed(uid) => Some(KeptInput {
                    uid: uid.clone(),
                    source: slot.source.clone(),
                }),
                _ => None,
            })
            .collect();
        let indexed: Vec<FileUid> = kept.iter().map(|kept| kept.uid.clone()).collect();
        let uploads: Vec<(u64, ViewSource)> = self
            .views
            .iter()
            .filter(|slot| !matches!(slot.state, ViewState::Indexed(_)))
            .map(|slot| (slot.id, slot.source.clone()))
            .collect();
        if uploads.is_empty() && indexed.is_empty() && terms.is_empty() {
            return Err(
                "Add a view of the part, or type words or an attribute filter to search for."
                    .to_owned(),
            );
        }
        Ok(SearchPlan {
            uploads,
            filter: terms.with_uids(indexed),
            kept,
        })
    }

    /// Plans a search and marks it running; the plan goes to the app. While one runs, none starts.
    /// A drawing on the open sketch pad that changed since it last went into its view goes there
    /// first.
    pub fn start(&mut self) -> Result<SearchPlan, String> {
        if self.running.is_some() {
            return Err("A search is already running; wait for it or cancel it.".to_owned());
        }
        let plan = self.use_changed_sketch().and_then(|()| self.plan());
        match plan {
            Ok(plan) => {
                for slot in &mut self.views {
                    if plan.uploads.iter().any(|(id, _)| *id == slot.id) {
                        slot.state = ViewState::Uploading { sent: 0, total: 0 };
                    }
                }
                self.running = Some(plan.upload_ids());
                // The completion of the edited filter has done its job.
                self.active_filter = None;
                self.stage = Some(if plan.is_by_uids_only() {
                    "Searching…".to_owned()
                } else {
                    format!("Uploading {} view(s)…", plan.uploads.len())
                });
                self.message = None;
                Ok(plan)
            }
            Err(message) => {
                self.message = Some(message.clone());
                Err(message)
            }
        }
    }

    /// Applies a progress report of the running search; `view` counts within the uploaded views.
    pub fn apply_progress(&mut self, progress: &FileSearchProgress) {
        let Some(batch) = &self.running else {
            return;
        };
        let slot_of = |view: usize| batch.get(view).copied();
        match progress {
            FileSearchProgress::Uploading { view, sent, total } => {
                let total_views = batch.len();
                if let Some(id) = slot_of(*view) {
                    self.set_state(
                        id,
                        ViewState::Uploading {
                            sent: *sent,
                            total: *total,
                        },
                    );
                    self.stage = Some(format!("Uploading view {} of {total_views}…", view + 1));
                }
            }
            FileSearchProgress::Indexing { view, waited } => {
                let total_views = batch.len();
                if let Some(id) = slot_of(*view) {
                    self.set_state(
                        id,
                        ViewState::Indexing {
                            waited_seconds: waited.as_secs(),
                        },
                    );
                    self.stage = Some(format!(
                        "Indexing view {} of {total_views} ({} s)…",
                        view + 1,
                        waited.as_secs()
                    ));
                }
            }
            FileSearchProgress::Searching => self.stage = Some("Searching…".to_owned()),
        }
    }

    /// The running search finished. `input_uids` is what the workflow reported: the UIDs of the
    /// uploaded views are its last ones, in order (a single call returns earlier inputs first).
    pub fn finish(&mut self, input_uids: &[FileUid]) {
        let batch = self.running.take().unwrap_or_default();
        self.stage = None;
        if batch.is_empty() {
            return;
        }
        if input_uids.len() < batch.len() {
            let message = "The service did not return an input UID for this view.".to_owned();
            for id in batch {
                self.set_state(id, ViewState::Failed(message.clone()));
            }
            return;
        }
        let new_uids = &input_uids[input_uids.len() - batch.len()..];
        for (id, uid) in batch.into_iter().zip(new_uids) {
            self.set_state(id, ViewState::Indexed(uid.clone()));
        }
    }

    /// The running search failed or was cancelled: its views go back to be uploaded next time.
    pub fn fail(&mut self, message: impl Into<String>) {
        let message = message.into();
        let batch = self.running.take().unwrap_or_default();
        self.stage = None;
        for id in batch {
            if let Some(slot) = self.views.iter_mut().find(|slot| slot.id == id)
                && !matches!(slot.state, ViewState::Indexed(_))
            {
                slot.state = ViewState::Failed(message.clone());
            }
        }
        self.message = Some(message);
    }

    fn set_state(&mut self, id: u64, state: ViewState) {
        if let Some(slot) = self.views.iter_mut().find(|slot| slot.id == id) {
            slot.state = state;
        }
    }

    /// Adds dropped or picked files as views (refusals end up in [`SearchBar::message`]). The app
    /// routes files dropped on the window here while the Search place is shown.
    pub fn add_files(&mut self, paths: impl IntoIterator<Item = PathBuf>) {
        let mut refusals = Vec::new();
        for path in paths {
            if let Err(message) = self.add_view(ViewSource::File(path)) {
                refusals.push(message);
            }
        }
        self.message = (!refusals.is_empty()).then(|| refusals.join(" "));
    }

    /// Draws the bar and returns the search to run, if the user asked for one. Slot thumbnails come
    /// from `textures`; the picker, completions and thumbnails are asked for through `commands`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<SearchIntent> {
        let mut intents = Vec::new();
        if self.attribute_names.is_none() && !self.names_requested {
            self.names_requested = true;
            commands.backend(Command::LoadAttributeNames);
        }
        let mut run = false;
        self.views_ui(ui, textures, commands);
        if self.sketch_pad.is_open() {
            ui.add_space(4.0);
            self.sketch_pad_ui(ui);
        }
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let label = ui.label("Search text");
            let response = ui
                .add(
                    egui::TextEdit::singleline(&mut self.text)
                        .id(egui::Id::unique(SEARCH_FIELD_ID))
                        .hint_text("part number, material, words in drawings")
                        .desired_width(360.0)
                        .min_size(egui::vec2(360.0, 0.0)),
                )
                .labelled_by(label.id);
            if response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter)) {
                run = true;
            }
            // While a search runs, the results area offers to cancel it.
            if self.running.is_some() {
                ui.spinner();
            } else if ui.button("Find parts").clicked() {
                run = true;
            }
            if ui.button("Add filter").clicked() {
                self.filters.push(FilterRow::default());
            }
            if ui
                .button("History")
                .on_hover_text("Searches you ran and saved searches (Ctrl+H).")
                .clicked()
            {
                intents.push(SearchIntent::ShowHistory);
            }
        });
        if self.filters_ui(ui, commands) {
            run = true;
        }
        if let Some(stage) = &self.stage {
            ui.label(stage);
        }
        if let Some(message) = &self.message {
            ui.colored_label(ui.visuals().warn_fg_color, message);
        }
        if run {
            // A refusal leaves its sentence in `message`.
            if let Ok(plan) = self.start() {
                intents.push(SearchIntent::Run(plan));
            }
        }
        intents
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;

    pub(super) fn uid(n: u32) -> FileUid {
        FileUid::from_reply(&format!("00000000-0000-4000-8000-{n:012}"))
    }

    pub(super) fn file(name: &str) -> ViewSource {
        ViewSource::File(PathBuf::from(format!("/parts/{name}")))
    }

    pub(super) type Fixture = view_harness::Fixture<SearchBar, SearchIntent>;

    pub(super) fn harness(bar: SearchBar) -> Harness<'static, Fixture> {
        view_harness::harness(bar, [1000.0, 400.0], 1 << 24, SearchBar::ui)
    }

    fn runs(intents: &[SearchIntent]) -> Vec<&SearchPlan> {
        intents
            .iter()
            .filter_map(|intent| match intent {
                SearchIntent::Run(plan) => Some(plan),
                SearchIntent::ShowHistory => None,
            })
            .collect()
    }

    #[test]
    fn nothing_to_search_is_said_in_words() {
        let bar = SearchBar::new();
        assert!(bar.plan().unwrap_err().contains("Add a view"));
        let mut bar = SearchBar::new();
        bar.add_filter(FilterRow {
            name: "material".into(),
            ..FilterRow::default()
        });
        assert!(bar.plan().unwrap_err().contains("Give a value"));
    }

    #[test]
    fn filter_rows_become_ft_terms() {
        let mut bar = SearchBar::new();
        bar.text = "pump housing".into();
        for (name, operator, value) in [
            ("material", FilterOperator::Exact, "Stainless Steel"),
            ("document_number", FilterOperator::Prefix, "AX-"),
            ("region", FilterOperator::Regular, "EU"),
            ("", FilterOperator::Regular, ""),
        ] {
            bar.add_filter(FilterRow {
                name: name.into(),
                operator,
                value: value.into(),
            });
        }
        let plan = bar.plan().unwrap();
        assert!(plan.is_by_uids_only());
        assert_eq!(
            plan.filter.inner(),
            "FT=pump housing&FT=material%3D%5BStainless%20Steel%5D&FT=document_number%3DAX-%2A&FT=region%3DEU"
        );
    }

    /// The state rule: once the views are indexed, a change of text or filters searches by their
    /// UIDs without uploading; a new view uploads only itself, alongside the kept UIDs.
    #[test]
    fn indexed_views_are_searched_by_uid_without_uploading_again() {
        let mut bar = SearchBar::new();
        let front = bar.add_view(file("front.png")).unwrap();
        let side = bar.add_view(file("side.png")).unwrap();

        let first = bar.start().unwrap();
        assert_eq!(first.upload_ids(), vec![front, side]);
        assert!(first.filter.file_uids.is_empty());
        assert!(bar.is_running());
        // While indexing, no other search starts.
        assert!(bar.start().is_err());
        bar.apply_progress(&FileSearchProgress::Indexing {
            view: 1,
            waited: std::time::Duration::from_secs(4),
        });
        assert_eq!(
            bar.views()[1].state,
            ViewState::Indexing { waited_seconds: 4 }
        );
        bar.finish(&[uid(1), uid(2)]);
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(1)));

        bar.text = "bracket".into();
        let second = bar.start().unwrap();
        assert!(second.is_by_uids_only());
        assert_eq!(second.filter.file_uids, vec![uid(1), uid(2)]);
        assert_eq!(
            second.filter.inner(),
            format!("fileUID={},{}&FT=bracket", uid(1), uid(2))
        );
        bar.finish(&[uid(1), uid(2)]);

        // A third view: only it goes up; the two kept UIDs ride in the filter.
        let top = bar.add_view(file("top.png")).unwrap();
        let third = bar.start().unwrap();
        assert_eq!(third.upload_ids(), vec![top]);
        assert_eq!(third.filter.file_uids, vec![uid(1), uid(2)]);
        // A single call answers with the earlier inputs plus the new one.
        bar.finish(&[uid(1), uid(2), uid(3)]);
        assert_eq!(bar.views()[2].state, ViewState::Indexed(uid(3)));

        // Removing a view drops its UID from the next search.
        bar.remove_view(front);
        assert_eq!(bar.plan().unwrap().filter.file_uids, vec![uid(2), uid(3)]);
    }

    #[test]
    fn a_failed_run_uploads_its_views_again_next_time() {
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        bar.start().unwrap();
        bar.fail("view 1 (front.png) could not be indexed");
        assert!(matches!(bar.views()[0].state, ViewState::Failed(_)));
        assert!(!bar.is_running());
        assert_eq!(bar.plan().unwrap().uploads.len(), 1);
        assert_eq!(
            bar.message(),
            Some("view 1 (front.png) could not be indexed")
        );
    }

    #[test]
    fn enter_in_the_text_field_runs_the_search() {
        let mut harness = harness(SearchBar::new());
        harness.run();
        assert_eq!(harness.state().commands, [Command::LoadAttributeNames]);
        let field = harness.get_by_label("Search text");
        field.focus();
        harness.run();
        harness.get_by_label("Search text").type_text("flange");
        harness.run();
        harness.key_press(egui::Key::Enter);
        // The running search shows a spinner, which keeps repainting: step instead of running to rest.
        harness.run_steps(2);
        let plans = runs(&harness.state().intents);
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0].filter.inner(), "FT=flange");
        assert!(
            harness.query_by_label("Find parts").is_none(),
            "no second search while one runs"
        );
    }
}
