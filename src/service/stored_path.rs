//! The `file` parameter of an upload: the extension of a search input (`.png`) or the stored path
//! of a company-database file (`<folder>/<name>.<ext>`), checked so that a path never escapes its
//! folder (no `..`, no absolute path, no drive letter).

use super::error::ServiceError;

/// The lower-case extension of a file name with the dot: `.png`; `.step.ifz` for the double suffix of
/// `.ifz` files. Empty when the name has none.
pub fn extension_of(file_name: &str) -> String {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let lower = name.to_lowercase();
    let parts: Vec<&str> = lower.split('.').collect();
    match parts.as_slice() {
        [_, .., inner, "ifz"] if parts.len() >= 3 && !inner.is_empty() => format!(".{inner}.ifz"),
        [_, .., last] if parts.len() >= 2 && !last.is_empty() => format!(".{last}"),
        _ => String::new(),
    }
}

/// The extension of a search input from its `file` parameter: `.png`, `png` or a whole file name.
pub fn search_input_extension(file: &str) -> Result<String, ServiceError> {
    let trimmed = file.trim();
    let extension = if trimmed.starts_with('.') && !trimmed[1..].contains(['/', '\\']) {
        let lower = trimmed.to_lowercase();
        // ".step.ifz" stays whole; ".png" is itself.
        if lower.matches('.').count() > 1 && !lower.ends_with(".ifz") {
            extension_of(&lower)
        } else {
            lower
        }
    } else if !trimmed.contains('.') && !trimmed.is_empty() {
        format!(".{}", trimmed.to_lowercase())
    } else {
        extension_of(trimmed)
    };
    if extension.len() < 2
        || !extension[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
    {
        return Err(ServiceError::BadRequest(format!(
            "\"{file}\" is not a file extension; a search input is sent with file=.<ext>, for example file=.png"
        )));
    }
    Ok(extension)
}

/// A checked stored path of a company-database file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPath {
    /// The path with `/` separators: `<folder>/<name>.<ext>`.
    pub path: String,
    /// The last part, shown as the display name.
    pub name: String,
    /// Its extension (see [`extension_of`]).
    pub extension: String,
}

impl StoredPath {
    /// Checks a stored path. Refused (400): empty, absolute (`/a`, `\a`), with a drive letter or any
    /// `:`, with a `..` or `.` part, with control characters, ending in a separator, or with a file
    /// name that is only an extension (`Design/.png`).
    pub fn parse(file: &str) -> Result<Self, ServiceError> {
        let refuse = |why: &str| {
            Err(ServiceError::BadRequest(format!(
                "the stored path \"{file}\" is not accepted: {why}; write it as <folder>/<name>.<ext>"
            )))
        };
        let trimmed = file.trim();
        if trimmed.is_empty() {
            return refuse("it is empty");
        }
        if trimmed.chars().any(char::is_control) {
            return refuse("it contains control characters");
        }
        if trimmed.contains(':') {
            return refuse("drive letters and ':' are not allowed");
        }
        let unified = trimmed.replace('\\', "/");
        if unified.starts_with('/') {
            return refuse("it is absolute");
        }
        if unified.ends_with('/') {
            return refuse("it names a folder, not a file");
        }
        let parts: Vec<&str> = unified.split('/').filter(|part| !part.is_empty()).collect();
        if parts
            .iter()
            .any(|part| part.trim() == ".." || part.trim() == ".")
        {
            return refuse("'.' and '..' parts are not allowed");
        }
        let path = parts.join("/");
        let name = parts
            .last()
            .map(|part| (*part).to_owned())
            .unwrap_or_default();
        let stem = name
            .rsplit_once('.')
            .map_or(name.as_str(), |(stem, _)| stem);
        if stem.trim().is_empty() {
            return refuse("the file name is empty");
        }
        let extension = extension_of(&name);
        Ok(Self {
            path,
            name,
            extension,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_follow_the_interface() {
        assert_eq!(extension_of("Design/Bracket.PNG"), ".png");
        assert_eq!(extension_of("housing.step.ifz"), ".step.ifz");
        assert_eq!(extension_of("README"), "");
        assert_eq!(search_input_extension(".PNG").unwrap(), ".png");
        assert_eq!(search_input_extension("png").unwrap(), ".png");
        assert_eq!(search_input_extension(".step.ifz").unwrap(), ".step.ifz");
        assert_eq!(search_input_extension("photo.jpg").unwrap(), ".jpg");
        assert!(search_input_extension("").is_err());
        assert!(search_input_extension(".").is_err());
        assert!(search_input_extension(".p n g").is_err());
    }

    #[test]
    fn good_paths_are_kept_with_forward_slashes() {
        let path = StoredPath::parse("Design\\Sub/bracket.png").unwrap();
        assert_eq!(path.path, "Design/Sub/bracket.png");
        assert_eq!(path.name, "bracket.png");
        assert_eq!(path.extension, ".png");
        assert_eq!(StoredPath::parse("a//b.stl").unwrap().path, "a/b.stl");
        assert_eq!(
            StoredPath::parse("bracket.png").unwrap().path,
            "bracket.png"
        );
    }

    #[test]
    fn paths_that_escape_are_refused() {
        for bad in [
            "",
            "  ",
            "../x.png",
            "a/../../x.png",
            "a\\..\\x.png",
            "/etc/passwd",
            "\\\\server\\share\\x.png",
            "C:/x.png",
            "c:x.png",
            "a/./x.png",
            "folder/",
            "a/\u{0}.png",
            ".png",
            "Design/.png",
        ] {
            assert!(
                matches!(StoredPath::parse(bad), Err(ServiceError::BadRequest(_))),
                "{bad:?}"
            );
        }
    }
}
