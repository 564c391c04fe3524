//! Where the detail view of a record leads ([`DetailIntent`]): apart from the view, so that the
//! parts it draws with (the assembly relations) name it without naming the view.

use partlens_api::FileUid;

/// Where in the app the detail view leads; the Search place goes there. Work for the task layer
/// (reload, delete, the image) goes straight to it as a `Command`.
#[derive(Clone, Debug, PartialEq)]
pub enum DetailIntent {
    /// Open another record (an assembly parent or child).
    OpenFile(FileUid),
    /// Open the attribute editor of this file.
    EditAttributes(FileUid),
    /// Open the drawing data (PMI, free text, extracted attributes, feedback) of this file.
    ShowPmi(FileUid),
    /// Search by this file itself (by its UID: a model as a model).
    MoreLikeThis {
        /// The file.
        uid: FileUid,
        /// Its stored file name.
        file_name: String,
    },
    /// Go back to the results.
    Back,
}
