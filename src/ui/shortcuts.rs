//! The shortcuts sheet (F1 or `?`, Escape closes it): every key the app answers, in one place, so
//! that they are not only in tooltips. The list is the one the keys are handled by: the app's
//! shortcuts ([`super::app`]), the lists' keys ([`super::keyboard`]), the editor's Ctrl+Z, the
//! drawing data's Up and Down and the 3D view's keys.

/// One line of the sheet: the keys and what they do.
pub const SHORTCUTS: [(&str, &str); 17] = [
    ("F1 or ?", "This sheet"),
    ("Ctrl+F", "The search field"),
    (
        "Ctrl+V",
        "Search by the picture or the file path on the clipboard",
    ),
    ("Ctrl+O", "Add files to upload"),
    ("Ctrl+H", "The search history"),
    ("Ctrl+L", "The Library"),
    ("Ctrl+Shift+D", "Duplicates"),
    (
        "Arrows",
        "Move through the results, the Library and the duplicates",
    ),
    ("Home / End", "The first / the last of the list"),
    (
        "Enter",
        "Open the file under the cursor (in the search field: search)",
    ),
    (
        "Escape",
        "Leave the list; on a page: back (a component lit in 3D: clear it first)",
    ),
    ("Backspace", "Back to where the page was opened from"),
    ("Ctrl+D", "A file's drawing data (PMI), from its detail"),
    ("Up / Down", "The items of a drawing, in its drawing data"),
    ("Ctrl+Z", "Undo the last attribute edit not saved yet"),
    (
        "1 to 7, F",
        "The 3D view's standard views, fit (pointer over the view)",
    ),
    ("Ctrl + scroll", "Zoom a picture, a drawing or the 3D view"),
];

/// Whether the sheet is open.
#[derive(Debug, Default)]
pub struct ShortcutsSheet {
    open: bool,
}

impl ShortcutsSheet {
    /// True while the sheet is shown.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Opens the sheet (F1, `?`, or the top bar's button).
    pub fn open(&mut self) {
        self.open = true;
    }

    /// Takes F1, and `?` typed outside a text field, to open the sheet; Escape closes it.
    pub fn keys(&mut self, ctx: &egui::Context) {
        let typing = ctx.egui_wants_keyboard_input();
        let (f1, question, escape) = ctx.input_mut(|input| {
            let question = !typing
                && input
                    .events
                    .iter()
                    .any(|event| matches!(event, egui::Event::Text(text) if text == "?"));
            (
                input.consume_key(egui::Modifiers::NONE, egui::Key::F1),
                question,
                self.open && input.consume_key(egui::Modifiers::NONE, egui::Key::Escape),
            )
        });
        if f1 || question {
            self.open = true;
        }
        if escape {
            self.open = false;
        }
    }

    /// Draws the sheet while it is open.
    pub fn ui(&mut self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        let modal = egui::Modal::new(egui::Id::unique("shortcuts sheet")).show(ctx, |ui| {
            ui.heading("Keyboard shortcuts");
            ui.add_space(6.0);
            egui::Grid::new("shortcuts grid")
                .num_columns(2)
                .spacing([16.0, 4.0])
                .striped(true)
                .show(ui, |ui| {
                    for (keys, what) in SHORTCUTS {
                        ui.strong(keys);
                        ui.label(what);
                        ui.end_row();
                    }
                });
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button("Close").clicked() {
                    self.open = false;
                }
                ui.weak("(Escape)");
            });
        });
        if modal.should_close() {
            self.open = false;
        }
    }
}
