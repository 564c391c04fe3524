//! The attribute filter rows of the query bar: name, how it matches, value; the completion of
//! names (the company's attribute names) and values (an attribute's values, with counts) from menus
//! and from suggestions under the row being edited. A row "is between" takes a numeric range
//! (`40..60 mm`), and the *Size…* menu names a model's length, width or thickness for it; the row
//! then reads the range back in words ("length 40–60 mm").

use super::SearchBar;
use crate::ui::app_command::CommandQueue;
use partlens_api::range::{SizeExtent, parse_range, range_label};
use partlens_api::{AttributeValue, FilterTerm};
use partlens_tasks::Command;

/// How many completion suggestions are shown under a field.
const SUGGESTIONS: usize = 6;

/// How a filter row matches its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FilterOperator {
    /// Regular metadata search (`name=value`).
    #[default]
    Regular,
    /// One whole value must match (`name=[value]`).
    Exact,
    /// A value starts with this (`name=value*`).
    Prefix,
    /// A number in a range (`name=40..60 mm`); `length`, `width`, `thickness` are a model's size.
    Range,
}

impl FilterOperator {
    /// Every operator, in menu order.
    pub const ALL: [Self; 4] = [Self::Regular, Self::Exact, Self::Prefix, Self::Range];

    /// The operator in words.
    pub fn label(self) -> &'static str {
        match self {
            Self::Regular => "matches",
            Self::Exact => "is exactly",
            Self::Prefix => "starts with",
            Self::Range => "is between",
        }
    }
}

/// One attribute filter row.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FilterRow {
    /// Attribute name.
    pub name: String,
    /// How the value matches.
    pub operator: FilterOperator,
    /// The value.
    pub value: String,
}

impl FilterRow {
    /// The row as a filter term, `None` when blank, an error sentence when half filled.
    pub fn term(&self) -> Result<Option<FilterTerm>, String> {
        let name = self.name.trim();
        let value = self.value.trim();
        match (name.is_empty(), value.is_empty()) {
            (true, true) => Ok(None),
            (false, true) => Err(format!(
                "Give a value for the filter \"{name}\", or remove that filter."
            )),
            (true, false) => Err(format!(
                "Give an attribute name for the value \"{value}\", or remove that filter."
            )),
            (false, false) => {
                // A regular value of the range shape is a range on the wire anyway.
                if matches!(
                    self.operator,
                    FilterOperator::Range | FilterOperator::Regular
                ) && let Some((low, high, unit)) = parse_range(value)
                {
                    return Ok(Some(FilterTerm::Range {
                        name: name.to_owned(),
                        low,
                        high,
                        unit,
                    }));
                }
                let (name, value) = (name.to_owned(), value.to_owned());
                Ok(Some(match self.operator {
                    FilterOperator::Range => {
                        return Err(format!(
                            "Write the range of \"{name}\" as from..to, either end may be left \
                             out, a unit mm, cm, m or in may follow (40..60 mm, 40.., ..60)."
                        ));
                    }
                    FilterOperator::Regular => FilterTerm::Regular { name, value },
                    FilterOperator::Exact => FilterTerm::Exact { name, value },
                    FilterOperator::Prefix => FilterTerm::Prefix {
                        name,
                        prefix: value.trim_end_matches('*').to_owned(),
                    },
                }))
            }
        }
    }
}

/// The row's range in words ("length 40–60 mm"), when its term is a range.
pub fn range_text(row: &FilterRow) -> Option<String> {
    match row.term() {
        Ok(Some(FilterTerm::Range {
            name,
            low,
            high,
            unit,
        })) => Some(range_label(&name, low, high, unit)),
        _ => None,
    }
}

/// Up to [`SUGGESTIONS`] entries that complete `typed`: those starting with it (ignoring case) first,
/// then those containing it, each group in the given order.
pub fn suggestions<'a>(
    entries: impl Iterator<Item = &'a str> + Clone,
    typed: &str,
) -> Vec<&'a str> {
    let typed = typed.trim().to_lowercase();
    if typed.is_empty() {
        return entries.take(SUGGESTIONS).collect();
    }
    let starting = entries
        .clone()
        .filter(|entry| entry.to_lowercase().starts_with(&typed));
    let containing = entries.filter(|entry| {
        let lower = entry.to_lowercase();
        !lower.starts_with(&typed) && lower.contains(&typed)
    });
    starting.chain(containing).take(SUGGESTIONS).collect()
}

/// A completion the user picked for a row.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pick {
    /// This attribute name.
    Name(usize, String),
    /// This value.
    Value(usize, String),
    /// This extent of a model's size, compared with a range.
    Size(usize, SizeExtent),
}

/// What the user did in the filter rows this frame; applied once they are drawn.
#[derive(Debug, Default)]
struct FilterEdits {
    /// Enter was pressed in a row's field.
    enter: bool,
    /// The row whose field has the focus or changed (the one whose completion is shown).
    active: Option<usize>,
    /// The row the user removed.
    removed: Option<usize>,
    /// A completion picked from a menu or the suggestions.
    pick: Option<Pick>,
}

/// The ids of the grid's column headers: every row's fields are labelled by them.
struct ColumnLabels {
    attribute: egui::Id,
    operator: egui::Id,
    value: egui::Id,
}

impl SearchBar {
    /// The filter rows (a grid under column headers, so fields line up), then the completion
    /// suggestions of the row being edited. Returns true when Enter was pressed in one of them.
    pub(super) fn filters_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let names = self.attribute_names.clone().unwrap_or_default();
        let mut edits = FilterEdits::default();
        let attribute_values = &self.attribute_values;
        let filters = &mut self.filters;
        egui::Grid::new("search filter rows")
            .num_columns(6)
            .spacing([6.0, 4.0])
            .show(ui, |ui| {
                let attribute = ui.label("Attribute").id;
                ui.label("");
                let operator = ui.label("Match").id;
                let value = ui.label("Value").id;
                ui.end_row();
                let labels = ColumnLabels {
                    attribute,
                    operator,
                    value,
                };
                for (index, row) in filters.iter_mut().enumerate() {
                    let values = attribute_values
                        .get(&row.name.trim().to_lowercase())
                        .map(Vec::as_slice)
                        .unwrap_or_default();
                    filter_row_ui(ui, index, row, &labels, (&names, values), &mut edits);
                    ui.end_row();
                }
            });
        if edits.active.is_some() {
            self.active_filter = edits.active;
        }
        self.ask_for_values(&names, commands);
        if let Some(pick) = self.suggestions_ui(ui) {
            edits.pick = Some(pick);
        }
        match edits.pick {
            Some(Pick::Name(index, name)) => {
                if let Some(row) = self.filters.get_mut(index) {
                    row.name = name;
                }
            }
            Some(Pick::Value(index, value)) => {
                if let Some(row) = self.filters.get_mut(index) {
                    row.value = value;
                }
            }
            Some(Pick::Size(index, extent)) => {
                if let Some(row) = self.filters.get_mut(index) {
                    row.name = extent.name().to_owned();
                    row.operator = FilterOperator::Range;
                }
            }
            None => {}
        }
        if let Some(index) = edits.removed {
            self.filters.remove(index);
            self.active_filter = None;
        }
        edits.enter
    }

    /// Asks once for the values of every name the company uses that a row names.
    fn ask_for_values(&mut self, names: &[String], commands: &mut CommandQueue) {
        for row in &self.filters {
            let name_key = row.name.trim().to_lowercase();
            if !name_key.is_empty()
                && names.iter().any(|name| name.to_lowercase() == name_key)
                && !self.attribute_values.contains_key(&name_key)
                && self.values_requested.insert(name_key)
            {
                commands.backend(Command::LoadAttributeValues(row.name.trim().to_owned()));
            }
        }
    }

    /// The suggestions under the row being edited, while what is typed is not a known entry yet.
    /// Returns the one clicked.
    fn suggestions_ui(&self, ui: &mut egui::Ui) -> Option<Pick> {
        let index = self
            .active_filter
            .filter(|index| *index < self.filters.len())?;
        let row = &self.filters[index];
        let name_suggestions: Vec<String> = self
            .name_suggestions(&row.name)
            .into_iter()
            .filter(|name| !row.name.trim().is_empty() && name != row.name.trim())
            .collect();
        let value_suggestions: Vec<AttributeValue> = self
            .value_suggestions(&row.name, &row.value)
            .into_iter()
            .filter(|value| !row.value.trim().is_empty() && value.name != row.value.trim())
            .collect();
        if name_suggestions.is_empty() && value_suggestions.is_empty() {
            return None;
        }
        let mut pick = None;
        ui.horizontal_wrapped(|ui| {
            ui.weak("Suggestions:");
            for name in name_suggestions {
                if ui.small_button(&name).clicked() {
                    pick = Some(Pick::Name(index, name));
                }
            }
            for value in value_suggestions {
                if ui.small_button(value_text(&value)).clicked() {
                    pick = Some(Pick::Value(index, value.name));
                }
            }
        });
        pick
    }

    /// Sets the company's attribute names for completion.
    pub fn set_attribute_names(&mut self, names: Vec<String>) {
        let mut names = names;
        names.sort_by_key(|name| name.to_lowercase());
        names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        self.attribute_names = Some(names);
    }

    /// Sets the values of one attribute (with counts) for completion.
    pub fn set_attribute_values(&mut self, name: &str, values: Vec<AttributeValue>) {
        let mut values = values;
        values.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        self.attribute_values.insert(name.to_lowercase(), values);
    }

    /// Forgets loaded names and values (the service or user changed), so they are asked for again.
    pub fn forget_completions(&mut self) {
        self.attribute_names = None;
        self.names_requested = false;
        self.attribute_values.clear();
        self.values_requested.clear();
    }

    /// Names that complete `typed` (those starting with it first, then those containing it).
    pub fn name_suggestions(&self, typed: &str) -> Vec<String> {
        let names = self.attribute_names.as_deref().unwrap_or_default();
        suggestions(names.iter().map(String::as_str), typed)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Values of `name` that complete `typed`, with their counts.
    pub fn value_suggestions(&self, name: &str, typed: &str) -> Vec<AttributeValue> {
        let Some(values) = self.attribute_values.get(&name.trim().to_lowercase()) else {
            return Vec::new();
        };
        let picked = suggestions(values.iter().map(|value| value.name.as_str()), typed);
        picked
            .into_iter()
            .filter_map(|text| values.iter().find(|value| value.name == text).cloned())
            .collect()
    }
}

/// A value as offered for completion: "steel (12)".
fn value_text(value: &AttributeValue) -> String {
    format!("{} ({})", value.name, value.count)
}

/// One filter row in the grid: name with its "Names…" menu, operator, value with its "Values…" menu,
/// and "Remove filter". `(names, values)` are the completions: the company's names and the known
/// values of this row's attribute.
fn filter_row_ui(
    ui: &mut egui::Ui,
    index: usize,
    row: &mut FilterRow,
    labels: &ColumnLabels,
    (names, values): (&[String], &[AttributeValue]),
    edits: &mut FilterEdits,
) {
    let name_response = ui
        .add(
            egui::TextEdit::singleline(&mut row.name)
                .hint_text("attribute name")
                .desired_width(170.0)
                .min_size(egui::vec2(170.0, 0.0)),
        )
        .labelled_by(labels.attribute);
    if name_response.has_focus() || name_response.changed() {
        edits.active = Some(index);
    }
    ui.horizontal(|ui| {
        let entries = names.iter().map(|name| (name.clone(), name.clone()));
        if let Some(name) =
            completion_menu_ui(ui, "Names…", "No attribute names known yet.", entries)
        {
            edits.pick = Some(Pick::Name(index, name));
        }
        ui.menu_button("Size…", |ui| {
            for extent in SizeExtent::ALL {
                let which = match extent {
                    SizeExtent::Length => "largest",
                    SizeExtent::Width => "middle",
                    SizeExtent::Thickness => "smallest",
                };
                let shown = format!("{} (a model's {which} extent)", extent.name());
                if ui.selectable_label(false, shown).clicked() {
                    edits.pick = Some(Pick::Size(index, extent));
                    ui.close();
                }
            }
        });
    });
    egui::ComboBox::from_id_salt(("filter operator", index))
        .selected_text(row.operator.label())
        .width(100.0)
        .show_ui(ui, |ui| {
            for operator in FilterOperator::ALL {
                ui.selectable_value(&mut row.operator, operator, operator.label());
            }
        })
        .response
        .labelled_by(labels.operator);
    let value_response = ui
        .add(
            egui::TextEdit::singleline(&mut row.value)
                .hint_text(if row.operator == FilterOperator::Range {
                    "40..60 mm"
                } else {
                    "value"
                })
                .desired_width(170.0)
                .min_size(egui::vec2(170.0, 0.0)),
        )
        .labelled_by(labels.value);
    if value_response.has_focus() || value_response.changed() {
        edits.active = Some(index);
    }
    let range = range_text(row);
    ui.horizontal(|ui| {
        if let Some(range) = range {
            ui.label(range);
        }
        let entries = values
            .iter()
            .map(|value| (value_text(value), value.name.clone()));
        if let Some(value) = completion_menu_ui(
            ui,
            "Values…",
            "No values known for this attribute.",
            entries,
        ) {
            edits.pick = Some(Pick::Value(index, value));
        }
        if ui.button("Remove filter").clicked() {
            edits.removed = Some(index);
        }
    });
    let pressed_enter = ui.input(|input| input.key_pressed(egui::Key::Enter));
    if pressed_enter && (name_response.lost_focus() || value_response.lost_focus()) {
        edits.enter = true;
    }
}

/// A menu button listing completions (`(shown, value)`), or `empty` when there are none. Returns the
/// value of the entry clicked.
fn completion_menu_ui(
    ui: &mut egui::Ui,
    button: &str,
    empty: &str,
    entries: impl ExactSizeIterator<Item = (String, String)>,
) -> Option<String> {
    let mut picked = None;
    ui.menu_button(button, |ui| {
        egui::ScrollArea::vertical()
            .max_height(240.0)
            .show(ui, |ui| {
                if entries.len() == 0 {
                    ui.weak(empty);
                }
                for (shown, value) in entries {
                    if ui.selectable_label(false, shown).clicked() {
                        picked = Some(value);
                        ui.close();
                    }
                }
            });
    });
    picked
}

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::search_bar::tests::harness;

    #[test]
    fn suggestions_put_prefix_matches_first() {
        let names = ["document_number", "material", "mass", "raw material"];
        assert_eq!(
            suggestions(names.iter().copied(), "ma"),
            vec!["material", "mass", "raw material"]
        );
        assert_eq!(
            suggestions(names.iter().copied(), "NUM"),
            vec!["document_number"]
        );
    }

    #[test]
    fn a_size_range_is_picked_from_the_size_menu_and_read_back_in_words() {
        let mut bar = SearchBar::new();
        bar.add_filter(FilterRow::default());
        let mut harness = harness(bar);
        harness.run();
        harness.get_by_label("Size…").click();
        harness.run();
        harness
            .get_by_label("length (a model's largest extent)")
            .click();
        harness.run();
        let row = &harness.state().view.filters()[0];
        assert_eq!(
            (row.name.as_str(), row.operator),
            ("length", FilterOperator::Range)
        );
        harness.get_by_label("Value").focus();
        harness.run();
        harness.get_by_label("Value").type_text("40..60 mm");
        harness.run();
        // The row says what it keeps, and searches by it.
        harness.get_by_label("length 40–60 mm");
        let plan = harness.state().view.plan().unwrap();
        assert_eq!(plan.filter().inner(), "FT=length%3D40..60mm");
        // Half a range is refused with a sentence, not sent as a regular term.
        harness.state_mut().view.filters[0].value = "40 to 60".into();
        let refused = harness.state().view.plan().unwrap_err();
        assert!(refused.contains("from..to"), "{refused}");
    }

    #[test]
    fn a_typed_range_becomes_a_range_term_with_a_label() {
        let typed = |operator, value: &str| FilterRow {
            name: "thickness".into(),
            operator,
            value: value.into(),
        };
        let regular = typed(FilterOperator::Regular, "..0,5 in");
        assert_eq!(
            regular.term().unwrap().map(|term| term.expression()),
            Some("thickness=..0.5in".to_owned())
        );
        assert_eq!(range_text(&regular).as_deref(), Some("thickness ≤ 0.5 in"));
        // Not of the range shape: a regular term, without a label.
        let other = typed(FilterOperator::Regular, "1..2x");
        assert_eq!(
            other.term().unwrap(),
            Some(FilterTerm::Regular {
                name: "thickness".into(),
                value: "1..2x".into()
            })
        );
        assert_eq!(range_text(&other), None);
        assert!(typed(FilterOperator::Range, "thin").term().is_err());
    }

    #[test]
    fn names_complete_and_values_are_asked_for_and_offered_with_counts() {
        let mut bar = SearchBar::new();
        bar.set_attribute_names(vec!["material".into(), "mass".into(), "region".into()]);
        bar.add_filter(FilterRow::default());
        let mut harness = harness(bar);
        harness.run();
        harness.get_by_label("Attribute").focus();
        harness.run();
        harness.get_by_label("Attribute").type_text("mat");
        harness.run();
        harness.get_by_label("material").click();
        harness.run();
        assert_eq!(harness.state().view.filters()[0].name, "material");
        assert!(
            harness
                .state()
                .commands
                .contains(&Command::LoadAttributeValues("material".into()))
        );
        harness.state_mut().view.set_attribute_values(
            "material",
            vec![
                AttributeValue {
                    name: "steel".into(),
                    count: 12,
                },
                AttributeValue {
                    name: "stainless steel".into(),
                    count: 3,
                },
            ],
        );
        harness.get_by_label("Value").focus();
        harness.run();
        harness.get_by_label("Value").type_text("st");
        harness.run();
        harness.get_by_label("steel (12)").click();
        harness.run();
        assert_eq!(harness.state().view.filters()[0].value, "steel");
    }
}
