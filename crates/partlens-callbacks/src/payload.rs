//! What a callback says: the JSON body (`type`, `timestamp`, `data` with the file's UID, stored
//! path, event, status, index timestamp, failure reason and `callbackParam`) and the delivery that
//! carries it, with its `webhook-id` fixed when the event is recorded.

use serde::Serialize;

use partlens_store::model::{FileRecord, IndexState, NewDelivery};

/// The file an event is about, as the body's `data` gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventData {
    /// The file's UID (`fileUID`).
    #[serde(rename = "UID")]
    pub uid: String,
    /// Its stored path (`FileName`).
    pub stored_path: String,
    /// The event's name (as `type`).
    pub event: String,
    /// The file's state after the event: `completed`, `failed`, `deleted` (`test` for
    /// `callback.test`).
    pub status: String,
    /// When indexing completed (ISO 8601), if it did.
    pub index_timestamp: Option<String>,
    /// Why indexing failed, in words, if it did.
    pub failure_reason: Option<String>,
    /// The `callbackParam` of the file's upload, if one was sent.
    pub callback_param: Option<String>,
}

impl EventData {
    /// The data of `event` about `record`, uploaded with `callback_param`; `deleted` says the
    /// file is gone.
    pub fn of_file(
        event: &str,
        record: &FileRecord,
        callback_param: Option<String>,
        deleted: bool,
    ) -> Self {
        let status = if deleted {
            "deleted"
        } else {
            match record.state {
                IndexState::Completed => "completed",
                IndexState::Failed => "failed",
                IndexState::Queued => "queued",
                IndexState::InProgress => "in_progress",
            }
        };
        Self {
            uid: record.uid.clone(),
            stored_path: record.stored_path.clone(),
            event: event.to_owned(),
            status: status.to_owned(),
            index_timestamp: record.indexed_at.clone(),
            failure_reason: record.failure_reason.clone(),
            callback_param,
        }
    }
}

/// The JSON body of a callback.
#[derive(Serialize)]
struct Body<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    timestamp: String,
    data: &'a EventData,
}

/// A new delivery of `data` to `company_id`'s callback, the event happening at `now_ms` (Unix
/// milliseconds): a fresh `webhook-id` (`msg_` and a UUID) and its JSON body.
pub fn new_delivery(company_id: &str, data: &EventData, now_ms: i64) -> NewDelivery {
    let timestamp = chrono::DateTime::from_timestamp_millis(now_ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let body = Body {
        kind: &data.event,
        timestamp,
        data,
    };
    NewDelivery {
        id: format!("msg_{}", uuid::Uuid::new_v4().simple()),
        company_id: company_id.to_owned(),
        event: data.event.clone(),
        payload: serde_json::to_string(&body).unwrap_or_else(|_| "{}".into()),
        created_at: now_ms,
    }
}

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_names_its_type_time_and_every_field_of_the_file() {
        let data = EventData {
            uid: "u".into(),
            stored_path: "A/b.png".into(),
            event: "indexing.completed".into(),
            status: "completed".into(),
            index_timestamp: Some("2026-01-01T00:00:00Z".into()),
            failure_reason: None,
            callback_param: Some("job-7".into()),
        };
        let delivery = new_delivery("c", &data, 1_700_000_000_000);
        assert!(delivery.id.starts_with("msg_"));
        let body: serde_json::Value = serde_json::from_str(&delivery.payload).unwrap();
        assert_eq!(body["type"], "indexing.completed");
        assert_eq!(body["timestamp"], "2023-11-14T22:13:20.000Z");
        assert_eq!(body["data"]["UID"], "u");
        assert_eq!(body["data"]["StoredPath"], "A/b.png");
        assert_eq!(body["data"]["Event"], "indexing.completed");
        assert_eq!(body["data"]["Status"], "completed");
        assert_eq!(body["data"]["IndexTimestamp"], "2026-01-01T00:00:00Z");
        assert_eq!(body["data"]["FailureReason"], serde_json::Value::Null);
        assert_eq!(body["data"]["CallbackParam"], "job-7");
    }
}
