//! The places of the app the top bar leads to. A place is where the user is (Search, Upload, …); a
//! view is what draws part of it; the views of a part are the pictures a search goes by.

use serde::{Deserialize, Serialize};

/// A place in the app.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Place {
    /// Search by views, text and attributes; results, a file's detail, attributes and drawing data.
    #[default]
    Search,
    /// Every file of the company, newest first, filtered by kind, folder and attribute.
    Library,
    /// Files of the company that are the same part, in groups.
    Duplicates,
    /// Choose files and what they become, then upload them.
    Upload,
    /// Every upload and where it is.
    Jobs,
    /// Service, polling, cache and theme.
    Settings,
}

impl Place {
    /// The places the top bar offers, in order.
    pub const TOP_BAR: [Self; 6] = [
        Self::Search,
        Self::Library,
        Self::Duplicates,
        Self::Upload,
        Self::Jobs,
        Self::Settings,
    ];

    /// The name in the top bar (and its accessible label).
    pub fn label(self) -> &'static str {
        match self {
            Self::Search => "Search",
            Self::Library => "Library",
            Self::Duplicates => "Duplicates",
            Self::Upload => "Upload",
            Self::Jobs => "Jobs",
            Self::Settings => "Settings",
        }
    }
}
