//! `GET /api/Duplicates` (an extension of this project's service, not in the interface
//! specification): groups of the company's database files that are the same part, the same shape
//! at the same size in any format or under any name, each with the score that joined it. The wire
//! types are shared with the service; the call is made with the `client` feature.

use serde::{Deserialize, Serialize};

use super::model::null_as_default;

/// The reply of `GET /api/Duplicates`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DuplicatesReply {
    /// The lowest score of a pair taken for one part, as the service applied it.
    #[serde(rename = "MinScore", default)]
    pub min_score: f64,
    /// How many database files (indexed, with views) were compared.
    #[serde(rename = "FilesCompared", default)]
    pub files_compared: u64,
    /// The groups, highest score first.
    #[serde(rename = "Groups", default, deserialize_with = "null_as_default")]
    pub groups: Vec<DuplicateGroup>,
}

/// Files that are one part.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DuplicateGroup {
    /// The weakest score of the pairs that joined the group (0..1).
    #[serde(rename = "Score", default)]
    pub score: f64,
    /// The files, two or more.
    #[serde(rename = "Files", default, deserialize_with = "null_as_default")]
    pub files: Vec<DuplicateFile>,
}

/// One file of a duplicate group.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DuplicateFile {
    /// The file's UID.
    #[serde(rename = "UID", default)]
    pub uid: String,
    /// Its stored path.
    #[serde(rename = "FileName", default, deserialize_with = "null_as_default")]
    pub file_name: String,
    /// Its display name.
    #[serde(rename = "DisplayName", default, deserialize_with = "null_as_default")]
    pub display_name: String,
    /// A model's extents in millimetres, smallest first; empty for a file of no known size.
    #[serde(rename = "SizeMm", default, deserialize_with = "null_as_default")]
    pub size_mm: Vec<f64>,
}

#[cfg(feature = "client")]
mod call {
    use reqwest::Method;

    use super::DuplicatesReply;
    use crate::client::{ApiClient, CALL_TIMEOUT, parse_json};
    use crate::encoding::QueryString;
    use crate::error::ApiError;

    impl ApiClient {
        /// Runs `GET /api/Duplicates` (this project's service only) and returns the reply as
        /// the service sent it. `min_score` (0..1) is the lowest pair score taken for one part;
        /// the service's default when `None`.
        pub async fn duplicates_json(
            &self,
            min_score: Option<f64>,
        ) -> Result<serde_json::Value, ApiError> {
            let mut query = QueryString::new();
            if let Some(score) = min_score {
                if !(0.0..=1.0).contains(&score) {
                    return Err(ApiError::InvalidInput(format!(
                        "the minimum score {score} is not from 0 to 1"
                    )));
                }
                query.push("minScore", score.to_string());
            }
            // Comparing every file of a large library takes a while: twice a call's time.
            let builder = self
                .request(Method::GET, "api/Duplicates", &query)?
                .timeout(CALL_TIMEOUT * 2);
            let reply = self.send(builder, &[]).await?;
            parse_json(&reply.body, "duplicates")
        }

        /// Runs `GET /api/Duplicates` and decodes the groups.
        pub async fn duplicates(
            &self,
            min_score: Option<f64>,
        ) -> Result<DuplicatesReply, ApiError> {
            serde_json::from_value(self.duplicates_json(min_score).await?)
                .map_err(|error| ApiError::Decode(format!("duplicates: {error}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_reads_back_as_written_and_tolerates_nulls() {
        let reply = DuplicatesReply {
            min_score: 0.9,
            files_compared: 3,
            groups: vec![DuplicateGroup {
                score: 0.95,
                files: vec![DuplicateFile {
                    uid: "3f2504e0-4f89-41d3-9a0c-0305e82c3301".into(),
                    file_name: "parts/nut.step".into(),
                    display_name: "nut".into(),
                    size_mm: vec![6.8, 13.0, 14.4],
                }],
            }],
        };
        let json = serde_json::to_value(&reply).unwrap();
        assert_eq!(json["Groups"][0]["Files"][0]["SizeMm"][2], 14.4);
        assert_eq!(
            serde_json::from_value::<DuplicatesReply>(json).unwrap(),
            reply
        );
        let sparse: DuplicatesReply =
            serde_json::from_str(r#"{"Groups":[{"Score":0.9,"Files":null}]}"#).unwrap();
        assert!(sparse.groups[0].files.is_empty());
    }
}
