//! The `file` parameter of an upload: the extension of a search input (`.png`) or the stored path
//! of a company-database file (`<folder>/<name>.<ext>`), checked so that a path never escapes its
//! folder (no `..`, no absolute path, no drive letter).

use super::error::ServiceError;
use partlens_api::encoding::file_extension;

/// Reads and checks the extension of a search input from its `file` (or `fileExtension`) parameter:
/// `.png`, `png` or a whole file name.
pub fn parse_search_input_extension(file: &str) -> Result<String, ServiceError> {
    let trimmed = file.trim();
    let extension = if trimmed.starts_with('.') && !trimmed[1..].contains(['/', '\\']) {
        let lower = trimmed.to_lowercase();
        // ".step.ifz" stays whole; ".png" is itself.
        if lower.matches('.').count() > 1 && !lower.ends_with(".ifz") {
            file_extension(&lower)
        } else {
            lower
        }
    } else if !trimmed.contains('.') && !trimmed.is_empty() {
        format!(".{}", trimmed.to_lowercase())
    } else {
        file_extension(trimmed)
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
    /// Its extension (see [`file_extension`]).
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
        let extension = file_extension(&name);
        Ok(Self {
            path,
            name,
            extension,
        })
    }
}

/// The stored path a `fileName` parameter names, written the way uploads store paths (`\\` as `/`,
/// empty parts dropped), so a file is found by the name it was uploaded with. A name no upload
/// accepts is returned with only its separators unified (it then names no file: 404).
pub fn lookup_path(file_name: &str) -> String {
    StoredPath::parse(file_name)
        .map(|path| path.path)
        .unwrap_or_else(|_| file_name.trim().replace('\\', "/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_follow_the_interface() {
        assert_eq!(file_extension("Design/Bracket.PNG"), ".png");
        assert_eq!(file_extension("housing.step.ifz"), ".step.ifz");
        assert_eq!(file_extension("README"), "");
        assert_eq!(parse_search_input_extension(".PNG").unwrap(), ".png");
        assert_eq!(parse_search_input_extension("png").unwrap(), ".png");
        assert_eq!(
            parse_search_input_extension(".step.ifz").unwrap(),
            ".step.ifz"
        );
        assert_eq!(parse_search_input_extension("photo.jpg").unwrap(), ".jpg");
        assert!(parse_search_input_extension("").is_err());
        assert!(parse_search_input_extension(".").is_err());
        assert!(parse_search_input_extension(".p n g").is_err());
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
    fn a_file_is_looked_up_by_the_name_it_was_uploaded_with() {
        for name in [
            "Design\\Sub//x.png",
            " Design/Sub/x.png ",
            "Design/Sub/x.png",
        ] {
            assert_eq!(lookup_path(name), "Design/Sub/x.png", "{name:?}");
        }
        assert_eq!(lookup_path("..\\x.png"), "../x.png");
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
