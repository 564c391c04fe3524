//! The attribute editor of one file: rows of name, unit and values (several values shown as chips),
//! Save (the full list, `deleteExisting=true`), "Add without replacing" (`deleteExisting=false`) and
//! "Clear all" (`DELETE /api/FileAttributes`, after a confirmation).
//!
//! Unsaved edits are never lost. What is being edited is an [`AttributeDraft`] (plain serde data); the
//! editor keeps every draft with changes in its [`AttributeDrafts`], which the app persists with its
//! storage. Leaving the view, a failed save, a 401 or closing the app leaves the draft there, and
//! opening the file again offers it back. A draft leaves the store only when the service has what it
//! says (a save succeeded) or the user discards it.
//!
//! Values are checked with [`Attribute`]: a `|` typed inside a value is refused on the spot, because
//! the interface uses it to separate values.

use super::app_command::CommandQueue;
use super::drafts::{DraftsByFile, FileDraft};
use partlens_api::attribute::VALUE_DELIMITER;
use partlens_api::{ApiError, Attribute, FileUid};
use partlens_tasks::Command;
use partlens_tasks::wording::{Attempt, explain};

/// The most edits Ctrl+Z can take back.
const MAX_UNDO_STEPS: usize = 200;

/// What the user is told when a typed value contains `|`.
pub const PIPE_REFUSED: &str = "A value cannot contain \"|\": the service uses it to separate \
     values. Add each value on its own (type it and press Enter).";

/// One attribute row of a draft.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AttributeRowDraft {
    /// Attribute name.
    pub name: String,
    /// Unit, may be empty.
    pub unit: String,
    /// The values, one chip each.
    pub values: Vec<String>,
    /// A value being typed and not yet added.
    pub new_value: String,
}

impl AttributeRowDraft {
    /// A row holding an attribute.
    pub fn from_attribute(attribute: &Attribute) -> Self {
        Self {
            name: attribute.name.clone(),
            unit: attribute.unit.clone().unwrap_or_default(),
            values: attribute.values.clone(),
            new_value: String::new(),
        }
    }

    /// True when nothing has been entered in the row.
    pub fn is_blank(&self) -> bool {
        self.name.trim().is_empty()
            && self.unit.trim().is_empty()
            && self.values.is_empty()
            && self.new_value.trim().is_empty()
    }

    /// The values, with a typed value that was not added yet counted as added.
    fn all_values(&self) -> Vec<String> {
        let mut values = self.values.clone();
        let pending = self.new_value.trim();
        if !pending.is_empty() && !values.iter().any(|value| value == pending) {
            values.push(pending.to_owned());
        }
        values
    }

    /// The row as an attribute, checked by [`Attribute::new`].
    pub fn to_attribute(&self) -> Result<Attribute, ApiError> {
        let unit = Some(self.unit.trim().to_owned()).filter(|unit| !unit.is_empty());
        Attribute::new(self.name.trim(), unit, self.all_values())
    }

    /// Adds the typed value as a chip. Returns the sentence saying why not, if it is refused.
    pub fn add_typed_value(&mut self) -> Result<(), String> {
        let value = self.new_value.trim().to_owned();
        if value.is_empty() {
            return Ok(());
        }
        if value.contains(VALUE_DELIMITER) {
            return Err(PIPE_REFUSED.to_owned());
        }
        if !self.values.contains(&value) {
            self.values.push(value);
        }
        self.new_value.clear();
        Ok(())
    }
}

/// A row that does not make a valid attribute, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    /// Index of the row.
    pub row: usize,
    /// What is wrong, in words.
    pub message: String,
}

/// The attributes of one file as being edited: plain data, persisted by the app while unsaved.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AttributeDraft {
    /// The file.
    pub file_uid: FileUid,
    /// Its name, to say which file a draft belongs to.
    pub file_title: String,
    /// The rows.
    pub rows: Vec<AttributeRowDraft>,
    /// The attributes as the service had them when editing began (wire form), to tell edits apart.
    pub base: Vec<String>,
    /// When the draft was last edited (RFC 3339), shown when it is offered again.
    #[serde(default)]
    pub edited_at: Option<String>,
}

impl AttributeDraft {
    /// A draft without edits of these attributes.
    pub fn from_attributes(
        file_uid: FileUid,
        file_title: impl Into<String>,
        attributes: &[Attribute],
    ) -> Self {
        Self {
            file_uid,
            file_title: file_title.into(),
            rows: attributes
                .iter()
                .map(AttributeRowDraft::from_attribute)
                .collect(),
            base: attributes.iter().map(Attribute::to_string).collect(),
            edited_at: None,
        }
    }

    /// The rows as attributes (blank rows skipped), or the first row that is not valid.
    pub fn to_attributes(&self) -> Result<Vec<Attribute>, RowError> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, row)| !row.is_blank())
            .map(|(index, row)| {
                let attribute = row.to_attribute().map_err(|error| RowError {
                    row: index,
                    message: format!("Row {}: {error}", index + 1),
                })?;
                if attribute.values.is_empty() {
                    return Err(RowError {
                        row: index,
                        message: format!(
                            "Row {}: \"{}\" has no value: add one, or remove the attribute.",
                            index + 1,
                            attribute.name
                        ),
                    });
                }
                Ok(attribute)
            })
            .collect()
    }

    /// The rows in wire form, for comparison (rows that do not parse compare by their raw parts).
    fn wire_rows(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|row| !row.is_blank())
            .map(|row| match row.to_attribute() {
                Ok(attribute) => attribute.to_string(),
                Err(_) => format!("{}({})={:?}", row.name, row.unit, row.all_values()),
            })
            .collect()
    }

    /// True when the rows differ from what the service had.
    pub fn has_changes(&self) -> bool {
        self.wire_rows() != self.base
    }

    /// The rows that are new or changed compared with what the service had: what "Add without
    /// replacing" sends.
    pub fn added_attributes(&self) -> Result<Vec<Attribute>, RowError> {
        Ok(self
            .to_attributes()?
            .into_iter()
            .filter(|attribute| !self.base.contains(&attribute.to_string()))
            .collect())
    }
}

impl FileDraft for AttributeDraft {
    fn file_uid(&self) -> &FileUid {
        &self.file_uid
    }
}

/// Unsaved drafts of every file, by UID: what the app persists.
pub type AttributeDrafts = DraftsByFile<AttributeDraft>;

/// Which request is on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveKind {
    /// The full list, replacing (`deleteExisting=true`).
    Replace,
    /// New and changed rows, added (`deleteExisting=false`).
    Add,
    /// Every attribute removed (`DELETE /api/FileAttributes`).
    Clear,
}

/// A line shown under the editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// True for a failure.
    pub is_error: bool,
    /// The sentence.
    pub text: String,
}

/// The attribute editor and the drafts it keeps.
#[derive(Debug, Default)]
pub struct AttributeEditor {
    drafts: AttributeDrafts,
    draft: Option<AttributeDraft>,
    offered: Option<AttributeDraft>,
    saving: Option<SaveKind>,
    confirm_clear: bool,
    notice: Option<Notice>,
    refusal: Option<(usize, String)>,
    /// The rows before each edit not saved yet, oldest first (Ctrl+Z takes the last back).
    undo: Vec<Vec<AttributeRowDraft>>,
    /// The field the last edit was typed in: typing on in it is the same edit.
    last_edit_field: Option<egui::Id>,
}

impl AttributeEditor {
    /// How many edits Ctrl+Z can take back.
    pub fn undo_steps(&self) -> usize {
        self.undo.len()
    }

    /// Takes the last edit back (Ctrl+Z): the rows are as before it. False when there is none.
    pub fn undo_last_edit(&mut self) -> bool {
        let (Some(draft), Some(rows)) = (&mut self.draft, self.undo.pop()) else {
            return false;
        };
        draft.rows = rows;
        self.last_edit_field = None;
        self.refusal = None;
        self.notice = Some(Notice {
            is_error: false,
            text: "The last edit was undone.".to_owned(),
        });
        true
    }

    /// Keeps `before` as an undo step when this frame changed the rows: one step an edit, typing on
    /// in the same field being the same edit.
    fn remember_edit(&mut self, before: Vec<AttributeRowDraft>, field: Option<egui::Id>) {
        let Some(draft) = &self.draft else {
            return;
        };
        if draft.rows == before {
            return;
        }
        if field.is_none() || field != self.last_edit_field {
            self.undo.push(before);
            // A day's editing, not a memory leak.
            if self.undo.len() > MAX_UNDO_STEPS {
                self.undo.remove(0);
            }
        }
        self.last_edit_field = field;
    }

    /// An editor with the drafts the app restored from its storage.
    pub fn new(drafts: AttributeDrafts) -> Self {
        Self {
            drafts,
            ..Self::default()
        }
    }

    /// The drafts to persist (every file with unsaved edits).
    pub fn drafts(&self) -> &AttributeDrafts {
        &self.drafts
    }

    /// The draft being edited.
    pub fn draft(&self) -> Option<&AttributeDraft> {
        self.draft.as_ref()
    }

    /// The draft being edited, to change it (the change is kept on the next frame).
    pub fn draft_mut(&mut self) -> Option<&mut AttributeDraft> {
        self.draft.as_mut()
    }

    /// A kept draft offered for restoring, if any.
    pub fn offered_draft(&self) -> Option<&AttributeDraft> {
        self.offered.as_ref()
    }

    /// The line under the editor.
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// The request on its way, if any.
    pub fn saving(&self) -> Option<SaveKind> {
        self.saving
    }

    /// Starts editing a file with the attributes the service has. A kept draft of the same file with
    /// changes is offered back rather than overwritten.
    pub fn open(&mut self, uid: FileUid, title: impl Into<String>, current: &[Attribute]) {
        self.keep_current_draft();
        let title = title.into();
        self.offered = self
            .drafts
            .get(&uid)
            .filter(|draft| draft.has_changes())
            .cloned();
        self.draft = Some(AttributeDraft::from_attributes(uid, title, current));
        self.undo.clear();
        self.last_edit_field = None;
        self.saving = None;
        self.confirm_clear = false;
        self.notice = None;
        self.refusal = None;
    }

    /// Restores the offered draft.
    pub fn restore_offered(&mut self) {
        if let Some(offered) = self.offered.take() {
            self.draft = Some(offered);
            self.keep_current_draft();
        }
    }

    /// Discards the offered draft (and forgets it).
    pub fn discard_offered(&mut self) {
        if let Some(offered) = self.offered.take() {
            self.drafts.remove(&offered.file_uid);
        }
    }

    /// Keeps the current draft in the store if it has changes, and drops the stored one if it has none
    /// (unless a stored draft is still being offered).
    fn keep_current_draft(&mut self) {
        let Some(draft) = &self.draft else {
            return;
        };
        if draft.has_changes() {
            self.drafts.put(draft.clone());
        } else if self.offered.is_none() {
            self.drafts.remove(&draft.file_uid);
        }
    }

    /// The save or clear succeeded; `current` is what the service now has (the app reloads it). The
    /// editor starts over from it and the kept draft is dropped.
    pub fn save_succeeded(&mut self, current: &[Attribute]) {
        let kind = self.saving.take();
        if let Some(draft) = &self.draft {
            let fresh =
                AttributeDraft::from_attributes(draft.file_uid.clone(), &draft.file_title, current);
            self.drafts.remove(&fresh.file_uid);
            self.draft = Some(fresh);
        }
        // Saved: nothing is left to take back.
        self.undo.clear();
        self.last_edit_field = None;
        self.notice = Some(Notice {
            is_error: false,
            text: match kind {
                Some(SaveKind::Clear) => "All attributes were removed.".to_owned(),
                Some(SaveKind::Add) => "The new attributes were added.".to_owned(),
                _ => format!("Saved {} attribute(s).", current.len()),
            },
        });
    }

    /// The save or clear failed: the edits stay (and stay kept as a draft), and the sentence says why.
    pub fn save_failed(&mut self, error: &ApiError) {
        self.saving = None;
        self.keep_current_draft();
        self.notice = Some(Notice {
            is_error: true,
            text: explain(error, Attempt::SaveAttributes),
        });
    }

    /// Draws the editor; saves, clears and reloads go to `commands`.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        if self.draft.is_none() {
            ui.label("Open a file and choose \"Edit attributes\" to change its attributes.");
            return;
        }
        self.offered_ui(ui);
        let undo = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::Z);
        if ui.input_mut(|input| input.consume_shortcut(&undo)) {
            self.undo_last_edit();
        }
        let before = self.draft.as_ref().map(|draft| draft.rows.clone());
        let field = ui.memory(|memory| memory.focused());
        self.rows_ui(ui);
        if let Some(before) = before {
            self.remember_edit(before, field);
        }
        ui.separator();
        self.actions_ui(ui, commands);
        if let Some(notice) = &self.notice {
            let color = if notice.is_error {
                ui.visuals().error_fg_color
            } else {
                ui.visuals().text_color()
            };
            ui.colored_label(color, &notice.text);
        }
        self.keep_current_draft();
    }

    fn offered_ui(&mut self, ui: &mut egui::Ui) {
        let Some(offered) = &self.offered else {
            return;
        };
        let when = offered
            .edited_at
            .as_deref()
            .and_then(|text| chrono::DateTime::parse_from_rfc3339(text).ok())
            .map(|time| format!(" from {}", time.format("%Y-%m-%d %H:%M")))
            .unwrap_or_default();
        let mut restore = false;
        let mut discard = false;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.label(format!(
                "You have unsaved edits of these attributes{when}. Restore them, or discard them \
                 and keep what the service has?"
            ));
            ui.horizontal(|ui| {
                restore = ui.button("Restore my edits").clicked();
                discard = ui.button("Discard them").clicked();
            });
        });
        if restore {
            self.restore_offered();
        } else if discard {
            self.discard_offered();
        }
    }

    /// The rows: a grid under column headers (name, unit, values as chips plus a field for the next
    /// value, remove), then the refusal of a typed `|`, if any.
    fn rows_ui(&mut self, ui: &mut egui::Ui) {
        let Some(draft) = &mut self.draft else {
            return;
        };
        let mut changed = false;
        ui.heading(format!("Attributes of {}", draft.file_title));
        let mut removed = None;
        let refusal = &mut self.refusal;
        egui::Grid::new("attribute rows")
            .num_columns(4)
            .spacing([8.0, 6.0])
            .striped(true)
            .show(ui, |ui| {
                let name_label = ui.label("Name").id;
                let unit_label = ui.label("Unit").id;
                let values_label = ui.label("Values").id;
                ui.label("");
                ui.end_row();
                for (index, row) in draft.rows.iter_mut().enumerate() {
                    changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut row.name)
                                .hint_text("name")
                                .desired_width(170.0)
                                .min_size(egui::vec2(170.0, 0.0)),
                        )
                        .labelled_by(name_label)
                        .changed();
                    changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut row.unit)
                                .hint_text("unit")
                                .desired_width(60.0)
                                .min_size(egui::vec2(60.0, 0.0)),
                        )
                        .labelled_by(unit_label)
                        .changed();
                    ui.horizontal_wrapped(|ui| {
                        ui.set_max_width(560.0);
                        changed |= values_ui(ui, index, row, values_label, refusal);
                    });
                    if ui.button("Remove attribute").clicked() {
                        removed = Some(index);
                    }
                    ui.end_row();
                }
            });
        if let Some((row, message)) = &self.refusal {
            ui.colored_label(ui.visuals().warn_fg_color, format!("Row {}:", row + 1));
            ui.colored_label(ui.visuals().warn_fg_color, message);
        }
        if let Some(index) = removed {
            draft.rows.remove(index);
            changed = true;
            self.refusal = None;
        }
        if ui.button("Add attribute").clicked() {
            draft.rows.push(AttributeRowDraft::default());
        }
        if changed {
            draft.edited_at = Some(chrono::Utc::now().to_rfc3339());
        }
    }

    fn actions_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        let Some(draft) = self.draft.clone() else {
            return;
        };
        let uid = draft.file_uid.clone();
        let busy = self.saving.is_some();
        ui.horizontal(|ui| {
            let save = ui
                .add_enabled(!busy, egui::Button::new("Save"))
                .on_hover_text("Replace all attributes of the file with this list");
            let add = ui
                .add_enabled(!busy, egui::Button::new("Add without replacing"))
                .on_hover_text("Add the new and changed rows; keep the file's other attributes");
            let clear = ui
                .add_enabled(!busy, egui::Button::new("Clear all…"))
                .on_hover_text("Remove every attribute of the file");
            let revert = ui
                .add_enabled(
                    !busy && draft.has_changes(),
                    egui::Button::new("Discard edits"),
                )
                .on_hover_text("Go back to what the service has");
            if busy {
                ui.spinner();
            }
            if save.clicked() {
                match draft.to_attributes() {
                    Ok(attributes) => {
                        self.saving = Some(SaveKind::Replace);
                        self.notice = None;
                        commands.backend(Command::SaveAttributes {
                            uid: uid.clone(),
                            attributes,
                            delete_existing: true,
                        });
                    }
                    Err(error) => self.row_error(error),
                }
            }
            if add.clicked() {
                match draft.added_attributes() {
                    Ok(attributes) if attributes.is_empty() => {
                        self.notice = Some(Notice {
                            is_error: false,
                            text: "Nothing new to add: add a row or a value first.".to_owned(),
                        });
                    }
                    Ok(attributes) => {
                        self.saving = Some(SaveKind::Add);
                        self.notice = None;
                        commands.backend(Command::SaveAttributes {
                            uid: uid.clone(),
                            attributes,
                            delete_existing: false,
                        });
                    }
                    Err(error) => self.row_error(error),
                }
            }
            if clear.clicked() {
                self.confirm_clear = true;
            }
            if revert.clicked() {
                self.offered = None;
                commands.backend(Command::LoadRecord(uid.clone()));
                let base: Vec<Attribute> = draft
                    .base
                    .iter()
                    .filter_map(|text| Attribute::parse(text).ok())
                    .collect();
                self.draft = Some(AttributeDraft::from_attributes(
                    uid.clone(),
                    &draft.file_title,
                    &base,
                ));
                self.drafts.remove(&uid);
            }
        });
        if self.confirm_clear {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.label(format!(
                    "Remove every attribute of {}? This cannot be undone.",
                    draft.file_title
                ));
                ui.horizontal(|ui| {
                    if ui.button("Clear all attributes").clicked() {
                        self.confirm_clear = false;
                        self.saving = Some(SaveKind::Clear);
                        commands.backend(Command::ClearAttributes(uid.clone()));
                    }
                    if ui.button("Keep them").clicked() {
                        self.confirm_clear = false;
                    }
                });
            });
        }
    }

    fn row_error(&mut self, error: RowError) {
        self.notice = Some(Notice {
            is_error: true,
            text: error.message,
        });
    }
}

/// The values of one row: a chip per value (click to remove), a field for the next value (Enter or
/// "Add value" adds it; a typed `|` is taken out and refused with [`PIPE_REFUSED`]). Returns true
/// when the row changed.
fn values_ui(
    ui: &mut egui::Ui,
    index: usize,
    row: &mut AttributeRowDraft,
    values_label: egui::Id,
    refusal: &mut Option<(usize, String)>,
) -> bool {
    let mut changed = false;
    let mut removed_value = None;
    for (value_index, value) in row.values.iter().enumerate() {
        if ui
            .add(
                egui::Button::new(format!("{value} ×"))
                    .small()
                    .corner_radius(9.0)
                    .fill(ui.visuals().selection.bg_fill.gamma_multiply(0.35)),
            )
            .on_hover_text("Remove this value")
            .clicked()
        {
            removed_value = Some(value_index);
        }
    }
    if let Some(value_index) = removed_value {
        row.values.remove(value_index);
        changed = true;
    }
    let response = ui
        .add(
            egui::TextEdit::singleline(&mut row.new_value)
                .id_salt(("new value", index))
                .hint_text("add a value, Enter")
                .desired_width(130.0)
                .min_size(egui::vec2(130.0, 0.0)),
        )
        .labelled_by(values_label);
    if response.changed() {
        changed = true;
        // The refusal stays up while the value is typed on, so it is read; adding the value or
        // emptying the field takes it down.
        if let Some(pipe_at) = row.new_value.chars().position(|c| c == VALUE_DELIMITER) {
            row.new_value.retain(|c| c != VALUE_DELIMITER);
            // The cursor goes back to where the `|` was, so what is typed next lands there and the
            // rest of the value stays as it was.
            if let Some(mut state) = egui::text_edit::TextEditState::load(ui.ctx(), response.id) {
                let cursor = egui::text::CCursor::new(pipe_at);
                state
                    .cursor
                    .set_char_range(Some(egui::text::CCursorRange::one(cursor)));
                state.store(ui.ctx(), response.id);
            }
            *refusal = Some((index, PIPE_REFUSED.to_owned()));
        } else if row.new_value.is_empty() && refusal.as_ref().is_some_and(|(row, _)| *row == index)
        {
            *refusal = None;
        }
    }
    let enter = response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
    if enter || ui.small_button("Add value").clicked() {
        match row.add_typed_value() {
            Ok(()) => {
                if refusal.as_ref().is_some_and(|(row, _)| *row == index) {
                    *refusal = None;
                }
            }
            Err(message) => *refusal = Some((index, message)),
        }
    }
    if enter {
        changed = true;
        response.request_focus();
    }
    changed
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::view_harness;

    fn uid() -> FileUid {
        FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
    }

    fn attributes(texts: &[&str]) -> Vec<Attribute> {
        texts
            .iter()
            .map(|text| Attribute::parse(text).unwrap())
            .collect()
    }

    fn editor_with(current: &[&str]) -> AttributeEditor {
        let mut editor = AttributeEditor::new(AttributeDrafts::default());
        editor.open(uid(), "bracket-01", &attributes(current));
        editor
    }

    #[test]
    fn a_draft_round_trips_its_attributes() {
        let draft = AttributeDraft::from_attributes(
            uid(),
            "x",
            &attributes(&["material=steel", "region=EU|US", "weight(kg)=1.2"]),
        );
        assert!(!draft.has_changes());
        let back: Vec<String> = draft
            .to_attributes()
            .unwrap()
            .iter()
            .map(Attribute::to_string)
            .collect();
        assert_eq!(back, ["material=steel", "region=EU|US", "weight(kg)=1.2"]);
    }

    #[test]
    fn a_typed_value_not_yet_added_counts() {
        let mut draft = AttributeDraft::from_attributes(uid(), "x", &attributes(&["region=EU"]));
        draft.rows[0].new_value = "US".into();
        assert!(draft.has_changes());
        assert_eq!(
            draft.to_attributes().unwrap()[0].to_string(),
            "region=EU|US"
        );
    }

    #[test]
    fn invalid_rows_are_named() {
        let mut draft = AttributeDraft::from_attributes(uid(), "x", &[]);
        draft.rows.push(AttributeRowDraft::default());
        draft.rows.push(AttributeRowDraft {
            name: "a=b".into(),
            values: vec!["1".into()],
            ..AttributeRowDraft::default()
        });
        let error = draft.to_attributes().unwrap_err();
        assert_eq!(error.row, 1);
        assert!(error.message.starts_with("Row 2:"), "{}", error.message);
        let mut empty =
            AttributeDraft::from_attributes(uid(), "x", &attributes(&["material=steel"]));
        empty.rows[0].values.clear();
        let error = empty.to_attributes().unwrap_err();
        assert!(error.message.contains("has no value"), "{}", error.message);
        let mut row = AttributeRowDraft {
            new_value: "EU|US".into(),
            ..AttributeRowDraft::default()
        };
        assert_eq!(row.add_typed_value().unwrap_err(), PIPE_REFUSED);
    }

    #[test]
    fn add_without_replacing_sends_only_new_and_changed_rows() {
        let mut draft = AttributeDraft::from_attributes(
            uid(),
            "x",
            &attributes(&["material=steel", "region=EU"]),
        );
        draft.rows[1].values.push("US".into());
        draft.rows.push(AttributeRowDraft {
            name: "finish".into(),
            values: vec!["anodised".into()],
            ..AttributeRowDraft::default()
        });
        let added: Vec<String> = draft
            .added_attributes()
            .unwrap()
            .iter()
            .map(Attribute::to_string)
            .collect();
        assert_eq!(added, ["region=EU|US", "finish=anodised"]);
    }

    #[test]
    fn a_failed_save_keeps_the_draft_and_reopening_offers_it() {
        let mut editor = editor_with(&["material=steel"]);
        editor.draft_mut().unwrap().rows[0].values = vec!["aluminium".into()];
        editor.keep_current_draft();
        editor.saving = Some(SaveKind::Replace);
        editor.save_failed(&ApiError::Unauthorized);
        assert!(editor.notice().unwrap().text.contains("Log in again"));
        assert_eq!(editor.drafts().len(), 1);
        assert_eq!(
            editor.draft().unwrap().rows[0].values,
            vec!["aluminium".to_owned()]
        );

        // The app closes and starts again: the drafts went through its storage.
        let stored = serde_json::to_string(editor.drafts()).unwrap();
        let restored: AttributeDrafts = serde_json::from_str(&stored).unwrap();
        let mut editor = AttributeEditor::new(restored);
        editor.open(uid(), "bracket-01", &attributes(&["material=steel"]));
        let offered = editor.offered_draft().unwrap();
        assert_eq!(offered.rows[0].values, vec!["aluminium".to_owned()]);
        // Until the user decides, the kept draft is not dropped.
        editor.keep_current_draft();
        assert_eq!(editor.drafts().len(), 1);
        editor.restore_offered();
        assert_eq!(
            editor.draft().unwrap().to_attributes().unwrap()[0].to_string(),
            "material=aluminium"
        );
    }

    #[test]
    fn a_successful_save_drops_the_draft() {
        let mut editor = editor_with(&["material=steel"]);
        editor.draft_mut().unwrap().rows[0].values = vec!["aluminium".into()];
        editor.keep_current_draft();
        assert_eq!(editor.drafts().len(), 1);
        editor.saving = Some(SaveKind::Replace);
        editor.save_succeeded(&attributes(&["material=aluminium"]));
        assert!(editor.drafts().is_empty());
        assert!(!editor.draft().unwrap().has_changes());
        assert_eq!(editor.notice().unwrap().text, "Saved 1 attribute(s).");
    }

    #[test]
    fn leaving_for_another_file_keeps_the_draft() {
        let mut editor = editor_with(&["material=steel"]);
        editor.draft_mut().unwrap().rows[0].name = "alloy".into();
        let other = FileUid::from_reply("9a1b2c3d-4f89-41d3-9a0c-0305e82c3302");
        editor.open(other, "other", &[]);
        assert!(editor.drafts().get(&uid()).is_some());
        editor.open(uid(), "bracket-01", &attributes(&["material=steel"]));
        assert_eq!(editor.offered_draft().unwrap().rows[0].name, "alloy");
        editor.discard_offered();
        assert!(editor.drafts().is_empty());
    }

    type Fixture = view_harness::Fixture<AttributeEditor, ()>;

    fn harness(editor: AttributeEditor) -> Harness<'static, Fixture> {
        view_harness::harness(
            editor,
            [1000.0, 600.0],
            1 << 20,
            |editor, ui, _, commands| {
                editor.ui(ui, commands);
                Vec::new()
            },
        )
    }

    #[test]
    fn a_typed_pipe_is_refused_with_a_clear_message() {
        let mut harness = harness(editor_with(&["region=EU"]));
        harness.run();
        harness.get_by_label("Values").focus();
        harness.run();
        harness.get_by_label("Values").type_text("US|");
        harness.run();
        harness.get_by_label("Values").type_text("APAC");
        harness.run();
        // Still shown after typing on, so it is read.
        harness.get_by_label(PIPE_REFUSED);
        let row = &harness.state().view.draft().unwrap().rows[0];
        assert_eq!(row.new_value, "USAPAC");
        assert!(
            harness
                .state()
                .view
                .draft()
                .unwrap()
                .to_attributes()
                .is_ok()
        );
    }

    #[test]
    fn a_pipe_typed_inside_a_value_leaves_the_rest_of_it_as_it_was() {
        let mut harness = harness(editor_with(&["region=EU"]));
        harness.run();
        harness.get_by_label("Values").focus();
        harness.run();
        harness.get_by_label("Values").type_text("stel");
        harness.run();
        // The cursor between "ste" and "l", then a `|` and the missing "e".
        harness.key_press(egui::Key::ArrowLeft);
        harness.run();
        harness.get_by_label("Values").type_text("|");
        harness.run();
        harness.get_by_label("Values").type_text("e");
        harness.run();
        harness.get_by_label(PIPE_REFUSED);
        let row = &harness.state().view.draft().unwrap().rows[0];
        assert_eq!(row.new_value, "steel");
    }

    #[test]
    fn values_become_chips_and_save_sends_the_full_list() {
        let mut harness = harness(editor_with(&["material=steel", "region=EU"]));
        harness.run();
        let values = harness.get_all_by_label("Values").nth(1).unwrap();
        values.focus();
        harness.run();
        harness
            .get_all_by_label("Values")
            .nth(1)
            .unwrap()
            .type_text("US");
        harness.run();
        harness.key_press(egui::Key::Enter);
        harness.run();
        harness.get_by_label("US ×");
        harness.get_by_label("EU ×").click();
        harness.run();
        harness.get_by_label("Save").click();
        harness.run_steps(2);
        assert_eq!(
            harness.state().commands,
            [Command::SaveAttributes {
                uid: uid(),
                attributes: attributes(&["material=steel", "region=US"]),
                delete_existing: true,
            }]
        );
        assert_eq!(harness.state().view.drafts().len(), 1);
    }

    #[test]
    fn clear_all_asks_first() {
        let mut harness = harness(editor_with(&["material=steel"]));
        harness.run();
        harness.get_by_label("Clear all…").click();
        harness.run();
        assert!(harness.state().commands.is_empty());
        harness.get_by_label("Keep them").click();
        harness.run();
        harness.get_by_label("Clear all…").click();
        harness.run();
        harness.get_by_label("Clear all attributes").click();
        harness.run_steps(2);
        assert_eq!(harness.state().commands, [Command::ClearAttributes(uid())]);
    }

    #[test]
    fn add_rows_and_add_without_replacing() {
        let mut harness = harness(editor_with(&["material=steel"]));
        harness.run();
        harness.get_by_label("Add attribute").click();
        harness.run();
        let name = harness.get_all_by_label("Name").nth(1).unwrap();
        name.focus();
        harness.run();
        harness
            .get_all_by_label("Name")
            .nth(1)
            .unwrap()
            .type_text("finish");
        harness.run();
        let value = harness.get_all_by_label("Values").nth(1).unwrap();
        value.focus();
        harness.run();
        harness
            .get_all_by_label("Values")
            .nth(1)
            .unwrap()
            .type_text("anodised");
        harness.run();
        harness.get_by_label("Add without replacing").click();
        harness.run_steps(2);
        assert_eq!(
            harness.state().commands,
            [Command::SaveAttributes {
                uid: uid(),
                attributes: attributes(&["finish=anodised"]),
                delete_existing: false,
            }]
        );
    }
}
