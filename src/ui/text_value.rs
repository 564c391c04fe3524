//! Values that read: an attribute's or an extracted value is drawn as selectable text (so it can
//! be copied) that wraps where it may break, and is never spread to the width of its line; a
//! record's fields as rows of name and value.
//!
//! egui justifies the text of a label in a justified layout (the detail's columns, for example):
//! a row that wraps inside a long value without spaces (`part_number=PLATE|L-BRACKET|BOLT|…`) is
//! then stretched letter by letter across the line. The values here are laid out in the same
//! direction without justification; epaint breaks such a row after a `-`, else after a `|`, `,`
//! or `_` (ASCII punctuation), before it breaks between two letters.

use egui::{Response, Ui, WidgetText};

/// `text` as a selectable, wrapping, unjustified label. Not for a grid's cells (their labels are
/// never justified, and a child layout there takes the cell's whole height): add a label there.
pub fn value_label(ui: &mut Ui, text: impl Into<WidgetText>) -> Response {
    let label = egui::Label::new(text).wrap().selectable(true);
    // Only a justified layout (a column, for example) needs a child that is not.
    if !ui.layout().horizontal_justify() {
        return ui.add(label);
    }
    let layout = ui
        .layout()
        .with_cross_justify(false)
        .with_main_justify(false);
    ui.with_layout(layout, |ui| ui.add(label)).inner
}

/// A line `name: value`, the name strong, as [`value_label`] draws values.
pub fn name_value_label(ui: &mut Ui, name: &str, value: &str) -> Response {
    let mut job = egui::text::LayoutJob::default();
    let style = ui.style();
    let body = egui::FontSelection::Default.resolve(style);
    let strong = egui::TextFormat::simple(body.clone(), ui.visuals().strong_text_color());
    let plain = egui::TextFormat::simple(body, ui.visuals().text_color());
    job.append(&format!("{name}: "), 0.0, strong);
    job.append(value, 0.0, plain);
    value_label(ui, job)
}

/// Rows of `name  value`: the names in a column as wide as the widest, each value selectable and
/// wrapped in the width left, every other row on a faint band (as a striped grid). Not an egui
/// grid: a grid's first frame measures its columns, and wrapped values there made its rows taller
/// for that frame, so what was below them (buttons) moved under a click.
pub fn field_rows_ui(ui: &mut Ui, rows: &[(&str, &str)]) {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let name_width = rows
        .iter()
        .map(|(name, _)| {
            ui.ctx().fonts_mut(|fonts| {
                fonts
                    .layout_no_wrap((*name).to_owned(), font.clone(), egui::Color32::PLACEHOLDER)
                    .size()
                    .x
            })
        })
        .fold(0.0_f32, f32::max);
    for (index, (name, value)) in rows.iter().enumerate() {
        let band = ui.painter().add(egui::Shape::Noop);
        let row = ui.horizontal_top(|ui| {
            ui.allocate_ui_with_layout(
                egui::vec2(name_width, 0.0),
                egui::Layout::left_to_right(egui::Align::Min),
                |ui| {
                    ui.set_min_width(name_width);
                    ui.strong(*name);
                },
            );
            ui.add(egui::Label::new(*value).selectable(true).wrap());
        });
        if index % 2 == 1 {
            let rect = row.response.rect;
            let band_rect = egui::Rect::from_min_size(
                rect.min,
                egui::vec2(ui.available_width().max(rect.width()), rect.height()),
            )
            .expand2(egui::vec2(0.0, ui.spacing().item_spacing.y / 2.0));
            ui.painter().set(
                band,
                egui::epaint::RectShape::filled(band_rect, 0.0, ui.visuals().faint_bg_color),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;

    const LONG: &str =
        "part_number=PLATE|L-BRACKET|BOLT|NUT|NUT_BOLT_ASSEMBLY_ASM|L_BRACKET_ASSEMBLY_ASM";

    fn harness() -> Harness<'static> {
        let mut harness = Harness::builder()
            .with_size(egui::vec2(420.0, 300.0))
            .build_ui(|ui| {
                // The detail's columns are justified: the case that spread values.
                ui.columns(2, |columns| {
                    value_label(&mut columns[1], LONG);
                });
            });
        harness.run();
        harness
    }

    #[test]
    fn a_long_value_in_a_justified_column_wraps_at_its_separators_unspread() {
        let harness = harness();
        let texts: Vec<_> = harness
            .output()
            .shapes
            .iter()
            .filter_map(|clipped| match &clipped.shape {
                egui::Shape::Text(text) => Some(text.galley.clone()),
                _ => None,
            })
            .collect();
        let galley = texts
            .iter()
            .find(|galley| galley.text() == LONG)
            .expect("the value is painted whole");
        assert!(galley.rows.len() > 1, "it wraps in a narrow column");
        assert!(!galley.job.justify, "it is not justified");
        for placed in &galley.rows[..galley.rows.len() - 1] {
            let last = placed.row.glyphs.last().map(|glyph| glyph.chr);
            assert!(
                matches!(last, Some('|' | ',' | '_' | '-' | '=')),
                "a row ends within a word: {:?}",
                placed.row.text()
            );
        }
    }

    #[test]
    fn a_value_can_be_selected_and_copied() {
        let mut harness = harness();
        let label = harness.get_by_label(LONG);
        let rect = label.rect();
        // Drag across the text to select it, then copy.
        let (start, end) = (
            rect.left_top() + egui::vec2(1.0, 4.0),
            rect.right_bottom() - egui::vec2(2.0, 4.0),
        );
        let button = |pos, pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        harness.event(egui::Event::PointerMoved(start));
        harness.event(button(start, true));
        harness.step();
        harness.event(egui::Event::PointerMoved(end));
        harness.step();
        harness.event(button(end, false));
        harness.step();
        harness.event(egui::Event::Copy);
        harness.step();
        let copied = harness.output().platform_output.commands.iter().any(
            |command| matches!(command, egui::OutputCommand::CopyText(text) if text.len() > 20),
        );
        assert!(copied, "{:?}", harness.output().platform_output.commands);
    }
}
