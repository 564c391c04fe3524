//! Feedback on the attributes the service extracted from a file: which attributes the feedback is
//! about (checkboxes), right or wrong with the correct value, an explanation (at most 300
//! characters), the reviewer's identifier (at most 100, prefilled with the logged-in user's name),
//! sent as `PUT /api/ExtractedAttributeFeedback`.
//!
//! Like the attribute editor's drafts, the form is plain serde data ([`FeedbackDraft`]) kept per file
//! in [`FeedbackDrafts`], which the app persists: leaving the view, a refusal, a failure or a 401
//! leaves it there, and opening the file's PMI again brings it back. A draft leaves the store only
//! when the service has stored the feedback.
//!
//! Each draft carries a feedback id (a GUID) chosen when it is made and sent with every attempt, so a
//! feedback sent again (after a 401, or after a reply that got lost) replaces itself at the service
//! instead of being stored twice.

use crate::ui::drafts::{DraftsByFile, FileDraft};
use partlens_api::limits::{MAX_FEEDBACK_CHARS, MAX_FEEDBACK_USER_CHARS};
use partlens_api::{ApiError, FeedbackRequest, FileUid};
use partlens_tasks::wording::{Attempt, explain};

/// Whether an extracted attribute is right or wrong.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// The extracted value is right (it is sent as it is).
    #[default]
    Right,
    /// The extracted value is wrong; the correct value is sent.
    Wrong,
}

/// The review of one extracted attribute.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AttributeReview {
    /// The attribute as the service extracted it, `name=value`.
    pub extracted: String,
    /// The feedback is about this attribute.
    pub selected: bool,
    /// Right or wrong.
    pub verdict: Verdict,
    /// The correct value (starts as the extracted one), sent when the verdict is wrong.
    pub correct_value: String,
}

impl AttributeReview {
    /// An unselected review of an extracted `name=value`.
    pub fn new(extracted: impl Into<String>) -> Self {
        let extracted = extracted.into();
        let correct_value = split_attribute(&extracted).1.to_owned();
        Self {
            extracted,
            selected: false,
            verdict: Verdict::Right,
            correct_value,
        }
    }

    /// The attribute's name.
    pub fn name(&self) -> &str {
        split_attribute(&self.extracted).0
    }

    /// The extracted value.
    pub fn extracted_value(&self) -> &str {
        split_attribute(&self.extracted).1
    }

    /// The `name=value` this review sends: the extracted one when right, the corrected one when
    /// wrong. Refused with a sentence when the correct value cannot be sent.
    pub fn to_wire(&self) -> Result<String, String> {
        match self.verdict {
            Verdict::Right => Ok(self.extracted.clone()),
            Verdict::Wrong => {
                let value = self.correct_value.trim();
                if value.is_empty() {
                    return Err(format!(
                        "Type the correct value of {}, or mark it right.",
                        self.name()
                    ));
                }
                if value.contains(',') {
                    return Err(format!(
                        "The correct value of {} contains \",\", which separates the attributes \
                         of a feedback: leave it out.",
                        self.name()
                    ));
                }
                Ok(format!("{}={value}", self.name()))
            }
        }
    }
}

/// `name=value` split at the first `=` (no `=`: all name).
fn split_attribute(text: &str) -> (&str, &str) {
    text.split_once('=').unwrap_or((text, ""))
}

/// The feedback form of one file, as plain data.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FeedbackDraft {
    /// The file.
    pub file_uid: FileUid,
    /// One review per extracted attribute.
    pub reviews: Vec<AttributeReview>,
    /// The explanation.
    pub explanation: String,
    /// The reviewer's identifier.
    pub user: String,
    /// The feedback id sent with every attempt of this draft.
    pub feedback_id: String,
}

impl FeedbackDraft {
    /// An empty form for a file's extracted attributes, signed by `user`.
    pub fn new(file_uid: FileUid, extracted: &[String], user: &str) -> Self {
        Self {
            file_uid,
            reviews: extracted.iter().map(AttributeReview::new).collect(),
            explanation: String::new(),
            user: user.to_owned(),
            feedback_id: uuid::Uuid::new_v4().to_string(),
        }
    }

    /// Follows the attributes the service has now: reviews of attributes still extracted are kept,
    /// new attributes get a review, attributes no longer extracted are dropped.
    pub fn reconcile(&mut self, extracted: &[String]) {
        let mut previous = std::mem::take(&mut self.reviews);
        self.reviews = extracted
            .iter()
            .map(|text| {
                previous
                    .iter()
                    .position(|review| &review.extracted == text)
                    .map(|index| previous.remove(index))
                    .unwrap_or_else(|| AttributeReview::new(text.clone()))
            })
            .collect();
    }

    /// True when the reviewer has entered something worth keeping.
    pub fn has_content(&self) -> bool {
        self.reviews.iter().any(|review| review.selected) || !self.explanation.trim().is_empty()
    }

    /// The explanation's length in characters (what the 300 limit counts).
    pub fn explanation_chars(&self) -> usize {
        self.explanation.chars().count()
    }

    /// The request this form sends, or the sentence saying why it cannot be sent yet.
    pub fn to_request(&self) -> Result<FeedbackRequest, String> {
        let count = self.explanation_chars();
        if count > MAX_FEEDBACK_CHARS {
            return Err(format!(
                "The explanation is {count} characters; the service accepts at most \
                 {MAX_FEEDBACK_CHARS}. Shorten it by {} and send again.",
                count - MAX_FEEDBACK_CHARS
            ));
        }
        let user_count = self.user.trim().chars().count();
        if user_count > MAX_FEEDBACK_USER_CHARS {
            return Err(format!(
                "The user identifier is {user_count} characters; the service accepts at most \
                 {MAX_FEEDBACK_USER_CHARS}. Shorten it."
            ));
        }
        let attributes = self
            .reviews
            .iter()
            .filter(|review| review.selected)
            .map(AttributeReview::to_wire)
            .collect::<Result<Vec<_>, _>>()?;
        let explanation = self.explanation.trim();
        if attributes.is_empty() && explanation.is_empty() {
            return Err(
                "Select the attributes the feedback is about, or write an explanation.".to_owned(),
            );
        }
        let request = FeedbackRequest {
            file_uid: Some(self.file_uid.clone()),
            attributes,
            feedback: Some(explanation.to_owned()).filter(|text| !text.is_empty()),
            user: Some(self.user.trim().to_owned()).filter(|user| !user.is_empty()),
            feedback_id: Some(self.feedback_id.clone()),
        };
        // The interface's own checks, so nothing is sent that the service would refuse.
        request
            .validate()
            .map_err(|error| format!("The feedback cannot be sent: {error}."))?;
        Ok(request)
    }
}

impl FileDraft for FeedbackDraft {
    fn file_uid(&self) -> &FileUid {
        &self.file_uid
    }
}

/// Unsent feedback of every file, by UID: what the app persists.
pub type FeedbackDrafts = DraftsByFile<FeedbackDraft>;

/// The line under the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedbackNotice {
    /// The service stored the feedback under this id.
    Sent(String),
    /// The form was not sent: the sentence says why and what to change.
    Refused(String),
    /// The service refused or could not be reached; the form is kept.
    Failed(String),
    /// The session ended; the feedback is sent after the login.
    AwaitingLogin,
}

/// The feedback form and the drafts it keeps.
#[derive(Debug, Default)]
pub struct FeedbackForm {
    drafts: FeedbackDrafts,
    draft: Option<FeedbackDraft>,
    sending: bool,
    notice: Option<FeedbackNotice>,
    reviewer: String,
}

impl FeedbackForm {
    /// A form with the drafts the app restored from its storage.
    pub fn new(drafts: FeedbackDrafts) -> Self {
        Self {
            drafts,
            ..Self::default()
        }
    }

    /// The drafts to persist (every file with unsent feedback).
    pub fn drafts(&self) -> &FeedbackDrafts {
        &self.drafts
    }

    /// The form shown.
    pub fn draft(&self) -> Option<&FeedbackDraft> {
        self.draft.as_ref()
    }

    /// The form shown, to change it (kept on the next frame).
    pub fn draft_mut(&mut self) -> Option<&mut FeedbackDraft> {
        self.draft.as_mut()
    }

    /// The line under the form.
    pub fn notice(&self) -> Option<&FeedbackNotice> {
        self.notice.as_ref()
    }

    /// True while a feedback is on its way.
    pub fn is_sending(&self) -> bool {
        self.sending
    }

    /// The logged-in user's name, prefilled as the reviewer's identifier of new forms (and of the
    /// form shown, when its identifier is still empty).
    pub fn set_reviewer(&mut self, name: &str) {
        self.reviewer = name.to_owned();
        if let Some(draft) = &mut self.draft
            && draft.user.trim().is_empty()
        {
            draft.user = name.to_owned();
        }
    }

    /// Shows the form of a file with these extracted attributes: its kept draft if there is one,
    /// else a new one.
    pub fn open(&mut self, uid: &FileUid, extracted: &[String]) {
        if self
            .draft
            .as_ref()
            .is_some_and(|draft| draft.file_uid.canonical() == uid.canonical())
        {
            if let Some(draft) = &mut self.draft {
                draft.reconcile(extracted);
            }
            return;
        }
        self.keep_current_draft();
        let draft = match self.drafts.get(uid) {
            Some(kept) => {
                let mut kept = kept.clone();
                kept.reconcile(extracted);
                kept
            }
            None => FeedbackDraft::new(uid.clone(), extracted, &self.reviewer),
        };
        self.draft = Some(draft);
        self.sending = false;
        self.notice = None;
    }

    /// Keeps the form shown in the store when it has content, and forgets it when it has none.
    fn keep_current_draft(&mut self) {
        let Some(draft) = &self.draft else {
            return;
        };
        if draft.has_content() {
            self.drafts.put(draft.clone());
        } else {
            self.drafts.remove(&draft.file_uid);
        }
    }

    /// The user pressed Send: the request to send, or `None` with the refusal shown.
    pub fn submit(&mut self) -> Option<FeedbackRequest> {
        let draft = self.draft.as_ref()?;
        if self.sending {
            return None;
        }
        match draft.to_request() {
            Ok(request) => {
                self.sending = true;
                self.notice = None;
                self.keep_current_draft();
                Some(request)
            }
            Err(reason) => {
                self.notice = Some(FeedbackNotice::Refused(reason));
                self.keep_current_draft();
                None
            }
        }
    }

    fn is_showing(&self, uid: &FileUid) -> bool {
        self.draft
            .as_ref()
            .is_some_and(|draft| draft.file_uid.canonical() == uid.canonical())
    }

    /// The service stored the feedback of `uid`: its draft is dropped and the form starts over.
    pub fn sent(&mut self, uid: &FileUid, feedback_id: &str) {
        self.drafts.remove(uid);
        if self.is_showing(uid)
            && let Some(draft) = &self.draft
        {
            let extracted: Vec<String> = draft
                .reviews
                .iter()
                .map(|review| review.extracted.clone())
                .collect();
            let user = draft.user.clone();
            self.draft = Some(FeedbackDraft::new(uid.clone(), &extracted, &user));
            self.sending = false;
            self.notice = Some(FeedbackNotice::Sent(feedback_id.to_owned()));
        }
    }

    /// Sending the feedback of `uid` failed: the form stays as it is, and the sentence says why.
    pub fn failed(&mut self, uid: &FileUid, error: &ApiError) {
        if self.is_showing(uid) {
            self.sending = false;
            self.notice = Some(FeedbackNotice::Failed(explain(
                error,
                Attempt::SendFeedback,
            )));
            self.keep_current_draft();
        }
    }

    /// The feedback of `uid` met a 401: it waits for the login and is sent after it.
    pub fn awaiting_login(&mut self, uid: &FileUid) {
        if self.is_showing(uid) {
            self.notice = Some(FeedbackNotice::AwaitingLogin);
        }
    }

    /// Draws the form; returns the request to send when the user pressed Send and the form is valid.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<FeedbackRequest> {
        let mut send = false;
        let sending = self.sending;
        let Some(draft) = &mut self.draft else {
            return None;
        };
        if draft.reviews.is_empty() {
            ui.weak("The service extracted no attributes from this file.");
        } else {
            ui.weak(
                "Tick the attributes your feedback is about; mark each right or wrong, and give \
                 the correct value of a wrong one.",
            );
            // One attribute a block (its value on a line of its own, the verdict and the correct
            // value under it), so that a long value and the fields fit a narrow window.
            for review in &mut draft.reviews {
                review_row_ui(ui, review);
                ui.add_space(4.0);
            }
        }
        ui.add_space(6.0);
        let count = draft.explanation_chars();
        let explanation_label = ui
            .horizontal(|ui| {
                let label = ui.label("Explanation");
                let counter = format!("{count}/{MAX_FEEDBACK_CHARS}");
                if count > MAX_FEEDBACK_CHARS {
                    ui.colored_label(ui.visuals().error_fg_color, counter)
                        .on_hover_text(format!(
                            "The service accepts at most {MAX_FEEDBACK_CHARS} characters."
                        ));
                } else {
                    ui.weak(counter);
                }
                label.id
            })
            .inner;
        ui.add(
            egui::TextEdit::multiline(&mut draft.explanation)
                .hint_text("What is wrong or right, and why")
                .desired_rows(3)
                .desired_width(f32::INFINITY),
        )
        .labelled_by(explanation_label)
        .on_hover_text(format!(
            "Sent as the feedback's explanation, at most {MAX_FEEDBACK_CHARS} characters"
        ));
        ui.horizontal(|ui| {
            let label = ui.label("Your user identifier");
            ui.add(egui::TextEdit::singleline(&mut draft.user).desired_width(220.0))
                .labelled_by(label.id);
            let user_count = draft.user.trim().chars().count();
            if user_count > MAX_FEEDBACK_USER_CHARS {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("{user_count}/{MAX_FEEDBACK_USER_CHARS}"),
                );
            }
        });
        ui.horizontal(|ui| {
            send = ui
                .add_enabled(!sending, egui::Button::new("Send feedback"))
                .clicked();
            if sending {
                ui.spinner();
                ui.label("Sending…");
            }
        });
        match &self.notice {
            None => {}
            Some(FeedbackNotice::Sent(id)) => {
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(
                        crate::ui::theme::success_color(ui),
                        "The feedback was sent. Its id:",
                    );
                    ui.add(egui::Label::new(egui::RichText::new(id).monospace()).selectable(true));
                });
            }
            Some(FeedbackNotice::Refused(reason) | FeedbackNotice::Failed(reason)) => {
                ui.colored_label(ui.visuals().error_fg_color, reason);
            }
            Some(FeedbackNotice::AwaitingLogin) => {
                ui.colored_label(
                    crate::ui::theme::warning_color(ui),
                    "Your session has ended. Log in again: the feedback is sent after the login.",
                );
            }
        }
        let request = if send { self.submit() } else { None };
        self.keep_current_draft();
        request
    }
}

/// One attribute's row: the checkbox (its label is the extracted `name=value`), right or wrong, and
/// the correct value.
fn review_row_ui(ui: &mut egui::Ui, review: &mut AttributeReview) {
    let extracted = review.extracted.clone();
    ui.checkbox(&mut review.selected, extracted.as_str())
        .on_hover_text("Right-click to copy the value")
        .context_menu(|ui| {
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(extracted.clone());
                ui.close();
            }
        });
    ui.horizontal_wrapped(|ui| {
        if ui
            .radio_value(&mut review.verdict, Verdict::Right, "right")
            .changed()
        {
            review.selected = true;
        }
        if ui
            .radio_value(&mut review.verdict, Verdict::Wrong, "wrong")
            .changed()
        {
            review.selected = true;
        }
        let name = review.name().to_owned();
        let width = ui.available_width().clamp(80.0, 180.0);
        let edit = ui
            .add(
                egui::TextEdit::singleline(&mut review.correct_value)
                    .hint_text("correct value")
                    .desired_width(width),
            )
            .on_hover_text("The correct value, sent when the attribute is marked wrong")
            // One field per attribute: the accessible name says whose value this is.
            .accessible_name(format!("Correct value of {name}"));
        if edit.changed() {
            review.selected = true;
            review.verdict = if review.correct_value.trim() == review.extracted_value() {
                Verdict::Right
            } else {
                Verdict::Wrong
            };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

    fn extracted() -> Vec<String> {
        vec![
            "part_number=FL-100".to_owned(),
            "material=S235".to_owned(),
            "scale=1:2".to_owned(),
        ]
    }

    fn draft() -> FeedbackDraft {
        FeedbackDraft::new(FileUid::from_reply(UID), &extracted(), "alice")
    }

    #[test]
    fn the_body_holds_the_selected_attributes_with_corrections() {
        let mut draft = draft();
        draft.reviews[0].selected = true;
        draft.reviews[1].selected = true;
        draft.reviews[1].verdict = Verdict::Wrong;
        draft.reviews[1].correct_value = " 1.4301 ".into();
        draft.explanation = "  Material is stainless, not S235.  ".into();
        let request = draft.to_request().unwrap();
        assert_eq!(
            request.attributes,
            ["part_number=FL-100", "material=1.4301"]
        );
        assert_eq!(
            request.feedback.as_deref(),
            Some("Material is stainless, not S235.")
        );
        assert_eq!(request.user.as_deref(), Some("alice"));
        assert_eq!(request.file_uid, Some(FileUid::from_reply(UID)));
        assert!(uuid::Uuid::parse_str(request.feedback_id.as_deref().unwrap()).is_ok());
        assert_eq!(
            partlens_api::encoding::feedback_body(&request.attributes),
            "\"part_number=FL-100,material=1.4301\""
        );
    }

    #[test]
    fn limits_and_empty_forms_are_refused_before_sending() {
        let mut draft = draft();
        assert!(
            draft
                .to_request()
                .unwrap_err()
                .contains("Select the attributes")
        );
        draft.explanation = "é".repeat(300);
        assert!(draft.to_request().is_ok());
        draft.explanation = "x".repeat(312);
        let refusal = draft.to_request().unwrap_err();
        assert!(refusal.contains("312 characters"), "{refusal}");
        assert!(refusal.contains("Shorten it by 12"), "{refusal}");
        draft.explanation = "ok".into();
        draft.user = "u".repeat(101);
        assert!(draft.to_request().unwrap_err().contains("at most 100"));
        draft.user.clear();
        // An empty identifier is left out of the request.
        assert_eq!(draft.to_request().unwrap().user, None);
        draft.reviews[2].selected = true;
        draft.reviews[2].verdict = Verdict::Wrong;
        draft.reviews[2].correct_value = " ".into();
        assert!(
            draft
                .to_request()
                .unwrap_err()
                .contains("correct value of scale")
        );
        draft.reviews[2].correct_value = "1:2,1:5".into();
        assert!(draft.to_request().unwrap_err().contains("\",\""));
    }

    #[test]
    fn an_attribute_without_equals_reads_as_a_name() {
        let review = AttributeReview::new("revision");
        assert_eq!(review.name(), "revision");
        assert_eq!(review.extracted_value(), "");
        let review = AttributeReview::new("note=a=b");
        assert_eq!(review.name(), "note");
        assert_eq!(review.extracted_value(), "a=b");
        assert_eq!(review.correct_value, "a=b");
    }

    #[test]
    fn a_draft_survives_leaving_and_follows_the_extracted_attributes() {
        let uid = FileUid::from_reply(UID);
        let other = FileUid::from_reply("9a1b2c3d-4f89-41d3-9a0c-0305e82c3302");
        let mut form = FeedbackForm::default();
        form.set_reviewer("alice");
        form.open(&uid, &extracted());
        assert_eq!(form.draft().unwrap().user, "alice");
        {
            let draft = form.draft_mut().unwrap();
            draft.reviews[1].selected = true;
            draft.explanation = "check the material".into();
        }
        let id = form.draft().unwrap().feedback_id.clone();
        // Another file: the first form is kept; an untouched form is not.
        form.open(&other, &["width_px=10".to_owned()]);
        assert_eq!(form.drafts().len(), 1);
        form.open(&uid, &["material=S235".to_owned(), "revision=B".to_owned()]);
        assert!(form.drafts().get(&other).is_none());
        let draft = form.draft().unwrap();
        assert_eq!(draft.explanation, "check the material");
        assert_eq!(draft.feedback_id, id);
        assert_eq!(
            draft
                .reviews
                .iter()
                .map(|review| (review.extracted.as_str(), review.selected))
                .collect::<Vec<_>>(),
            [("material=S235", true), ("revision=B", false)]
        );
        // Persisted and read back, it is the same draft.
        let json = serde_json::to_string(form.drafts()).unwrap();
        let back: FeedbackDrafts = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, form.drafts());
    }

    #[test]
    fn a_failure_keeps_the_form_and_a_success_starts_over() {
        let uid = FileUid::from_reply(UID);
        let mut form = FeedbackForm::default();
        form.open(&uid, &extracted());
        form.draft_mut().unwrap().explanation = "x".repeat(301);
        assert_eq!(form.submit(), None);
        assert!(matches!(form.notice(), Some(FeedbackNotice::Refused(_))));
        assert_eq!(form.drafts().len(), 1);

        form.draft_mut().unwrap().explanation = "scale is 1:5".into();
        let request = form.submit().unwrap();
        assert!(form.is_sending());
        // A second press while sending sends nothing.
        assert_eq!(form.submit(), None);
        form.failed(&uid, &ApiError::Network("connection refused".into()));
        assert!(!form.is_sending());
        assert_eq!(form.draft().unwrap().explanation, "scale is 1:5");
        assert!(
            matches!(form.notice(), Some(FeedbackNotice::Failed(text)) if text.contains("try again"))
        );
        // Sent again, the same feedback id goes with it.
        assert_eq!(form.submit().unwrap().feedback_id, request.feedback_id);

        form.sent(&uid, "5b3a7a8e-2f6e-4c1a-9d2e-8f0a1b2c3d4e");
        assert!(form.drafts().is_empty());
        assert_eq!(
            form.notice(),
            Some(&FeedbackNotice::Sent(
                "5b3a7a8e-2f6e-4c1a-9d2e-8f0a1b2c3d4e".into()
            ))
        );
        let fresh = form.draft().unwrap();
        assert!(!fresh.has_content());
        assert_ne!(Some(fresh.feedback_id.clone()), request.feedback_id);
    }
}
