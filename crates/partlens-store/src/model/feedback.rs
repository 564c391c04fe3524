//! Feedback on extracted attributes (`PUT /api/ExtractedAttributeFeedback`), as stored.

/// One feedback as stored. A feedback of the same company and ID replaces the earlier one; an ID
/// another company used is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// The feedback ID (caller-supplied GUID or a new one).
    pub id: String,
    /// The file it is about.
    pub file_uid: String,
    /// The caller's company.
    pub company_id: String,
    /// The caller.
    pub user_id: i64,
    /// The `user` parameter: an external user identifier (empty when not given).
    pub external_user: String,
    /// The explanation (empty when not given).
    pub feedback: String,
    /// The `name=value` items of the body.
    pub attributes: Vec<String>,
}

impl Feedback {
    /// The attributes as stored: a JSON array of strings.
    pub fn attributes_json(&self) -> String {
        serde_json::to_string(&self.attributes).unwrap_or_else(|_| "[]".into())
    }
}
