//! The search options beyond the interface's filter (issue 49: size as the user wants it), their
//! wire names, and the result field they add. Both are query parameters of `GET /api/Search` and
//! `PUT /api/Search`; the service's docs/OPERATIONS.md says what each does.
//!
//! - `sizeFirst` (default `true`): a search by a model ranks the models of its size first (a model
//!   of another size loses a size penalty); `false` ranks by shape alone. No effect on a search by
//!   a picture, a sketch or a drawing (those have no size).
//! - `ignoreMirrored` (default `false`): `true` leaves out the results that are the mirror image of
//!   the model searched by (each of those results otherwise says so: [`MIRRORED_FIELD`]).

use super::model::SearchResultItem;

/// The query parameter of [`SearchOptions::size_first`].
pub const SIZE_FIRST_PARAM: &str = "sizeFirst";

/// The query parameter of [`SearchOptions::ignore_mirrored`].
pub const IGNORE_MIRRORED_PARAM: &str = "ignoreMirrored";

/// The field of a search result that is the mirror image of the model searched by: `true`, and
/// only on such a result (absent otherwise).
pub const MIRRORED_FIELD: &str = "Mirrored";

/// What a search asks beyond its filter (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SearchOptions {
    /// Rank a search by a model by shape and size (the models of its size first); `false`: by
    /// shape alone.
    pub size_first: bool,
    /// Leave out the mirror images of the model searched by.
    pub ignore_mirrored: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            size_first: true,
            ignore_mirrored: false,
        }
    }
}

impl SearchOptions {
    /// The query parameters that say these options: only those that differ from the default, so
    /// a default search is sent as before.
    pub fn params(&self) -> Vec<(String, String)> {
        let defaults = Self::default();
        let mut params = Vec::new();
        if self.size_first != defaults.size_first {
            params.push((SIZE_FIRST_PARAM.to_owned(), self.size_first.to_string()));
        }
        if self.ignore_mirrored != defaults.ignore_mirrored {
            params.push((
                IGNORE_MIRRORED_PARAM.to_owned(),
                self.ignore_mirrored.to_string(),
            ));
        }
        params
    }

    /// The options `params` say (as [`Self::params`] wrote them; a parameter that is not an
    /// option, or a value that is not `true` or `false`, leaves its option at the default).
    pub fn from_params(params: &[(String, String)]) -> Self {
        let mut options = Self::default();
        for (name, value) in params {
            let Ok(value) = value.trim().to_ascii_lowercase().parse::<bool>() else {
                continue;
            };
            if name.eq_ignore_ascii_case(SIZE_FIRST_PARAM) {
                options.size_first = value;
            } else if name.eq_ignore_ascii_case(IGNORE_MIRRORED_PARAM) {
                options.ignore_mirrored = value;
            }
        }
        options
    }
}

/// Whether a search result is the mirror image of the model searched by ([`MIRRORED_FIELD`]).
pub fn is_mirrored(item: &SearchResultItem) -> bool {
    item.extra
        .get(MIRRORED_FIELD)
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_options_other_than_the_defaults_are_sent() {
        assert!(SearchOptions::default().params().is_empty());
        let changed = SearchOptions {
            size_first: false,
            ignore_mirrored: true,
        };
        assert_eq!(
            changed.params(),
            [
                ("sizeFirst".to_owned(), "false".to_owned()),
                ("ignoreMirrored".to_owned(), "true".to_owned())
            ]
        );
        assert_eq!(SearchOptions::from_params(&changed.params()), changed);
        assert_eq!(
            SearchOptions::from_params(&[("maxResults".into(), "5".into())]),
            SearchOptions::default()
        );
    }
}
