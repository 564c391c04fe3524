//! A reply decoded once, with the JSON it came from kept beside it: for the views and outputs that
//! show a reply as the service sent it (the detail view's raw record, the CLI's search output) next
//! to the typed fields the client reads. Every endpoint decodes its reply here, once.

use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::model::FileMap;

/// A typed reply and the JSON it was decoded from.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded<T> {
    /// The reply as this client reads it.
    pub value: T,
    /// The reply as the service sent it, with the fields the client does not model.
    pub json: serde_json::Value,
}

impl<T: DeserializeOwned> Decoded<T> {
    /// Decodes `json` (without copying it); `what` names the reply in the error.
    pub fn from_json(json: serde_json::Value, what: &str) -> Result<Self, ApiError> {
        let value =
            T::deserialize(&json).map_err(|error| ApiError::Decode(format!("{what}: {error}")))?;
        Ok(Self { value, json })
    }
}

/// A file record (`GET /api/File`) with every field the service sent.
pub type FileRecord = Decoded<FileMap>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_keeps_fields_the_type_does_not_model() {
        let json = serde_json::json!({"UID": "a", "DisplayName": "Bracket", "ShapeletCount": 7});
        let record = FileRecord::from_json(json.clone(), "file record").unwrap();
        assert_eq!(record.value.title(), "Bracket");
        assert_eq!(record.json, json);
        let error = FileRecord::from_json(serde_json::json!([1]), "file record").unwrap_err();
        assert!(matches!(error, ApiError::Decode(ref text) if text.starts_with("file record")));
    }
}
