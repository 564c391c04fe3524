//! The search bar's options for a search by a model (issue 49: size as the user wants it): *Same
//! size first* (on by default: the models of the searched model's size first, like the peers'
//! "include part size"; off ranks by shape alone) and *Ignore mirrored parts* (off by default: a
//! mirror image of the model, a left bracket for a right one, is shown and marked "mirrored"; on
//! leaves it out). Shown only while the views are models, and sent only then: a picture, a sketch
//! or a drawing has no size and no hand. Toggling one runs the search again, as a filter does.

use super::{SearchBar, ViewKind, view_kind};
use partlens_api::SearchOptions;

/// The label of the *Same size first* switch.
pub const SIZE_FIRST_LABEL: &str = "Same size first";

/// The label of the *Ignore mirrored parts* switch.
pub const IGNORE_MIRRORED_LABEL: &str = "Ignore mirrored parts";

impl SearchBar {
    /// Whether the bar's views are models (the options apply).
    pub fn searches_by_model(&self) -> bool {
        self.views()
            .first()
            .is_some_and(|slot| view_kind(&slot.source) == ViewKind::Model)
    }

    /// The options the switches hold (shown and sent only while the views are models).
    pub fn options(&self) -> SearchOptions {
        self.options
    }

    /// Sets the switches (a search of the history brings its own back).
    pub fn set_options(&mut self, options: SearchOptions) {
        self.options = options;
    }

    /// The query parameters of the options for the search planned now: none unless the views
    /// are models and an option differs from its default.
    pub(super) fn option_params(&self) -> Vec<(String, String)> {
        if self.searches_by_model() {
            self.options.params()
        } else {
            Vec::new()
        }
    }

    /// Draws the switches while the views are models; true when one was toggled (the search runs
    /// again).
    pub(super) fn options_ui(&mut self, ui: &mut egui::Ui) -> bool {
        if !self.searches_by_model() {
            return false;
        }
        let mut toggled = false;
        ui.horizontal(|ui| {
            toggled |= ui
                .checkbox(&mut self.options.size_first, SIZE_FIRST_LABEL)
                .on_hover_text(
                    "Rank the models of this model's size first; off ranks by shape alone, \
                     whatever the size.",
                )
                .changed();
            toggled |= ui
                .checkbox(&mut self.options.ignore_mirrored, IGNORE_MIRRORED_LABEL)
                .on_hover_text(
                    "Leave out the mirror images of this model (a left part for a right one); \
                     off shows them, marked \"mirrored\".",
                )
                .changed();
        });
        toggled
    }
}

#[cfg(test)]
mod tests {
    use egui::accesskit::Toggled;
    use egui_kittest::Harness;
    use egui_kittest::kittest::{NodeT as _, Queryable as _};

    use super::super::tests::{Fixture, file, harness, uid};
    use super::*;
    use crate::ui::search_bar::{SearchIntent, ViewSource};

    fn toggled(harness: &Harness<'static, Fixture>, label: &str) -> Option<Toggled> {
        harness.get_by_label(label).accesskit_node().toggled()
    }

    fn library_model() -> ViewSource {
        ViewSource::LibraryFile {
            uid: uid(7),
            name: "Parts/lever.stl".into(),
        }
    }

    #[test]
    fn the_switches_show_for_a_model_and_each_toggle_runs_the_search_with_it() {
        // A picture: no switch, and nothing sent even if the options were changed.
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        bar.set_options(SearchOptions {
            size_first: false,
            ignore_mirrored: true,
        });
        assert!(bar.plan().unwrap().extra_params.is_empty());
        let mut by_picture = harness(bar);
        by_picture.run();
        assert!(by_picture.query_by_label(SIZE_FIRST_LABEL).is_none());

        let mut bar = SearchBar::new();
        bar.add_view(library_model()).unwrap();
        assert!(
            bar.plan().unwrap().extra_params.is_empty(),
            "defaults sent as before"
        );
        let mut by_model = harness(bar);
        by_model.run();
        assert_eq!(toggled(&by_model, SIZE_FIRST_LABEL), Some(Toggled::True));
        assert_eq!(
            toggled(&by_model, IGNORE_MIRRORED_LABEL),
            Some(Toggled::False)
        );

        by_model.get_by_label(IGNORE_MIRRORED_LABEL).click();
        by_model.run_steps(2);
        let sent: Vec<Vec<(String, String)>> = by_model
            .state()
            .intents
            .iter()
            .filter_map(|intent| match intent {
                SearchIntent::Run(request) => Some(request.extra_params.clone()),
                SearchIntent::ShowHistory => None,
            })
            .collect();
        assert_eq!(
            sent,
            [vec![("ignoreMirrored".to_owned(), "true".to_owned())]]
        );
        assert_eq!(
            toggled(&by_model, IGNORE_MIRRORED_LABEL),
            Some(Toggled::True)
        );
    }
}
