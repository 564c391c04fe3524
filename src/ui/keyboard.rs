//! The keys that move through the app without a mouse: in a list of files (the results, the
//! Library, the duplicates) the arrows move a cursor (drawn as a frame, brought on screen), Home
//! and End go to the first and last, Enter opens the file under it and Escape leaves the list;
//! on a page opened from a list, Backspace or Escape goes back.
//!
//! A key is taken only while no text field has the keyboard (typing stays typing) and no dialog is
//! open over the place: the app says which with [`set_blocked`] at the start of each frame.

/// What a key did in a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKey {
    /// The cursor moved (to this index).
    Moved(usize),
    /// Enter on this index.
    Open(usize),
    /// Escape: the cursor left the list.
    Left,
}

/// The cursor of a list of `len` items laid out `columns` to a row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListCursor {
    /// The item under the cursor, if any.
    pub index: Option<usize>,
    /// True for the frame after the cursor moved: the list brings the item on screen.
    pub reveal: bool,
}

impl ListCursor {
    /// Takes this frame's list keys; returns what they did.
    pub fn keys(&mut self, ui: &egui::Ui, len: usize, columns: usize) -> Option<ListKey> {
        self.reveal = false;
        if len == 0 {
            self.index = None;
            return None;
        }
        if let Some(index) = self.index
            && index >= len
        {
            self.index = Some(len - 1);
        }
        if !keys_free(ui.ctx()) {
            return None;
        }
        let key = ui.input_mut(|input| {
            use egui::{Key, Modifiers};
            [
                Key::ArrowDown,
                Key::ArrowUp,
                Key::ArrowLeft,
                Key::ArrowRight,
                Key::Home,
                Key::End,
                Key::Enter,
                Key::Escape,
            ]
            .into_iter()
            .find(|key| input.consume_key(Modifiers::NONE, *key))
        })?;
        let answer = self.apply(key, len, columns.max(1));
        if let Some(ListKey::Moved(_)) = answer {
            // The list has the keyboard now, not a button clicked before.
            ui.memory_mut(|memory| {
                if let Some(id) = memory.focused() {
                    memory.surrender_focus(id);
                }
            });
        }
        answer
    }

    /// The cursor after `key` in a list of `len` items, `columns` to a row.
    pub fn apply(&mut self, key: egui::Key, len: usize, columns: usize) -> Option<ListKey> {
        use egui::Key;
        let last = len - 1;
        let moved = |index: usize| Some(index.min(last));
        let next = match (key, self.index) {
            (Key::Enter, Some(index)) => return Some(ListKey::Open(index)),
            (Key::Enter, None) => return None,
            (Key::Escape, Some(_)) => {
                self.index = None;
                return Some(ListKey::Left);
            }
            (Key::Escape, None) => return None,
            // The first arrow puts the cursor on the first item.
            (_, None) => Some(0),
            // Up and down move a row, and stay where there is no row that way.
            (Key::ArrowDown, Some(index)) if index + columns <= last => Some(index + columns),
            (Key::ArrowUp, Some(index)) if index >= columns => Some(index - columns),
            (Key::ArrowDown | Key::ArrowUp, Some(index)) => Some(index),
            (Key::ArrowRight, Some(index)) => moved(index + 1),
            (Key::ArrowLeft, Some(index)) => Some(index.saturating_sub(1)),
            (Key::Home, Some(_)) => Some(0),
            (Key::End, Some(_)) => Some(last),
            _ => None,
        }?;
        self.index = Some(next);
        self.reveal = true;
        Some(ListKey::Moved(next))
    }
}

/// True when Backspace or Escape asks to go back from a page (and no text field has the
/// keyboard); the key is taken.
pub fn back_pressed(ui: &egui::Ui) -> bool {
    keys_free(ui.ctx())
        && ui.input_mut(|input| {
            input.consume_key(egui::Modifiers::NONE, egui::Key::Backspace)
                || input.consume_key(egui::Modifiers::NONE, egui::Key::Escape)
        })
}

/// Id of the flag that blocks the keys this frame.
fn blocked_id() -> egui::Id {
    egui::Id::unique("partlens keys blocked")
}

/// Says whether a dialog over the place takes the keys this frame.
pub fn set_blocked(ctx: &egui::Context, blocked: bool) {
    ctx.data_mut(|data| data.insert_temp(blocked_id(), blocked));
}

/// True when the place may take keys: no text field has the keyboard, no dialog is over it.
pub fn keys_free(ctx: &egui::Context) -> bool {
    let blocked = ctx.data(|data| data.get_temp::<bool>(blocked_id()).unwrap_or(false));
    !blocked && !ctx.egui_wants_keyboard_input()
}

/// The frame drawn around the item under the cursor.
pub fn paint_cursor(ui: &egui::Ui, rect: egui::Rect) {
    let stroke = egui::Stroke::new(2.5, ui.visuals().selection.stroke.color);
    ui.painter()
        .rect_stroke(rect.expand(1.0), 7.0, stroke, egui::StrokeKind::Outside);
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::Key;

    #[test]
    fn arrows_move_through_rows_and_columns_and_stop_at_the_ends() {
        let mut cursor = ListCursor::default();
        // Ten items, four to a row.
        assert_eq!(cursor.apply(Key::Enter, 10, 4), None);
        assert_eq!(
            cursor.apply(Key::ArrowRight, 10, 4),
            Some(ListKey::Moved(0))
        );
        assert_eq!(cursor.apply(Key::ArrowDown, 10, 4), Some(ListKey::Moved(4)));
        assert_eq!(cursor.apply(Key::ArrowDown, 10, 4), Some(ListKey::Moved(8)));
        // No row below: it stays.
        assert_eq!(cursor.apply(Key::ArrowDown, 10, 4), Some(ListKey::Moved(8)));
        assert_eq!(
            cursor.apply(Key::ArrowRight, 10, 4),
            Some(ListKey::Moved(9))
        );
        assert_eq!(
            cursor.apply(Key::ArrowRight, 10, 4),
            Some(ListKey::Moved(9))
        );
        assert_eq!(cursor.apply(Key::ArrowUp, 10, 4), Some(ListKey::Moved(5)));
        assert_eq!(cursor.apply(Key::Home, 10, 4), Some(ListKey::Moved(0)));
        assert_eq!(cursor.apply(Key::ArrowUp, 10, 4), Some(ListKey::Moved(0)));
        assert_eq!(cursor.apply(Key::ArrowLeft, 10, 4), Some(ListKey::Moved(0)));
        assert_eq!(cursor.apply(Key::End, 10, 4), Some(ListKey::Moved(9)));
        assert_eq!(cursor.apply(Key::Enter, 10, 4), Some(ListKey::Open(9)));
        assert_eq!(cursor.apply(Key::Escape, 10, 4), Some(ListKey::Left));
        assert_eq!(cursor.index, None);
    }
}
