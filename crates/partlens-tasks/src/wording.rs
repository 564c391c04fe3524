//! The sentences users read when something fails: [`explain`] turns an [`ApiError`] into what
//! happened and what to do next, in the words of what the user was doing ([`Attempt`]). Every view and
//! task that shows a failed call uses it, so a 401 or a network failure reads the same everywhere.

use partlens_api::ApiError;

/// What the user was doing when a call failed: it picks the words of [`explain`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// Logging in to a remote service.
    LogIn,
    /// Searching (uploading views, searching by them).
    Search,
    /// Uploading a file as a job.
    Upload,
    /// Loading a file's record for the detail view.
    LoadRecord,
    /// Deleting a file.
    DeleteFile,
    /// Saving or clearing a file's attributes.
    SaveAttributes,
    /// Loading a file's drawing data (PMI).
    LoadPmi,
    /// Sending feedback on extracted attributes.
    SendFeedback,
    /// Syncing one file of a library folder (uploading it, setting its attributes, deleting it).
    Sync,
}

/// The words [`explain`] builds its sentences from.
struct Words {
    /// A failure without a better sentence: "The file was not deleted" (then ": why.").
    failed: &'static str,
    /// What the service refused, after "The service refused ": "the delete".
    refused: &'static str,
    /// What to do after a refusal (400): "Check the file and retry".
    check: &'static str,
    /// Who may, after a 403: "Only an admin may …".
    forbidden: &'static str,
    /// What to do after logging in again: "delete the file".
    again: &'static str,
    /// What to do when the service could not be reached.
    unreachable: &'static str,
    /// What to do about a local file that cannot be read.
    unreadable: &'static str,
    /// What of the user's work is kept, when something is: "the form is kept".
    kept: Option<&'static str>,
    /// True when the call is about one file (a 404 means that file is gone).
    about_a_file: bool,
}

impl Attempt {
    fn words(self) -> Words {
        const ASK_AN_ADMIN: &str = "Ask an admin for access";
        const IN_A_MOMENT: &str = "Try again in a moment";
        match self {
            Self::LogIn => Words {
                failed: "The login failed",
                refused: "the login",
                check: "Check the user name and password",
                forbidden: ASK_AN_ADMIN,
                again: "carry on",
                unreachable: "Check the address and your connection",
                unreadable: "",
                kept: None,
                about_a_file: false,
            },
            Self::Search => Words {
                failed: "The search failed",
                refused: "the search",
                check: "Check the views and filters",
                forbidden: ASK_AN_ADMIN,
                again: "search again",
                unreachable: "Check the connection, then search again",
                unreadable: "Remove it or add it again",
                kept: None,
                about_a_file: false,
            },
            Self::Upload => Words {
                failed: "The upload failed",
                refused: "the upload",
                check: "Check the file and retry",
                forbidden: ASK_AN_ADMIN,
                again: "retry",
                unreachable: "Check the connection and retry",
                unreadable: "Put the file back and retry",
                kept: None,
                about_a_file: false,
            },
            Self::LoadRecord => Words {
                failed: "The file could not be loaded",
                refused: "to show this file",
                check: IN_A_MOMENT,
                forbidden: ASK_AN_ADMIN,
                again: "open the file again",
                unreachable: IN_A_MOMENT,
                unreadable: "",
                kept: None,
                about_a_file: true,
            },
            Self::DeleteFile => Words {
                failed: "The file was not deleted",
                refused: "the delete",
                check: IN_A_MOMENT,
                forbidden: "Only an admin may delete company files; you can delete the search \
                            inputs you uploaded",
                again: "delete the file",
                unreachable: IN_A_MOMENT,
                unreadable: "",
                kept: None,
                about_a_file: true,
            },
            Self::SaveAttributes => Words {
                failed: "The attributes were not saved",
                refused: "the attributes",
                check: "Correct them and save again",
                forbidden: ASK_AN_ADMIN,
                again: "save them",
                unreachable: "Check the connection and try again",
                unreadable: "",
                kept: Some(
                    "your edits are kept as a draft and offered when you open this file again",
                ),
                about_a_file: true,
            },
            Self::LoadPmi => Words {
                failed: "The drawing data could not be loaded",
                refused: "to show the drawing data",
                check: IN_A_MOMENT,
                forbidden: ASK_AN_ADMIN,
                again: "open the drawing data again",
                unreachable: IN_A_MOMENT,
                unreadable: "",
                kept: None,
                about_a_file: true,
            },
            Self::SendFeedback => Words {
                failed: "The feedback was not sent",
                refused: "the feedback",
                check: "Correct the form and send again",
                forbidden: ASK_AN_ADMIN,
                again: "send the feedback",
                unreachable: "Check the connection and try again in a moment",
                unreadable: "",
                kept: Some("the form is kept"),
                about_a_file: true,
            },
            Self::Sync => Words {
                failed: "The file was not synced",
                refused: "the file",
                check: "Correct the file and sync again",
                forbidden: "Only an admin may replace or delete company files; ask an admin to \
                            run the sync",
                again: "sync again",
                unreachable: "Sync again when the service is back",
                unreadable: "Put the file back and sync again",
                kept: None,
                about_a_file: false,
            },
        }
    }
}

/// An error of a call as a sentence for the user: what happened, what to do next, and what of their
/// work is kept.
pub fn explain(error: &ApiError, attempt: Attempt) -> String {
    let words = attempt.words();
    let (happened, next) = match error {
        ApiError::Unauthorized => (
            "Your session has ended.".to_owned(),
            format!("Log in again, then {}", words.again),
        ),
        ApiError::Network(detail) => (
            format!("The service could not be reached ({}).", clause(detail)),
            words.unreachable.to_owned(),
        ),
        ApiError::Server { status, message } => (
            format!("The service failed (HTTP {status}: {}).", clause(message)),
            "Try again in a moment".to_owned(),
        ),
        ApiError::Forbidden { message } => (
            format!(
                "The service refused {}: {}.",
                words.refused,
                clause(message)
            ),
            words.forbidden.to_owned(),
        ),
        ApiError::NotFound { .. } if words.about_a_file => (
            "This file no longer exists for your company: it was never uploaded or has been \
             deleted."
                .to_owned(),
            String::new(),
        ),
        ApiError::BadRequest { message, .. } | ApiError::LoginRefused { message, .. } => (
            format!(
                "The service refused {}: {}.",
                words.refused,
                clause(message)
            ),
            words.check.to_owned(),
        ),
        ApiError::InvalidInput(detail) => (format!("{}.", clause(detail)), String::new()),
        ApiError::File { path, message } if !words.unreadable.is_empty() => (
            format!("{path} cannot be read ({}).", clause(message)),
            words.unreadable.to_owned(),
        ),
        other => (
            format!("{}: {}.", words.failed, clause(&other.to_string())),
            String::new(),
        ),
    };
    match (next.is_empty(), words.kept) {
        (true, None) => happened,
        (false, None) => format!("{happened} {next}."),
        (true, Some(kept)) => format!("{happened} {}.", capitalised(kept)),
        (false, Some(kept)) => format!("{happened} {next}; {kept}."),
    }
}

/// `text` with its first letter upper case.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `text` without surrounding space and a final full stop, to be embedded in a longer sentence
/// ("refused: The password is wrong. Check…" instead of "wrong.. Check…").
pub fn clause(text: &str) -> &str {
    text.trim().trim_end_matches('.').trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_full_stop_is_dropped() {
        assert_eq!(
            clause(" The password is incorrect. "),
            "The password is incorrect"
        );
        assert_eq!(clause("no stop"), "no stop");
        assert_eq!(clause("…"), "…");
    }

    #[test]
    fn login_failures_read_as_sentences_with_a_next_step() {
        let refused = explain(
            &ApiError::LoginRefused {
                status: 400,
                message: "The user name or password is incorrect.".into(),
            },
            Attempt::LogIn,
        );
        assert!(
            refused.contains("Check the user name and password"),
            "{refused}"
        );
        let network = explain(
            &ApiError::Network("connection refused".into()),
            Attempt::LogIn,
        );
        assert!(network.contains("Check the address"), "{network}");
        assert!(network.contains("could not be reached"), "{network}");
    }

    #[test]
    fn upload_failures_say_what_to_do() {
        let refused = explain(
            &ApiError::BadRequest {
                status: 400,
                message: "upload smaller than 1024 bytes".into(),
            },
            Attempt::Upload,
        );
        assert!(refused.starts_with("The service refused the upload: upload smaller"));
        assert!(refused.ends_with("Check the file and retry."));
        let small = explain(
            &ApiError::InvalidInput("a.png is too small to upload".into()),
            Attempt::Upload,
        );
        assert_eq!(small, "a.png is too small to upload.");
    }

    #[test]
    fn delete_errors_are_explained_in_words() {
        let delete = |error: ApiError| explain(&error, Attempt::DeleteFile);
        let forbidden = delete(ApiError::from_status(403, "false"));
        assert!(
            forbidden.contains(
                "Only an admin may delete company files; you can delete the search inputs you \
                 uploaded."
            ),
            "{forbidden}"
        );
        assert!(delete(ApiError::from_status(404, "")).contains("no longer exists"));
        assert!(delete(ApiError::Unauthorized).contains("Log in again"));
        assert!(delete(ApiError::Network("down".into())).contains("Try again"));
    }

    #[test]
    fn a_missing_file_reads_the_same_for_its_record_and_its_drawing_data() {
        for attempt in [Attempt::LoadRecord, Attempt::LoadPmi] {
            let text = explain(&ApiError::from_status(404, ""), attempt);
            assert!(
                text.contains("never uploaded or has been deleted"),
                "{text}"
            );
        }
    }

    #[test]
    fn what_is_kept_is_said_after_the_next_step() {
        let saved = explain(&ApiError::Unauthorized, Attempt::SaveAttributes);
        assert!(saved.contains("Log in again"), "{saved}");
        assert!(saved.contains("your edits are kept as a draft"), "{saved}");
        let feedback = explain(
            &ApiError::Network("connection refused".into()),
            Attempt::SendFeedback,
        );
        assert!(feedback.contains("try again"), "{feedback}");
        assert!(feedback.ends_with("the form is kept."), "{feedback}");
        let gone = explain(&ApiError::from_status(404, ""), Attempt::SendFeedback);
        assert!(gone.ends_with("deleted. The form is kept."), "{gone}");
    }
}
