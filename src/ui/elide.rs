//! File names that do not fit, elided in the middle (`freecad…ex_Nut_M10.stl`), as desktop file
//! managers do: the parts of a library often share a long prefix, and what tells them apart (a
//! size, a variant, the format) is near the end, which an end-elided label
//! (`freecadlib__Nuts__ISO403…` for every size of the nut) hides. The whole name is shown on hover
//! and given to screen readers.

use egui::{Response, RichText, Role, TextStyle, Ui, WidgetInfo};

/// What stands for the elided middle.
const ELLIPSIS: char = '…';

/// A third of the kept characters come from the start of the name, the rest from its end.
const START_SHARE_DIVISOR: usize = 3;

/// `text` itself when `fits` says it fits, else the longest middle-elided form of it that fits
/// (a third of the kept characters from its start, two thirds from its end); just the ellipsis
/// when nothing does. `fits` must not grow more lenient as the text grows longer.
pub fn elide_middle(text: &str, fits: impl Fn(&str) -> bool) -> String {
    if fits(text) {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let elided = |kept: usize| -> String {
        let from_start = kept / START_SHARE_DIVISOR;
        let from_end = kept - from_start;
        let mut out: String = chars[..from_start].iter().collect();
        out.push(ELLIPSIS);
        out.extend(&chars[chars.len() - from_end..]);
        out
    };
    // The most characters kept that still fit: fewer than the whole name, which did not.
    let (mut fitting, mut too_many) = (0, chars.len());
    while too_many - fitting > 1 {
        let middle = (fitting + too_many) / 2;
        if fits(&elided(middle)) {
            fitting = middle;
        } else {
            too_many = middle;
        }
    }
    elided(fitting)
}

/// A file name in the width left in `ui`, in `style` (strong when `strong`), elided in the
/// middle when it does not fit; the whole name on hover and for screen readers.
pub fn file_name_label(ui: &mut Ui, name: &str, style: TextStyle, strong: bool) -> Response {
    elided_name_label(ui, name, style, strong, None)
}

/// A file name in a table cell: [`file_name_label`] in the body style, not strong.
pub fn file_name_cell(ui: &mut Ui, name: &str) -> Response {
    file_name_label(ui, name, TextStyle::Body, false)
}

/// A file's name in a table cell, elided in the middle when it does not fit, with where the file
/// is (`path`, which holds the whole name) on hover: one hover text, never the name and then the
/// path under it.
pub fn file_path_cell(ui: &mut Ui, name: &str, path: &str) -> Response {
    elided_name_label(ui, name, TextStyle::Body, false, Some(path))
}

/// `name` elided in the middle to the width left; on hover `hover`, else the whole name when it
/// was elided.
fn elided_name_label(
    ui: &mut Ui,
    name: &str,
    style: TextStyle,
    strong: bool,
    hover: Option<&str>,
) -> Response {
    let width = ui.available_width();
    let font = style.resolve(ui.style());
    let color = ui.visuals().text_color();
    let shown = elide_middle(name, |candidate| {
        ui.ctx().fonts_mut(|fonts| {
            fonts
                .layout_no_wrap(candidate.to_owned(), font.clone(), color)
                .size()
                .x
                <= width
        })
    });
    let elided = shown != name;
    let mut text = RichText::new(shown).text_style(style);
    if strong {
        text = text.strong();
    }
    let response = ui.add(egui::Label::new(text).selectable(false));
    response.widget_info(|| WidgetInfo::labeled(Role::Label, true, name));
    match hover.or(elided.then_some(name)) {
        Some(hover) => response.on_hover_text(hover),
        None => response,
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable as _;

    use super::*;

    fn within(limit: usize) -> impl Fn(&str) -> bool {
        move |text: &str| text.chars().count() <= limit
    }

    #[test]
    fn a_name_that_fits_is_shown_whole() {
        assert_eq!(elide_middle("gear.png", within(8)), "gear.png");
    }

    #[test]
    fn a_long_name_keeps_its_start_and_more_of_its_end() {
        let m10 = "freecadlib__Nuts__ISO4032_Hex_Nut_M10.stl";
        assert_eq!(elide_middle(m10, within(22)), "freecad…ex_Nut_M10.stl");
        assert_eq!(
            elide_middle(m10, within(30)),
            "freecadli…4032_Hex_Nut_M10.stl"
        );
        // Two sizes of one part stay apart, where an end-elided label shows the same text.
        let m8 = "freecadlib__Nuts__ISO4032_Hex_Nut_M8.stl";
        assert_eq!(elide_middle(m8, within(22)), "freecad…Hex_Nut_M8.stl");
    }

    #[test]
    fn a_cut_name_with_its_path_on_hover_says_the_name_once() {
        const NAME: &str = "freecadlib__Nuts__ISO4032_Hex_Nut_M10.stl";
        const PATH: &str = "/home/me/parts/freecadlib__Nuts__ISO4032_Hex_Nut_M10.stl";
        let mut harness = egui_kittest::Harness::builder()
            .with_size(egui::vec2(400.0, 200.0))
            .build_ui(|ui| {
                ui.set_max_width(120.0);
                file_path_cell(ui, NAME, PATH);
            });
        harness.run();
        harness.get_by_label(NAME).hover();
        harness.run_steps(6);
        let painted: Vec<String> = harness
            .output()
            .shapes
            .iter()
            .filter_map(|clipped| match &clipped.shape {
                egui::Shape::Text(text) => Some(text.galley.text().to_owned()),
                _ => None,
            })
            .collect();
        // The cell shows the name cut short; the hover text is the path, once.
        assert_eq!(
            painted.iter().filter(|text| text.contains(NAME)).count(),
            1,
            "{painted:?}"
        );
        assert!(painted.iter().any(|text| text == PATH), "{painted:?}");
    }

    #[test]
    fn characters_are_kept_whole_and_nothing_fitting_leaves_the_ellipsis() {
        let name = "Ø20×40 flansch für Welle – Ausführung B.step";
        assert_eq!(elide_middle(name, within(12)), "Ø20…g B.step");
        assert_eq!(elide_middle(name, within(0)), "…");
    }
}
