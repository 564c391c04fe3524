//! The Search place: the query bar over the results (grid or table), a result's detail (a model in
//! 3D), its attribute editor, its drawing data (PMI viewer with the feedback form) and the comparison
//! of ticked results. It owns the thumbnail cache, the 3D models asked for (a model result turns in
//! its card on hover) and the page shown, hands the backend's answers to the views, and carries out the views'
//! intents: going from one page to another and starting, cancelling and repeating searches. The
//! views send their work for the task layer as commands themselves.
//!
//! Only the latest search counts: each gets an id, and answers to an older one are dropped.
//!
//! The search history is a page of this place too ([`super::history`]): a kept search goes back
//! into the query bar and runs from there; every search is sent with the draft the history keeps of
//! it, which the backend records itself when the search finishes.

use std::path::PathBuf;

use super::app_command::{AppCommand, CommandQueue};
use super::attributes::{AttributeDrafts, AttributeEditor};
use super::compare::{CompareIntent, CompareView};
use super::detail::{DetailIntent, DetailView, OpenedFrom};
use super::history::{HistoryIntent, HistoryPage};
use super::keyboard;
use super::model_view::{ModelCache, ModelEntry, turntable_ui};
use super::place::Place;
use super::pmi::feedback::FeedbackDrafts;
use super::pmi::{PmiIntent, PmiView};
use super::results::calibration::SearchedBy;
use super::results::{ResultRow, ResultsIntent, ResultsView, rows_from_result};
use super::search_bar::{SearchBar, SearchIntent, ViewSource, ViewState, view_kind};
use super::texture_cache::{TextureCache, load_decoded};
use partlens_api::FileUid;
use partlens_tasks::models::ModelRequest;
use partlens_tasks::search::view_search::{SketchImage, ViewSearchRequest};
use partlens_tasks::{Command, Event};

/// Which page of the Search place is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchPage {
    /// The query bar and the results.
    #[default]
    Results,
    /// One file's record.
    Detail,
    /// One file's attribute editor.
    Attributes,
    /// One file's drawing data: PMI pages, free text, extracted attributes and feedback.
    Pmi,
    /// The searches kept in the history and the saved searches.
    History,
    /// Ticked results side by side.
    Compare,
}

/// The Search place's state.
#[derive(Debug, Default)]
pub struct SearchPlace {
    page: SearchPage,
    bar: SearchBar,
    results: ResultsView,
    detail: DetailView,
    editor: AttributeEditor,
    pmi: PmiView,
    textures: TextureCache<egui::TextureHandle>,
    models: ModelCache,
    compare: CompareView,
    last_search_id: u64,
    running_search: Option<u64>,
    history: HistoryPage,
}

impl SearchPlace {
    /// The place, with the attribute and feedback drafts the app restored from its storage.
    pub fn new(drafts: AttributeDrafts, feedback_drafts: FeedbackDrafts) -> Self {
        Self {
            editor: AttributeEditor::new(drafts),
            pmi: PmiView::new(feedback_drafts),
            ..Self::default()
        }
    }

    /// The unsent feedback drafts, for the app's storage.
    pub fn feedback_drafts(&self) -> &FeedbackDrafts {
        self.pmi.feedback_drafts()
    }

    /// The PMI viewer.
    pub fn pmi(&self) -> &PmiView {
        &self.pmi
    }

    /// The PMI viewer, to change its state (tests select items this way).
    pub fn pmi_mut(&mut self) -> &mut PmiView {
        &mut self.pmi
    }

    /// The logged-in user's name: the feedback form prefills it as the reviewer's identifier.
    pub fn set_reviewer(&mut self, name: &str) {
        self.pmi.feedback_mut().set_reviewer(name);
    }

    /// The unsaved attribute drafts, for the app's storage.
    pub fn drafts(&self) -> &AttributeDrafts {
        self.editor.drafts()
    }

    /// The page shown.
    pub fn page(&self) -> SearchPage {
        self.page
    }

    /// The place the page shown was opened from, when it is not the search (a detail or a
    /// comparison opened from the Library or Duplicates, with the detail's attribute and drawing
    /// pages).
    pub fn opened_from_place(&self) -> Option<Place> {
        match self.page {
            SearchPage::Compare => self.compare.opened_from().place(),
            SearchPage::Detail | SearchPage::Attributes | SearchPage::Pmi => {
                self.detail.opened_from().place()
            }
            SearchPage::Results | SearchPage::History => None,
        }
    }

    /// Shows the results again when the page shown was opened from another place: the *Search*
    /// tab leads to the search, not to a Library or Duplicates file left open.
    pub fn show_search_not_borrowed_page(&mut self) {
        if self.opened_from_place().is_some() {
            self.page = SearchPage::Results;
        }
    }

    /// The query bar.
    pub fn bar(&self) -> &SearchBar {
        &self.bar
    }

    /// The results.
    pub fn results(&self) -> &ResultsView {
        &self.results
    }

    /// The detail view.
    pub fn detail(&self) -> &DetailView {
        &self.detail
    }

    /// The attribute editor.
    pub fn editor(&self) -> &AttributeEditor {
        &self.editor
    }

    /// The 3D models asked for (a model result's card turns it on hover).
    pub fn models(&self) -> &ModelCache {
        &self.models
    }

    /// The comparison of ticked results.
    pub fn compare(&self) -> &CompareView {
        &self.compare
    }

    /// The thumbnail cache.
    pub fn textures(&self) -> &TextureCache<egui::TextureHandle> {
        &self.textures
    }

    /// True while a search runs.
    pub fn is_searching(&self) -> bool {
        self.running_search.is_some()
    }

    /// How many searches this place has started (each has its own id).
    pub fn searches_started(&self) -> u64 {
        self.last_search_id
    }

    /// The thumbnail cache, for the Library, which draws its cards with the same textures.
    pub fn textures_mut(&mut self) -> &mut TextureCache<egui::TextureHandle> {
        &mut self.textures
    }

    /// Shows a file's detail opened from another place (the Library, Duplicates): its record is
    /// loaded, and the back button leads to that place again.
    pub fn show_file_from(&mut self, uid: FileUid, from: OpenedFrom, commands: &mut CommandQueue) {
        self.open_detail(uid, from, commands);
    }

    /// Compares files of another place (a duplicate group): the compare page opens on them, and
    /// its back button leads to that place again.
    pub fn compare_from(
        &mut self,
        rows: Vec<ResultRow>,
        from: OpenedFrom,
        commands: &mut CommandQueue,
    ) {
        self.compare.open(rows, commands);
        self.compare.set_opened_from(from);
        self.page = SearchPage::Compare;
    }

    /// Searches by a file of the library itself as the single view of a new search (*More like
    /// this* in the Library and Duplicates), or by a search input uploaded in the Jobs place: by its
    /// own UID, nothing uploaded, so a model is searched as a model.
    pub fn search_by_library_file(
        &mut self,
        uid: FileUid,
        file_name: &str,
        commands: &mut CommandQueue,
    ) {
        self.more_like_this(uid, file_name, commands);
    }

    /// Searches by these files as the views of a new search (Ctrl+V with file paths on the
    /// clipboard); a refusal (another kind of view, no extension) shows in the bar.
    pub fn search_by_files(&mut self, paths: Vec<PathBuf>, commands: &mut CommandQueue) {
        self.cancel_search(commands);
        self.bar.clear_views();
        self.add_views(paths);
        if !self.bar.views().is_empty() {
            self.search_again(commands);
        }
    }

    /// Searches by a picture in memory as the single view of a new search (Ctrl+V with a picture
    /// on the clipboard): it goes up from its bytes, like a sketch.
    pub fn search_by_picture(&mut self, png: bytes::Bytes, commands: &mut CommandQueue) {
        self.cancel_search(commands);
        self.bar.clear_views();
        self.page = SearchPage::Results;
        let picture = SketchImage::new("pasted-picture.png", png);
        if self.bar.add_view(ViewSource::Sketch(picture)).is_ok() {
            self.search_again(commands);
        }
    }

    /// Sets the thumbnail cache's budget in bytes (from Settings).
    pub fn set_texture_budget(&mut self, bytes: u64) {
        self.textures
            .set_budget_bytes(usize::try_from(bytes).unwrap_or(usize::MAX));
    }

    /// Forgets the completion lists (a new login, maybe another service): they load again.
    pub fn forget_completions(&mut self) {
        self.bar.forget_completions();
    }

    /// Adds dropped or picked files as views and shows the query bar.
    pub fn add_views(&mut self, paths: Vec<PathBuf>) {
        self.bar.add_files(paths);
        self.page = SearchPage::Results;
    }

    /// The history page.
    pub fn history(&self) -> &HistoryPage {
        &self.history
    }

    /// Shows the history page, or the results when it is shown (Ctrl+H).
    pub fn toggle_history(&mut self) {
        self.page = if self.page == SearchPage::History {
            SearchPage::Results
        } else {
            SearchPage::History
        };
    }

    /// Runs the search the bar holds now (as "Find parts" does); `partlens --search` starts this
    /// way. A refusal shows in the bar.
    pub fn run_search(&mut self, commands: &mut CommandQueue) {
        self.search_again(commands);
    }

    /// Takes the backend's answers that belong to this place; hands back the others.
    pub fn handle_event(&mut self, ctx: &egui::Context, event: Event) -> Option<Event> {
        let event = self.search_event(event)?;
        let event = self.record_event(event)?;
        let event = self.model_event(event)?;
        let event = self.drawing_event(event)?;
        self.image_event(ctx, event)
    }

    /// The answers of the running search and of the bar's completions.
    fn search_event(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::ViewsPicked(paths) => {
                if !paths.is_empty() {
                    self.add_views(paths);
                }
            }
            Event::SearchProgress { id, progress } if self.running_search == Some(id) => {
                self.bar.apply_progress(&progress);
                self.show_search_stage();
            }
            Event::SearchFinished { id, inputs, result } if self.running_search == Some(id) => {
                self.running_search = None;
                self.bar.finish(&inputs);
                // All views of one search are of one kind; their kind (and whether they are all
                // sketches) says what the scores mean.
                let views = self.bar.views();
                let query_kind = views.first().map(|slot| SearchedBy {
                    kind: view_kind(&slot.source),
                    sketched: views.iter().all(|slot| slot.source.is_sketch()),
                });
                self.results.set_results(
                    rows_from_result(&result, query_kind),
                    Some(result.total_results),
                );
            }
            Event::SearchFailed {
                id,
                message,
                transient,
            } if self.running_search == Some(id) => {
                self.running_search = None;
                self.bar.fail(message.clone());
                self.results.set_failed(message, transient);
            }
            Event::SearchInputsGone { id, slots } if self.running_search == Some(id) => {
                self.bar.reupload(&slots);
                self.show_search_stage();
            }
            // An answer to a search that was replaced.
            Event::SearchProgress { .. }
            | Event::SearchFinished { .. }
            | Event::SearchFailed { .. }
            | Event::SearchInputsGone { .. } => {}
            Event::HistoryChanged(history) => self.history.set_history(history),
            Event::AttributeNames(names) => self.bar.set_attribute_names(names),
            Event::AttributeValues { name, values } => {
                self.bar.set_attribute_values(&name, values);
            }
            other => return Some(other),
        }
        None
    }

    /// The results show what the running search is doing.
    fn show_search_stage(&mut self) {
        let stage = self.bar.stage().unwrap_or("Searching…").to_owned();
        self.results.set_loading(stage);
    }

    /// A file's record, its attributes saved or not, its deletion.
    fn record_event(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::RecordLoaded { uid, record } if self.detail.is_showing(&uid) => {
                self.detail.set_record(record);
                // A model already read for its card is not read again.
                if let Some(model) = self.detail.model_mut()
                    && let Some(preview) = self.models.ready(model.key())
                {
                    let key = model.key().to_owned();
                    model.answer(&key, ModelEntry::Ready(preview));
                }
            }
            Event::RecordFailed { uid, error } if self.detail.is_showing(&uid) => {
                self.detail.set_load_failed(uid, &error);
            }
            Event::RecordLoaded { .. } | Event::RecordFailed { .. } => {}
            Event::RelationsLoaded {
                uid,
                components,
                used_in,
            } => self.detail.set_relations(&uid, components, used_in),
            Event::AttributesSaved {
                uid,
                attributes,
                record,
            } => {
                if self.editing(&uid) {
                    self.editor.save_succeeded(&attributes);
                }
                self.results.update_attributes(&uid, &attributes);
                if let Some(record) = record
                    && self.detail.is_showing(&uid)
                {
                    self.detail.set_record(record);
                }
            }
            Event::AttributesSaveFailed { uid, error } => {
                if self.editing(&uid) {
                    self.editor.save_failed(&error);
                }
            }
            Event::FileDeleted(uid) => {
                if self.detail.is_showing(&uid) {
                    self.detail.set_delete_result(Ok(()));
                }
                self.results.remove_row(&uid);
            }
            Event::DeleteFailed { uid, error } => {
                if self.detail.is_showing(&uid) {
                    self.detail.set_delete_result(Err(&error));
                }
            }
            other => return Some(other),
        }
        None
    }

    /// The 3D models asked for, for the cards and the detail.
    fn model_event(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::ModelLoaded { key, preview } => {
                self.models.answer(&key, ModelEntry::Ready(preview.clone()));
                if let Some(model) = self.detail.model_mut() {
                    model.answer(&key, ModelEntry::Ready(preview));
                }
            }
            Event::ModelUnavailable { key, reason } => {
                self.models
                    .answer(&key, ModelEntry::Unavailable(reason.clone()));
                if let Some(model) = self.detail.model_mut() {
                    model.answer(&key, ModelEntry::Unavailable(reason));
                }
            }
            Event::ModelFilePicked(path) => {
                if let Some(path) = path
                    && let Some(model) = self.detail.model_mut()
                {
                    model.open_file(path);
                }
            }
            other => return Some(other),
        }
        None
    }

    /// A drawing's data and the feedback on it.
    fn drawing_event(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::PmiLoaded { uid, data } => self.pmi.set_data(&uid, data),
            Event::PmiFailed { uid, error } => self.pmi.set_failed(&uid, &error),
            Event::FeedbackSent { uid, feedback_id } => {
                self.pmi.feedback_mut().sent(&uid, &feedback_id);
            }
            Event::FeedbackFailed { uid, error } => self.pmi.feedback_mut().failed(&uid, &error),
            Event::FeedbackAwaitingLogin { uid } => self.pmi.feedback_mut().awaiting_login(&uid),
            other => return Some(other),
        }
        None
    }

    /// Pictures: for the comparison, else the thumbnail cache.
    fn image_event(&mut self, ctx: &egui::Context, event: Event) -> Option<Event> {
        match event {
            Event::ImageLoaded(image) if self.compare.wants(&image.key) => {
                self.compare.image_loaded(ctx, image);
            }
            Event::ImageFailed { key, message } if self.compare.wants(&key) => {
                self.compare.image_failed(&key, message);
            }
            Event::ImageLoaded(image) => {
                // A card that scrolled away meanwhile does not get a texture.
                if self.textures.is_pending(&image.key) {
                    let texture = load_decoded(ctx, &image);
                    self.textures.insert(image.key, texture);
                }
            }
            Event::ImageFailed { key, message } => {
                if self.textures.is_pending(&key) {
                    self.textures.insert_failed(key, message);
                }
            }
            other => return Some(other),
        }
        None
    }

    fn editing(&self, uid: &FileUid) -> bool {
        self.editor
            .draft()
            .is_some_and(|draft| draft.file_uid.canonical() == uid.canonical())
    }

    /// Draws the place and queues what the user asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        // Once a frame, before anything is drawn: evict and cancel what is no longer shown.
        let sweep = self.textures.begin_frame();
        for key in sweep.abandoned {
            commands.backend(Command::CancelImage(key));
        }
        // Escape clears a component lit in the detail's 3D view first.
        let cleared =
            self.page == SearchPage::Detail && self.detail.escape_clears_lit_component(ui);
        // Backspace or Escape leads back from a page opened from the results (or another place).
        if !cleared && self.page != SearchPage::Results && keyboard::back_pressed(ui) {
            self.go_back(commands);
        }
        match self.page {
            SearchPage::Results => {
                let intents = self.bar.ui(ui, &mut self.textures, commands);
                for intent in intents {
                    self.search_intent(intent, commands);
                }
                ui.separator();
                let intents = self.results.ui(ui, &mut self.textures, commands);
                self.hovered_model_ui(ui, commands);
                for intent in intents {
                    self.results_intent(intent, commands);
                }
            }
            SearchPage::Compare => {
                let intents = self.compare.ui(ui, commands);
                for intent in intents {
                    match intent {
                        CompareIntent::Back => self.go_back(commands),
                    }
                }
            }
            SearchPage::Detail => {
                let intents = self.detail.ui(ui, &mut self.textures, commands);
                for intent in intents {
                    self.detail_intent(intent, commands);
                }
            }
            SearchPage::Attributes => {
                let mut back = false;
                ui.horizontal(|ui| {
                    back = ui.button("Back to the file").clicked();
                    if self.editor.draft().is_some_and(|draft| draft.has_changes()) {
                        ui.weak(
                            "Unsaved edits are kept as a draft when you leave; Ctrl+Z undoes \
                             the last one.",
                        );
                    }
                });
                ui.separator();
                self.editor.ui(ui, commands);
                if back {
                    self.page = SearchPage::Detail;
                }
            }
            SearchPage::Pmi => {
                let intents = self.pmi.ui(ui, &mut self.textures, commands);
                for intent in intents {
                    match intent {
                        PmiIntent::Back => self.page = SearchPage::Detail,
                    }
                }
            }
            SearchPage::History => {
                let intents = self.history.ui(ui, &mut self.textures, commands);
                for intent in intents {
                    match intent {
                        HistoryIntent::Run(id) => self.run_kept_search(id, commands),
                        HistoryIntent::Back => self.page = SearchPage::Results,
                    }
                }
            }
        }
    }

    /// Leaves the page shown for the one it was opened from, as its back button does.
    fn go_back(&mut self, commands: &mut CommandQueue) {
        match self.page {
            SearchPage::Results => {}
            SearchPage::Detail => self.detail_intent(DetailIntent::Back, commands),
            SearchPage::Attributes | SearchPage::Pmi => self.page = SearchPage::Detail,
            SearchPage::History => self.page = SearchPage::Results,
            SearchPage::Compare => {
                self.page = SearchPage::Results;
                if let Some(place) = self.compare.opened_from().place() {
                    commands.push(AppCommand::Navigate(place));
                }
            }
        }
    }

    /// Turns the model of a hovered result card in place of its picture, once this computer has it
    /// (asked for on the first hover; a model that cannot be had leaves the picture).
    fn hovered_model_ui(&mut self, ui: &egui::Ui, commands: &mut CommandQueue) {
        let Some((row, rect)) = self.results.hovered_model().cloned() else {
            return;
        };
        let known = self.known_paths(&row.uid);
        let request = ModelRequest::stored_file(row.uid.clone(), &row.file_name, known);
        if let ModelEntry::Ready(preview) = self.models.request(request, commands)
            && rect.is_positive()
        {
            let preview = preview.clone();
            turntable_ui(ui, rect, &preview);
        }
    }

    /// Files on this computer known to hold the content of `uid`: the query bar's views indexed
    /// under it.
    fn known_paths(&self, uid: &FileUid) -> Vec<PathBuf> {
        let canonical = uid.canonical();
        self.bar
            .views()
            .iter()
            .filter_map(|slot| match (&slot.source, &slot.state) {
                (ViewSource::File(path), ViewState::Indexed(input))
                    if input.canonical() == canonical =>
                {
                    Some(path.clone())
                }
                _ => None,
            })
            .collect()
    }

    fn start_search(&mut self, request: ViewSearchRequest, commands: &mut CommandQueue) {
        // A new search replaces the one under way: its answer would be ignored, so it stops (and
        // is not kept in the history).
        if let Some(superseded) = self.running_search.take() {
            commands.backend(Command::CancelSearch(superseded));
        }
        self.last_search_id += 1;
        let id = self.last_search_id;
        self.running_search = Some(id);
        self.show_search_stage();
        commands.backend(Command::Search {
            id,
            request,
            keep_in_history: true,
        });
    }

    /// Plans and runs a search from the bar (its refusal, if any, shows in the bar).
    fn search_again(&mut self, commands: &mut CommandQueue) {
        if let Ok(request) = self.bar.start() {
            self.start_search(request, commands);
        }
    }

    fn cancel_search(&mut self, commands: &mut CommandQueue) {
        if let Some(id) = self.running_search.take() {
            commands.backend(Command::CancelSearch(id));
            let message = "The search was cancelled.";
            self.bar.fail(message);
            self.results.set_failed(message, true);
        }
    }

    /// "More like this": the file itself becomes the single view of a new search (the text and
    /// filters stay), searched by its own UID: nothing is uploaded, and a model is searched as a
    /// model (model → model), a drawing as a drawing.
    fn more_like_this(&mut self, uid: FileUid, file_name: &str, commands: &mut CommandQueue) {
        self.cancel_search(commands);
        self.bar.clear_views();
        self.page = SearchPage::Results;
        let name = file_name
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(file_name)
            .to_owned();
        if self
            .bar
            .add_view(ViewSource::LibraryFile { uid, name })
            .is_ok()
        {
            self.search_again(commands);
        }
    }

    /// Opens the detail of `uid`, reached `from` a place. Only a result opened from the results
    /// says how it scored: the same file opened from the Library or Duplicates was not found by
    /// the search that is in the results meanwhile.
    fn open_detail(&mut self, uid: FileUid, from: OpenedFrom, commands: &mut CommandQueue) {
        self.detail.set_loading(uid.clone());
        self.detail.set_opened_from(from);
        let note = if from == OpenedFrom::Results {
            self.match_note(&uid)
        } else {
            None
        };
        self.detail.set_match_note(note);
        self.detail.set_model_hints(self.known_paths(&uid));
        self.page = SearchPage::Detail;
        commands.backend(Command::LoadRecord(uid));
    }

    /// How the result `uid` scored in the search shown ("Raw score 0.912 (picture to picture): a
    /// 97 % chance of being the same part."), when it is one of its results with a score.
    fn match_note(&self, uid: &FileUid) -> Option<String> {
        let canonical = uid.canonical();
        let row = self
            .results
            .rows()
            .iter()
            .find(|row| row.uid.canonical() == canonical)?;
        let (score, chance) = (row.score?, row.same_part_chance()?);
        let mirrored = if row.mirrored {
            " It is mirrored: the mirror image of the model searched by (a left part for a right one)."
        } else {
            ""
        };
        Some(format!(
            "Raw score {score:.3} ({}): a {:.0} % chance of being the same part.{mirrored}",
            // The bundled font has no arrow.
            row.query_kind.name().replace(" → ", " to "),
            chance * 100.0
        ))
    }

    fn search_intent(&mut self, intent: SearchIntent, commands: &mut CommandQueue) {
        match intent {
            SearchIntent::Run(request) => self.start_search(request, commands),
            SearchIntent::ShowHistory => self.page = SearchPage::History,
        }
    }

    /// A search of the history goes back into the query bar and runs by its kept UIDs.
    fn run_kept_search(&mut self, id: u64, commands: &mut CommandQueue) {
        let history = self.history.history().clone();
        let Some(entry) = history.entry(id) else {
            return;
        };
        self.cancel_search(commands);
        self.bar.restore(&history, entry);
        self.page = SearchPage::Results;
        self.search_again(commands);
    }

    fn results_intent(&mut self, intent: ResultsIntent, commands: &mut CommandQueue) {
        match intent {
            ResultsIntent::OpenDetail(uid) => self.open_detail(uid, OpenedFrom::Results, commands),
            ResultsIntent::OpenLibrary => {
                commands.push(AppCommand::Navigate(Place::Library));
            }
            ResultsIntent::MoreLikeThis { uid, file_name } => {
                self.more_like_this(uid, &file_name, commands);
            }
            ResultsIntent::RetrySearch => self.search_again(commands),
            ResultsIntent::CancelSearch => self.cancel_search(commands),
            ResultsIntent::Compare(rows) => {
                self.compare.open(rows, commands);
                self.page = SearchPage::Compare;
            }
            ResultsIntent::ClearFilters => {
                self.bar.clear_filters();
                if self.bar.plan().is_ok() {
                    self.search_again(commands);
                } else {
                    self.results.reset();
                }
            }
        }
    }

    fn detail_intent(&mut self, intent: DetailIntent, commands: &mut CommandQueue) {
        match intent {
            // A component or an assembly opened from a record: back leads where the record's did.
            DetailIntent::OpenFile(uid) => {
                let from = self.detail.opened_from();
                self.open_detail(uid, from, commands);
            }
            DetailIntent::EditAttributes(uid) => {
                if let Some(record) = self.detail.record() {
                    self.editor
                        .open(uid, record.title(), &record.parsed_attributes());
                    self.page = SearchPage::Attributes;
                }
            }
            DetailIntent::ShowPmi(uid) => {
                if let Some(record) = self.detail.record() {
                    let image_url = record.picture_url().unwrap_or_default().to_owned();
                    self.pmi.open(uid.clone(), record.title(), image_url);
                    // A drawing the search found on a later page opens on that page.
                    let found_on = self
                        .results
                        .rows()
                        .iter()
                        .find(|row| row.uid.canonical() == uid.canonical());
                    if let Some(page) = found_on.and_then(|row| row.found_on_page) {
                        self.pmi.open_on_page(page);
                    }
                    self.page = SearchPage::Pmi;
                    commands.backend(Command::LoadPmi(uid));
                }
            }
            DetailIntent::MoreLikeThis { uid, file_name } => {
                self.more_like_this(uid, &file_name, commands);
            }
            DetailIntent::Back => {
                self.page = SearchPage::Results;
                if let Some(place) = self.detail.opened_from().place() {
                    commands.push(AppCommand::Navigate(place));
                }
            }
        }
    }
}
