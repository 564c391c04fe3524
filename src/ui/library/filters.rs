//! The Library's filters: a kind (pictures, 3D models, drawings), a folder (and below it) and an
//! attribute or words, written as in the query bar (`material=steel`, `material=[steel]`,
//! `part_number=PL-10*`, or words). What is typed is applied with Enter or *Apply*; the listing
//! shown is always of the filters applied.

use partlens_api::library::{FileKind, LibraryQuery};
use partlens_api::{FilterTerm, SearchFilter};

/// The filters as typed, and as applied to the listing shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LibraryFilters {
    /// Only files of this kind.
    pub kind: Option<FileKind>,
    /// Only files in this folder or below it.
    pub folder: String,
    /// An attribute condition or words.
    pub attribute: String,
    applied: Option<Box<LibraryFilters>>,
}

impl LibraryFilters {
    /// True when the listing shown is narrowed by any filter.
    pub fn any_applied(&self) -> bool {
        self.applied.as_deref().is_some_and(|applied| {
            applied.kind.is_some()
                || !applied.folder.trim().is_empty()
                || !applied.attribute.trim().is_empty()
        })
    }

    /// Takes what is typed as the filters of the next listing.
    pub fn apply(&mut self) {
        let mut applied = self.clone();
        applied.applied = None;
        self.applied = Some(Box::new(applied));
    }

    /// Empties every filter (applied at the next listing).
    pub fn clear(&mut self) {
        self.kind = None;
        self.folder.clear();
        self.attribute.clear();
    }

    /// The query of the applied filters (offset and limit left at their defaults).
    pub fn query(&self) -> LibraryQuery {
        let applied = self.applied.as_deref().unwrap_or(self);
        let attribute = applied.attribute.trim();
        let filter = if attribute.is_empty() {
            SearchFilter::new()
        } else if attribute.contains('=') {
            SearchFilter::new().term(FilterTerm::parse(attribute))
        } else {
            SearchFilter::new().text(attribute)
        };
        let folder = applied.folder.trim().trim_matches('/');
        LibraryQuery {
            kind: applied.kind,
            folder: (!folder.is_empty()).then(|| folder.to_owned()),
            filter,
            ..LibraryQuery::new()
        }
    }

    /// Draws the filter row; true when the user asked for the listing with these filters (a kind
    /// chosen, Enter in a field, *Apply* or *Clear*).
    pub fn ui(&mut self, ui: &mut egui::Ui) -> bool {
        let mut apply = false;
        ui.horizontal_wrapped(|ui| {
            let kind_label = ui.label("Kind");
            let shown = match self.kind {
                Some(kind) => capitalised(kind.plural()),
                None => "All files".to_owned(),
            };
            egui::ComboBox::from_id_salt("library kind")
                .selected_text(shown)
                .show_ui(ui, |ui| {
                    apply |= ui
                        .selectable_value(&mut self.kind, None, "All files")
                        .clicked();
                    for kind in FileKind::FILTERS {
                        apply |= ui
                            .selectable_value(
                                &mut self.kind,
                                Some(kind),
                                capitalised(kind.plural()),
                            )
                            .clicked();
                    }
                })
                .response
                .labelled_by(kind_label.id);
            ui.add_space(8.0);
            let folder_label = ui.label("Folder");
            let folder = ui
                .add(
                    egui::TextEdit::singleline(&mut self.folder)
                        .hint_text("Parts/Brackets")
                        .desired_width(160.0),
                )
                .labelled_by(folder_label.id);
            ui.add_space(8.0);
            let attribute_label = ui.label("Attribute or words");
            let attribute = ui
                .add(
                    egui::TextEdit::singleline(&mut self.attribute)
                        .hint_text("material=steel")
                        .desired_width(180.0),
                )
                .labelled_by(attribute_label.id);
            let entered = ui.input(|input| input.key_pressed(egui::Key::Enter));
            apply |= entered && (folder.lost_focus() || attribute.lost_focus());
            let typed_differs = self.applied.as_deref().is_none_or(|applied| {
                applied.folder != self.folder || applied.attribute != self.attribute
            });
            if ui
                .add_enabled(typed_differs, egui::Button::new("Apply"))
                .on_hover_text("List the files with these filters (or press Enter)")
                .clicked()
            {
                apply = true;
            }
            if self.any_applied() && ui.button("Clear filters").clicked() {
                self.clear();
                apply = true;
            }
        });
        apply
    }
}

/// `text` with its first letter upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_of_the_applied_filters_written_as_in_the_query_bar() {
        let mut filters = LibraryFilters {
            kind: Some(FileKind::Model),
            folder: " /Parts/Brackets/ ".into(),
            attribute: "material=[steel]".into(),
            applied: None,
        };
        filters.apply();
        filters.attribute = "typed, not applied".into();
        let query = filters.query();
        assert_eq!(query.kind, Some(FileKind::Model));
        assert_eq!(query.folder.as_deref(), Some("Parts/Brackets"));
        assert_eq!(
            query.filter.terms().collect::<Vec<_>>(),
            [&FilterTerm::Exact {
                name: "material".into(),
                value: "steel".into()
            }]
        );
        assert!(filters.any_applied());
        filters.clear();
        filters.apply();
        assert!(!filters.any_applied());
        filters.attribute = "flange".into();
        filters.apply();
        assert_eq!(
            filters.query().filter.terms().collect::<Vec<_>>(),
            [&FilterTerm::Text("flange".into())]
        );
    }
}
