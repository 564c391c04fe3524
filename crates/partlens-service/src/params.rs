//! Reading query parameters the way ASP.NET binds them: names in any case, `true`/`false` in any
//! case, GUIDs with or without braces. A value that does not parse is a 400, never a 500.

use partlens_api::FileUid;
use partlens_api::encoding::QueryString;

use super::error::ServiceError;

/// A boolean parameter; `default` when absent or empty.
pub fn bool_param(query: &QueryString, name: &str, default: bool) -> Result<bool, ServiceError> {
    match query.get(name).map(str::trim) {
        None | Some("") => Ok(default),
        Some(value) if value.eq_ignore_ascii_case("true") || value == "1" => Ok(true),
        Some(value) if value.eq_ignore_ascii_case("false") || value == "0" => Ok(false),
        Some(value) => Err(ServiceError::BadRequest(format!(
            "{name}={value} is not a boolean; use true or false"
        ))),
    }
}

/// An optional boolean parameter (None when absent or empty).
pub fn optional_bool_param(query: &QueryString, name: &str) -> Result<Option<bool>, ServiceError> {
    match query.get(name).map(str::trim) {
        None | Some("") => Ok(None),
        Some(_) => bool_param(query, name, false).map(Some),
    }
}

/// A GUID given as text, in its canonical lower-case form; 400 when it is not a GUID.
pub fn canonical_uid(text: &str, name: &str) -> Result<String, ServiceError> {
    FileUid::parse(text)
        .map(|uid| uid.canonical())
        .map_err(|_| ServiceError::BadRequest(format!("{name} \"{text}\" is not a GUID")))
}

/// An optional GUID parameter (None when absent or empty).
pub fn optional_uid_param(query: &QueryString, name: &str) -> Result<Option<String>, ServiceError> {
    match query.get(name).map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => canonical_uid(text, name).map(Some),
    }
}

/// A required GUID parameter: 400 when missing or not a GUID.
pub fn required_uid_param(query: &QueryString, name: &str) -> Result<String, ServiceError> {
    optional_uid_param(query, name)?
        .ok_or_else(|| ServiceError::BadRequest(format!("the {name} parameter is required")))
}

/// An optional integer parameter (None when absent or empty); 400 when it is not an integer.
pub fn optional_integer_param(
    query: &QueryString,
    name: &str,
) -> Result<Option<i64>, ServiceError> {
    match query.get(name).map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| ServiceError::BadRequest(format!("{name}={text} is not an integer"))),
    }
}

/// A non-empty text parameter, trimmed.
pub fn text_param<'a>(query: &'a QueryString, name: &str) -> Option<&'a str> {
    query
        .get(name)
        .map(str::trim)
        .filter(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_and_guids_bind_like_asp_net() {
        let query = QueryString::parse(
            "IndexAsync=TRUE&isSearchInput=0&bad=yes&fileuid=%7B3F2504E0-4F89-41D3-9A0C-0305E82C3301%7D&x=nope",
        );
        assert!(bool_param(&query, "indexAsync", false).unwrap());
        assert!(!bool_param(&query, "isSearchInput", true).unwrap());
        assert!(bool_param(&query, "missing", true).unwrap());
        assert!(matches!(
            bool_param(&query, "bad", true),
            Err(ServiceError::BadRequest(_))
        ));
        assert_eq!(
            required_uid_param(&query, "fileUID").unwrap(),
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        );
        assert!(required_uid_param(&query, "x").is_err());
        assert!(required_uid_param(&query, "absent").is_err());
        assert_eq!(optional_uid_param(&query, "absent").unwrap(), None);
    }
}
