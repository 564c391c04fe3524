//! The app's identity on the desktop. One application id names the window (the Wayland `app_id`,
//! the class of the X11 `WM_CLASS`), the freedesktop entry and the AppStream metainfo under
//! `packaging/linux/`, and the icons under `packaging/icons/`, so that a desktop puts the running
//! window under the launcher's icon. The window icon is the packaging icon itself.

/// The application id (reverse-DNS, as freedesktop and AppStream ask): the window's app id and
/// `WM_CLASS` class, the `.desktop` file's name and `StartupWMClass`, the metainfo's `<id>` and the
/// icon's name.
pub const APP_ID: &str = "io.github.partlens.Partlens";

/// The window icon: the 256 px PNG that the package installs into the hicolor theme, rendered from
/// `packaging/icons/hicolor/scalable/apps/io.github.partlens.Partlens.svg`.
pub const WINDOW_ICON_PNG: &[u8] =
    include_bytes!("../../packaging/icons/hicolor/256x256/apps/io.github.partlens.Partlens.png");

mod dialog_choice;
mod first_frame;
mod keyring_store;
mod native_file_picker;

pub use dialog_choice::{DialogChoice, FAILED_WITHIN, FallbackFilePicker};
pub use first_frame::{
    FIRST_FRAME_LINE, FirstFrameReport, REPORT_FIRST_FRAME_ENV, first_frame_report_requested,
};
pub use keyring_store::KeyringStore;
pub use native_file_picker::NativeFilePicker;
