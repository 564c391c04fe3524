//! The query bar: up to ten view slots ([`views`]), a free-text field and attribute filter rows
//! with completion of attribute names and values ([`filters`]), the switches of a search by a
//! model ([`options`]), and the indexing progress of the uploaded views.
//!
//! The state rule lives in [`SearchBar::plan`]: each view keeps the search-input UID it got once it was
//! uploaded and indexed, so changing the text or the filters searches again by those UIDs
//! (`GET /api/Search`) without uploading anything; only views without a UID (new, or failed) go up.
//! A view gets its UID only when the workflow reports it indexed, so no search is ever planned for an
//! input that is not indexed yet. The plan is the task layer's request itself: each view once, by
//! its slot id, with its UID when it has one; every answer names the views by those ids.
//!
//! The bar sends what the task layer does (the file picker, completions, thumbnails) as `Command`s
//! and returns the search to run as a [`SearchIntent`].

pub mod filters;
pub mod history;
pub mod options;
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
use partlens_api::{AttributeValue, SearchFilter};
use partlens_tasks::Command;
use partlens_tasks::search::view_search::{
    SearchView, ViewInput, ViewSearchProgress, ViewSearchRequest,
};

/// Most views one search takes (the interface's limit).
pub const MAX_VIEWS: usize = partlens_api::limits::MAX_SEARCH_FILES;

/// The id of the search text field; Ctrl+F puts the focus there.
pub const SEARCH_FIELD_ID: &str = "search_text_field";

/// What the user asked the query bar to do that the Search place carries out (the results show the
/// search running). Work for the task layer (the file picker, completions, thumbnails) goes straight
/// to it as a `Command`.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchIntent {
    /// Run this search (the bar now shows it running).
    Run(ViewSearchRequest),
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
    /// Same size first, mirror images left out ([`options`]).
    options: partlens_api::SearchOptions,
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
                // A file of the library is searched by its own UID from the start.
                let state = match &source {
                    ViewSource::LibraryFile { uid, .. } => ViewState::Indexed(uid.clone()),
                    _ => ViewState::New,
                };
                self.views.push(ViewSlot { id, source, state });
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
    pub fn plan(&self) -> Result<ViewSearchRequest, String> {
        let terms = self.terms_filter()?;
        if self.views.is_empty() && terms.is_empty() {
            return Err(
                "Add a view of the part, or type words or an attribute filter to search for."
                    .to_owned(),
            );
        }
        Ok(ViewSearchRequest {
            views: self
                .views
                .iter()
                .map(|slot| SearchView {
                    slot: slot.id,
                    source: slot.source.clone(),
                    input: match &slot.state {
                        ViewState::Indexed(uid) => Some(uid.clone()),
                        _ => None,
                    },
                })
                .collect(),
            terms,
            extra_params: self.option_params(),
        })
    }

    /// Plans a search and marks it running; the request goes to the app. While one runs, none
    /// starts. A drawing on the open sketch pad that changed since it last went into its view goes
    /// there first.
    pub fn start(&mut self) -> Result<ViewSearchRequest, String> {
        if self.running.is_some() {
            return Err("A search is already running; wait for it or cancel it.".to_owned());
        }
        let plan = self.use_changed_sketch().and_then(|()| self.plan());
        match plan {
            Ok(request) => {
                let uploads: Vec<u64> = request.uploads().map(|view| view.slot).collect();
                for slot in &mut self.views {
                    if uploads.contains(&slot.id) {
                        slot.state = ViewState::Uploading { sent: 0, total: 0 };
                    }
                }
                self.stage = Some(if uploads.is_empty() {
                    "Searching…".to_owned()
                } else {
                    format!("Uploading {} view(s)…", uploads.len())
                });
                self.running = Some(uploads);
                // The completion of the edited filter has done its job.
                self.active_filter = None;
                self.message = None;
                Ok(request)
            }
            Err(message) => {
                self.message = Some(message.clone());
                Err(message)
            }
        }
    }

    /// Applies a progress report of the running search (its views named by their slot ids).
    pub fn apply_progress(&mut self, progress: &ViewSearchProgress) {
        let Some(batch) = &self.running else {
            return;
        };
        // "View n of m": the view's place among the views this search uploads.
        let place_of = |slot: u64| batch.iter().position(|id| *id == slot).map(|at| at + 1);
        let total_views = batch.len();
        match *progress {
            ViewSearchProgress::Uploading { slot, sent, total } => {
                if let Some(number) = place_of(slot) {
                    self.set_state(slot, ViewState::Uploading { sent, total });
                    self.stage = Some(format!("Uploading view {number} of {total_views}…"));
                }
            }
            ViewSearchProgress::Indexing { slot, waited } => {
                if let Some(number) = place_of(slot) {
                    let waited_seconds = waited.as_secs();
                    self.set_state(slot, ViewState::Indexing { waited_seconds });
                    self.stage = Some(format!(
                        "Indexing view {number} of {total_views} ({waited_seconds} s)…"
                    ));
                }
            }
            ViewSearchProgress::Searching => self.stage = Some("Searching…".to_owned()),
            ViewSearchProgress::WaitingForService => {
                self.stage = Some(
                    "Waiting for the service to answer; the search runs when it is back…"
                        .to_owned(),
                );
            }
        }
    }

    /// The running search finished: each view takes the input UID it was searched by, by slot id. A
    /// view that went up without getting one is failed.
    pub fn finish(&mut self, inputs: &[ViewInput]) {
        let batch = self.running.take().unwrap_or_default();
        self.stage = None;
        for input in inputs {
            self.set_state(input.slot, ViewState::Indexed(input.uid.clone()));
        }
        let message = "The service did not return an input UID for this view.";
        for id in batch {
            if !inputs.iter().any(|input| input.slot == id) {
                self.set_state(id, ViewState::Failed(message.to_owned()));
            }
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
        if self.options_ui(ui) && !self.views.is_empty() {
            run = true;
        }
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
            if let Ok(request) = self.start() {
                intents.push(SearchIntent::Run(request));
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
    use partlens_api::FileUid;

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

    fn runs(intents: &[SearchIntent]) -> Vec<&ViewSearchRequest> {
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
        assert!(plan.views.is_empty());
        assert_eq!(
            plan.filter().inner(),
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

        let uploads = |request: &ViewSearchRequest| -> Vec<u64> {
            request.uploads().map(|view| view.slot).collect()
        };
        let input = |slot: u64, n: u32| ViewInput { slot, uid: uid(n) };
        let first = bar.start().unwrap();
        assert_eq!(uploads(&first), vec![front, side]);
        assert!(first.filter().file_uids.is_empty());
        assert!(bar.is_running());
        // While indexing, no other search starts.
        assert!(bar.start().is_err());
        bar.apply_progress(&ViewSearchProgress::Indexing {
            slot: side,
            waited: std::time::Duration::from_secs(4),
        });
        assert_eq!(
            bar.views()[1].state,
            ViewState::Indexing { waited_seconds: 4 }
        );
        assert_eq!(bar.stage(), Some("Indexing view 2 of 2 (4 s)…"));
        // The answer names the views by slot, in whatever order.
        bar.finish(&[input(side, 2), input(front, 1)]);
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(1)));
        assert_eq!(bar.views()[1].state, ViewState::Indexed(uid(2)));

        bar.text = "bracket".into();
        let second = bar.start().unwrap();
        assert!(uploads(&second).is_empty());
        assert_eq!(second.filter().file_uids, vec![uid(1), uid(2)]);
        assert_eq!(
            second.filter().inner(),
            format!("fileUID={},{}&FT=bracket", uid(1), uid(2))
        );
        bar.finish(&[input(front, 1), input(side, 2)]);

        // A third view: only it goes up; the two kept UIDs ride in the filter, each once.
        let top = bar.add_view(file("top.png")).unwrap();
        let third = bar.start().unwrap();
        assert_eq!(uploads(&third), vec![top]);
        assert_eq!(third.filter().file_uids, vec![uid(1), uid(2)]);
        assert_eq!(third.views.len(), 3);
        bar.finish(&[input(front, 1), input(side, 2), input(top, 3)]);
        assert_eq!(bar.views()[2].state, ViewState::Indexed(uid(3)));

        // Removing a view drops its UID from the next search.
        bar.remove_view(front);
        assert_eq!(bar.plan().unwrap().filter().file_uids, vec![uid(2), uid(3)]);
    }

    #[test]
    fn a_library_file_is_searched_by_its_own_uid_without_an_upload() {
        let mut bar = SearchBar::new();
        let slot = bar
            .add_view(ViewSource::LibraryFile {
                uid: uid(9),
                name: "flange.stl".into(),
            })
            .unwrap();
        let request = bar.start().unwrap();
        assert_eq!(request.uploads().count(), 0);
        assert_eq!(request.filter().file_uids, vec![uid(9)]);
        assert_eq!(view_kind(&bar.views()[0].source), ViewKind::Model);
        bar.finish(&[ViewInput { slot, uid: uid(9) }]);
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(9)));
    }

    #[test]
    fn a_failed_run_uploads_its_views_again_next_time() {
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        bar.start().unwrap();
        bar.fail("view 1 (front.png) could not be indexed");
        assert!(matches!(bar.views()[0].state, ViewState::Failed(_)));
        assert!(!bar.is_running());
        assert_eq!(bar.plan().unwrap().uploads().count(), 1);
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
        assert_eq!(plans[0].filter().inner(), "FT=flange");
        assert!(
            harness.query_by_label("Find parts").is_none(),
            "no second search while one runs"
        );
    }
}
