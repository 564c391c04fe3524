//! The clock as the store writes it: upload and index times as ISO 8601 UTC text (compared as
//! text, in that order), token expiry as Unix seconds.

/// Now as Unix seconds.
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Now as an ISO 8601 UTC timestamp with milliseconds (`2026-11-22T04:53:09.123Z`).
pub fn iso_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
