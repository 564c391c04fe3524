//! The query bar and the search history: how a kept search is put back into the bar to run again
//! by its UIDs, and how views whose input the service lost go up again. (What the history keeps
//! of a search the task layer makes from the request itself.)

use std::path::PathBuf;

use super::views::{ViewSlot, ViewSource, ViewState};
use super::{FilterOperator, FilterRow, MAX_VIEWS, SearchBar};
use partlens_api::FilterTerm;
use partlens_tasks::history::{HistoryEntry, SearchHistory};

impl SearchBar {
    /// Puts a kept search back into the bar: its views (from the history's copies, else the files
    /// they came from) with the input UIDs they had, so running it searches by those UIDs without
    /// uploading; its text and filters. A view with neither a copy nor a file but with a UID is
    /// searched by the UID alone. Returns how many views had to be left out (nothing to search by).
    pub fn restore(&mut self, history: &SearchHistory, entry: &HistoryEntry) -> usize {
        self.views.clear();
        self.filters.clear();
        self.message = None;
        self.stage = None;
        self.active_filter = None;
        self.text = entry.text.clone();
        let mut left_out = 0;
        for view in entry.views.iter().take(MAX_VIEWS) {
            if view.library_file
                && let Some(uid) = &view.input_uid
            {
                let id = self.next_view_id;
                self.next_view_id += 1;
                self.views.push(ViewSlot {
                    id,
                    source: ViewSource::LibraryFile {
                        uid: uid.clone(),
                        name: view.name.clone(),
                    },
                    state: ViewState::Indexed(uid.clone()),
                });
                continue;
            }
            let state = match &view.input_uid {
                Some(uid) => ViewState::Indexed(uid.clone()),
                None => ViewState::New,
            };
            if view.sketch
                && let Some(path) = history.kept_path(view)
            {
                // Still a sketch (its scores are a sketch's), going up from its kept copy.
                let id = self.next_view_id;
                self.next_view_id += 1;
                self.views.push(ViewSlot {
                    id,
                    source: ViewSource::KeptSketch(path),
                    state,
                });
                continue;
            }
            let path = history
                .kept_path(view)
                .or_else(|| view.original_path.clone())
                .or_else(|| view.input_uid.as_ref().map(|_| PathBuf::from(&view.name)));
            let Some(path) = path else {
                left_out += 1;
                continue;
            };
            let id = self.next_view_id;
            self.next_view_id += 1;
            self.views.push(ViewSlot {
                id,
                source: ViewSource::File(path),
                state,
            });
        }
        self.filters = entry.filters.iter().filter_map(filter_row).collect();
        self.set_options(entry.options);
        if left_out > 0 {
            self.message = Some(format!(
                "{left_out} view(s) of this search were not kept and are left out."
            ));
        }
        left_out
    }

    /// The service no longer has the kept inputs of the views in these slots: they go up again with
    /// the running search.
    pub fn reupload(&mut self, slots: &[u64]) {
        let Some(batch) = &mut self.running else {
            return;
        };
        let mut again = 0;
        for id in slots {
            if let Some(slot) = self.views.iter_mut().find(|slot| slot.id == *id) {
                slot.state = ViewState::Uploading { sent: 0, total: 0 };
                batch.push(slot.id);
                again += 1;
            }
        }
        if again > 0 {
            self.stage = Some(format!(
                "The service no longer has {again} view(s) of this search; uploading them again…"
            ));
        }
    }
}

/// A filter row for a kept filter term (free text has its own field and is not a row).
fn filter_row(term: &FilterTerm) -> Option<FilterRow> {
    let (name, operator, value) = match term {
        FilterTerm::Text(_) => return None,
        FilterTerm::Regular { name, value } => (name, FilterOperator::Regular, value.clone()),
        FilterTerm::Exact { name, value } => (name, FilterOperator::Exact, value.clone()),
        FilterTerm::Prefix { name, prefix } => (name, FilterOperator::Prefix, prefix.clone()),
        FilterTerm::Range {
            name,
            low,
            high,
            unit,
        } => (
            name,
            FilterOperator::Range,
            partlens_api::range::range_value(*low, *high, *unit),
        ),
    };
    Some(FilterRow {
        name: name.clone(),
        operator,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::search_bar::tests::{file, uid};
    use crate::ui::search_bar::views::{ViewKind, view_kind};
    use partlens_tasks::history::{HistoryView, SearchDraft};
    use partlens_tasks::search::view_search::ViewInput;

    /// A kept search of `views` with nothing else.
    fn entry_of(views: Vec<HistoryView>) -> HistoryEntry {
        HistoryEntry {
            id: 1,
            name: None,
            last_run: chrono::Utc::now(),
            runs: 1,
            service: String::new(),
            views,
            text: String::new(),
            filters: Vec::new(),
            total_results: None,
            options: Default::default(),
        }
    }

    #[test]
    fn a_kept_search_goes_back_into_the_bar_and_runs_by_its_uids() {
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        bar.text = " flange ".into();
        bar.add_filter(FilterRow {
            name: "material".into(),
            operator: FilterOperator::Exact,
            value: "steel".into(),
        });
        let request = bar.start().unwrap();
        let draft = SearchDraft::of_request(&request, 4);
        assert_eq!(draft.text, "flange");
        assert_eq!(draft.total_results, 4);

        let history = SearchHistory {
            files_dir: PathBuf::from("/data/history/files"),
            entries: Vec::new(),
        };
        let entry = HistoryEntry {
            text: draft.text.clone(),
            filters: draft.filters.clone(),
            total_results: Some(4),
            options: draft.options,
            ..entry_of(vec![
                HistoryView {
                    name: "front.png".into(),
                    input_uid: Some(uid(1)),
                    kept_file: Some(format!("{}/front.png", "a".repeat(40))),
                    original_path: Some(PathBuf::from("/parts/front.png")),
                    not_kept: None,
                    library_file: false,
                    sketch: false,
                },
                HistoryView {
                    name: "huge.png".into(),
                    input_uid: None,
                    kept_file: None,
                    original_path: Some(PathBuf::from("/parts/huge.png")),
                    not_kept: Some("too large".into()),
                    library_file: false,
                    sketch: false,
                },
                HistoryView {
                    name: "lost.png".into(),
                    input_uid: None,
                    kept_file: None,
                    original_path: None,
                    not_kept: Some("no copy".into()),
                    library_file: false,
                    sketch: false,
                },
            ])
        };
        let mut bar = SearchBar::new();
        assert_eq!(bar.restore(&history, &entry), 1);
        assert_eq!(bar.views().len(), 2);
        assert_eq!(
            bar.views()[0].source,
            ViewSource::File(history.kept_path(&entry.views[0]).unwrap())
        );
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(1)));
        assert_eq!(bar.views()[1].state, ViewState::New);
        assert_eq!(bar.filters()[0].operator, FilterOperator::Exact);
        let plan = bar.plan().unwrap();
        assert_eq!(plan.filter().file_uids, vec![uid(1)]);
        let uploads: Vec<u64> = plan.uploads().map(|view| view.slot).collect();
        assert_eq!(uploads, vec![bar.views()[1].id]);
        assert!(bar.message().unwrap().contains("left out"));
    }

    #[test]
    fn a_kept_sketch_goes_back_into_the_bar_as_a_sketch() {
        let dir = tempfile::tempdir().unwrap();
        let history = SearchHistory {
            files_dir: dir.path().to_path_buf(),
            entries: Vec::new(),
        };
        let relative = format!("{}/sketch.png", "b".repeat(40));
        let view = HistoryView {
            name: "sketch.png".into(),
            input_uid: Some(uid(5)),
            kept_file: Some(relative),
            original_path: None,
            not_kept: None,
            library_file: false,
            sketch: true,
        };
        let kept = history.kept_path(&view).unwrap();
        let entry = entry_of(vec![view]);
        let mut bar = SearchBar::new();
        assert_eq!(bar.restore(&history, &entry), 0);
        // Its copy is not read here (the UI thread): the upload reads it, if it goes up again.
        assert_eq!(bar.views()[0].source, ViewSource::KeptSketch(kept));
        assert_eq!(bar.views()[0].source.name(), "sketch.png");
        assert_eq!(view_kind(&bar.views()[0].source), ViewKind::Image);
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(5)));
    }

    #[test]
    fn views_the_service_lost_go_up_again_by_their_slot() {
        let mut bar = SearchBar::new();
        let kept = bar.add_view(file("front.png")).unwrap();
        bar.start().unwrap();
        bar.finish(&[ViewInput {
            slot: kept,
            uid: uid(1),
        }]);
        let new = bar.add_view(file("side.png")).unwrap();
        let plan = bar.start().unwrap();
        let uploads: Vec<u64> = plan.uploads().map(|view| view.slot).collect();
        assert_eq!(uploads, vec![new]);
        bar.reupload(&[kept]);
        assert!(matches!(bar.views()[0].state, ViewState::Uploading { .. }));
        bar.finish(&[
            ViewInput {
                slot: new,
                uid: uid(2),
            },
            ViewInput {
                slot: kept,
                uid: uid(3),
            },
        ]);
        assert_eq!(bar.views()[0].state, ViewState::Indexed(uid(3)));
        assert_eq!(bar.views()[1].state, ViewState::Indexed(uid(2)));
    }

    #[test]
    fn a_kept_range_comes_back_as_a_range_row_that_searches_the_same() {
        let term = FilterTerm::parse("width=..0,5in");
        let row = filter_row(&term).unwrap();
        assert_eq!(row.operator, FilterOperator::Range);
        assert_eq!(
            (row.name.as_str(), row.value.as_str()),
            ("width", "..0.5in")
        );
        assert_eq!(row.term(), Ok(Some(term)));
    }
}
