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
        style.spacing.item_spacing = egui::vec2(8.0, 6.0);
        style.spacing.button_padding = egui::vec2(8.0, 3.0);
        style.spacing.interact_size.y = 22.0;
        style.spacing.text_edit_width = 260.0;
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
