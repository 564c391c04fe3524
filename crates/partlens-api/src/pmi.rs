//! `GET /api/PMIData` and `PUT /api/ExtractedAttributeFeedback`.

use reqwest::Method;

use super::client::{ApiClient, CALL_TIMEOUT, parse_json};
use super::encoding::{QueryString, feedback_body, plain_reply};
use super::error::ApiError;
use super::limits::{MAX_FEEDBACK_CHARS, MAX_FEEDBACK_USER_CHARS};
use super::model::{PmiData, PmiDataWire};
use super::uid::FileUid;

/// Feedback on the attributes extracted from a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedbackRequest {
    /// The file the feedback is about.
    pub file_uid: Option<FileUid>,
    /// The extracted attributes the feedback is about, `name=value` (joined with `,` on the wire).
    pub attributes: Vec<String>,
    /// The explanation, at most 300 characters. Omitted means empty feedback.
    pub feedback: Option<String>,
    /// An external user identifier, at most 100 characters.
    pub user: Option<String>,
    /// A caller-chosen feedback id (a GUID).
    pub feedback_id: Option<String>,
}

impl FeedbackRequest {
    /// Checks the interface's limits; nothing is sent when this fails.
    pub fn validate(&self) -> Result<&FileUid, ApiError> {
        let Some(uid) = &self.file_uid else {
            return Err(ApiError::InvalidInput(
                "feedback needs the file's UID".into(),
            ));
        };
        if let Some(feedback) = &self.feedback {
            let count = feedback.chars().count();
            if count > MAX_FEEDBACK_CHARS {
                return Err(ApiError::InvalidInput(format!(
                    "feedback is {count} characters; the service accepts at most {MAX_FEEDBACK_CHARS}"
                )));
            }
        }
        if let Some(user) = &self.user {
            let count = user.chars().count();
            if count > MAX_FEEDBACK_USER_CHARS {
                return Err(ApiError::InvalidInput(format!(
                    "the user identifier is {count} characters; the service accepts at most {MAX_FEEDBACK_USER_CHARS}"
                )));
            }
        }
        if let Some(id) = &self.feedback_id
            && uuid::Uuid::parse_str(id.trim()).is_err()
        {
            return Err(ApiError::InvalidInput(format!(
                "feedback id \"{id}\" is not a GUID"
            )));
        }
        for item in &self.attributes {
            if !item.contains('=') {
                return Err(ApiError::InvalidInput(format!(
                    "\"{item}\" is not name=value"
                )));
            }
            if item.contains(',') {
                return Err(ApiError::InvalidInput(format!(
                    "\"{item}\" contains ',', which separates the attributes of a feedback"
                )));
            }
        }
        Ok(uid)
    }
}

impl ApiClient {
    /// The extracted PMI, free text and attributes of a file, with the `PMI` string parsed.
    pub async fn pmi_data(&self, uid: &FileUid) -> Result<PmiData, ApiError> {
        let mut query = QueryString::new();
        query.push("fileUID", uid.as_str());
        let builder = self
            .request(Method::GET, "api/PMIData", &query)?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        let wire: PmiDataWire = parse_json(&reply.body, "PMI data")?;
        wire.parse()
    }

    /// Sends feedback on extracted attributes; returns the feedback id the service gives.
    pub async fn send_feedback(&self, request: &FeedbackRequest) -> Result<String, ApiError> {
        let uid = request.validate()?;
        let mut query = QueryString::new();
        query
            .push("fileUID", uid.as_str())
            .push_opt("feedback", request.feedback.as_ref())
            .push_opt("user", request.user.as_ref())
            .push_opt("feedbackId", request.feedback_id.as_ref());
        let builder = self
            .request(Method::PUT, "api/ExtractedAttributeFeedback", &query)?
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(feedback_body(&request.attributes))
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        Ok(plain_reply(&reply.body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> FeedbackRequest {
        FeedbackRequest {
            file_uid: Some(FileUid::parse("3f2504e0-4f89-41d3-9a0c-0305e82c3301").unwrap()),
            attributes: vec!["material=steel".into()],
            ..Default::default()
        }
    }

    #[test]
    fn limits_are_checked_before_sending() {
        assert!(request().validate().is_ok());
        let long_feedback = FeedbackRequest {
            feedback: Some("x".repeat(301)),
            ..request()
        };
        assert!(
            long_feedback
                .validate()
                .unwrap_err()
                .to_string()
                .contains("300")
        );
        let exactly = FeedbackRequest {
            feedback: Some("é".repeat(300)),
            user: Some("u".repeat(100)),
            ..request()
        };
        assert!(exactly.validate().is_ok());
        let long_user = FeedbackRequest {
            user: Some("u".repeat(101)),
            ..request()
        };
        assert!(
            long_user
                .validate()
                .unwrap_err()
                .to_string()
                .contains("100")
        );
        let bad_id = FeedbackRequest {
            feedback_id: Some("nope".into()),
            ..request()
        };
        assert!(bad_id.validate().is_err());
        let no_equals = FeedbackRequest {
            attributes: vec!["steel".into()],
            ..request()
        };
        assert!(no_equals.validate().is_err());
        let no_file = FeedbackRequest {
            file_uid: None,
            ..request()
        };
        assert!(no_file.validate().is_err());
    }
}
