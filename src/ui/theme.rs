//! The look of the app: the theme the user chose (system, light, dark), a little more air than egui's
//! defaults, and the few colours the views share (success, warning, error).

use egui::{Color32, ThemePreference};
use serde::{Deserialize, Serialize};

/// The theme the user chose in Settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThemeChoice {
    /// Follow the operating system.
    #[default]
    System,
    /// Light.
    Light,
    /// Dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in the order Settings lists them.
    pub const ALL: [Self; 3] = [Self::System, Self::Light, Self::Dark];

    /// The name shown in Settings.
    pub fn label(self) -> &'static str {
        match self {
            Self::System => "Like the system",
            Self::Light => "Light",
            Self::Dark => "Dark",
        }
    }

    fn preference(self) -> ThemePreference {
        match self {
            Self::System => ThemePreference::System,
            Self::Light => ThemePreference::Light,
            Self::Dark => ThemePreference::Dark,
        }
    }
}

/// Applies the theme and the app's spacing to every style (light and dark).
pub fn apply(ctx: &egui::Context, theme: ThemeChoice) {
    ctx.set_theme(theme.preference());
    ctx.all_styles_mut(|style| {
        use egui::{FontFamily, FontId, TextStyle};
        // egui's defaults (13 px body, 9 px small) read small on a desktop window.
        style.text_styles = [
            (
                TextStyle::Small,
                FontId::new(11.0, FontFamily::Proportional),
            ),
            (TextStyle::Body, FontId::new(14.0, FontFamily::Proportional)),
            (
                TextStyle::Button,
                FontId::new(14.0, FontFamily::Proportional),
            ),
            (
                TextStyle::Heading,
                FontId::new(20.0, FontFamily::Proportional),
            ),
            (
                TextStyle::Monospace,
                FontId::new(13.0, FontFamily::Monospace),
            ),
        ]
        .into();
        style.spacing.item_spacing = egui::vec2(8.0, 6.0);
        style.spacing.button_padding = egui::vec2(8.0, 3.0);
        style.spacing.interact_size.y = 22.0;
        style.spacing.text_edit_width = 260.0;
    });
    // egui's default text is a dim grey; labels and headings read better a little brighter.
    ctx.style_mut_of(egui::Theme::Dark, |style| {
        style.visuals.widgets.noninteractive.fg_stroke.color = Color32::from_gray(200);
    });
    ctx.style_mut_of(egui::Theme::Light, |style| {
        style.visuals.widgets.noninteractive.fg_stroke.color = Color32::from_gray(40);
    });
}

/// The colour of "done".
pub fn success_color(ui: &egui::Ui) -> Color32 {
    if ui.visuals().dark_mode {
        Color32::from_rgb(110, 200, 120)
    } else {
        Color32::from_rgb(30, 130, 50)
    }
}

/// The colour of warnings.
pub fn warning_color(ui: &egui::Ui) -> Color32 {
    ui.visuals().warn_fg_color
}

/// The colour of errors.
pub fn error_color(ui: &egui::Ui) -> Color32 {
    ui.visuals().error_fg_color
}

/// A button that stands out as the main action of a form.
pub fn primary_button(ui: &egui::Ui, text: &str) -> egui::Button<'static> {
    egui::Button::new(egui::RichText::new(text.to_owned()).color(Color32::WHITE))
        .fill(ui.visuals().selection.bg_fill)
}

/// The widest a form's box grows.
pub const FORM_WIDTH: f32 = 760.0;

/// A titled box of a form (upload, settings), at most [`FORM_WIDTH`] wide.
pub fn card_ui(ui: &mut egui::Ui, title: &str, add_contents: impl FnOnce(&mut egui::Ui)) {
    card_of_width_ui(ui, title, FORM_WIDTH, add_contents);
}

/// A titled box as wide as the place, for a table in a form (the files staged for upload, whose
/// long names need the room).
pub fn wide_card_ui(ui: &mut egui::Ui, title: &str, add_contents: impl FnOnce(&mut egui::Ui)) {
    card_of_width_ui(ui, title, f32::INFINITY, add_contents);
}

fn card_of_width_ui(
    ui: &mut egui::Ui,
    title: &str,
    widest: f32,
    add_contents: impl FnOnce(&mut egui::Ui),
) {
    egui::Frame::group(ui.style())
        .inner_margin(egui::Margin::same(12))
        .show(ui, |ui| {
            ui.set_width(ui.available_width().min(widest));
            ui.label(egui::RichText::new(title).strong());
            ui.add_space(6.0);
            add_contents(ui);
        });
}
