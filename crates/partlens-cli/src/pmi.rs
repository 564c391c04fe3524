//! Extracted data: `pmi UID` (the PMI string parsed into pages) and `feedback UID --attrs …`.

use clap::Args;
use serde::Serialize;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use partlens_api::{FeedbackRequest, FileUid, PmiData};

/// The long help of `pmi` (shown by `--help`).
pub const PMI_HELP: &str = "Print what the service extracted from a file (GET /api/PMIData), with the PMI string \
parsed:\n\n\
{\"pages\": [{\"page\": 1, \"image_size\": [w, h], \"items\": [{\"box\": [l, t, r, b], \"type_id\": 2, \
\"text\": \"...\"}]}], \"unstructured_text\": \"...\", \"extracted_attributes\": [\"name=value\", ...]}";

/// Arguments of `pmi`.
#[derive(Debug, Args)]
pub struct PmiArgs {
    /// The file's UID (a GUID).
    pub uid: String,
}

/// The long help of `feedback` (shown by `--help`).
pub const FEEDBACK_HELP: &str = "Send feedback on the attributes the service extracted from a file \
(PUT /api/ExtractedAttributeFeedback) and print {\"feedback_id\": \"...\"}.\n\n\
--attrs lists the extracted attributes the feedback is about, comma-separated (\"a=b,c=d\"). \
--text is the explanation (at most 300 characters), --user an external user identifier (at most \
100 characters); longer ones are refused before anything is sent.";

/// Arguments of `feedback`.
#[derive(Debug, Args)]
pub struct FeedbackArgs {
    /// The file's UID (a GUID).
    pub uid: String,
    /// The extracted attributes the feedback is about: "name=value,name=value".
    #[arg(long, value_name = "NAME=VALUE,...")]
    pub attrs: String,
    /// The explanation, at most 300 characters.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    /// An external user identifier, at most 100 characters (not the login user).
    #[arg(long, value_name = "ID")]
    pub user: Option<String>,
}

/// The JSON of `pmi`.
#[derive(Debug, Serialize)]
pub struct PmiLine {
    /// The pages with their items.
    pub pages: Vec<PmiPageLine>,
    /// Extracted free text.
    pub unstructured_text: String,
    /// Extracted attributes, `name=value`.
    pub extracted_attributes: Vec<String>,
}

/// One page of `pmi`'s output.
#[derive(Debug, Serialize)]
pub struct PmiPageLine {
    /// Page number.
    pub page: i64,
    /// Width and height of the page image in pixels.
    pub image_size: [i64; 2],
    /// The items on the page.
    pub items: Vec<PmiItemLine>,
}

/// One PMI item of `pmi`'s output.
#[derive(Debug, Serialize)]
pub struct PmiItemLine {
    /// Left, top, right, bottom in page pixels.
    #[serde(rename = "box")]
    pub box_in_page: [i64; 4],
    /// The kind of item.
    pub type_id: i64,
    /// The text read there.
    pub text: String,
}

impl From<PmiData> for PmiLine {
    fn from(data: PmiData) -> Self {
        Self {
            pages: data
                .pages
                .into_iter()
                .map(|page| PmiPageLine {
                    page: page.page,
                    image_size: page.image_size,
                    items: page
                        .items
                        .into_iter()
                        .map(|item| PmiItemLine {
                            box_in_page: item.box_in_page,
                            type_id: item.type_id,
                            text: item.text,
                        })
                        .collect(),
                })
                .collect(),
            unstructured_text: data.unstructured_text,
            extracted_attributes: data.extracted_attributes,
        }
    }
}

/// The JSON line of `feedback`.
#[derive(Debug, Serialize)]
struct FeedbackLine {
    feedback_id: String,
}

/// The feedback request of `feedback`'s arguments, checked against the interface's limits.
pub fn feedback_request(args: &FeedbackArgs) -> Result<FeedbackRequest, CliError> {
    let attributes: Vec<String> = args
        .attrs
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect();
    if attributes.is_empty() {
        return Err(CliError::Usage(
            "--attrs needs at least one name=value".into(),
        ));
    }
    let request = FeedbackRequest {
        file_uid: Some(FileUid::parse(&args.uid)?),
        attributes,
        feedback: args.text.clone(),
        user: args.user.clone(),
        feedback_id: None,
    };
    request.validate()?;
    Ok(request)
}

/// Runs `pmi`.
pub async fn run_pmi(args: PmiArgs, session: &mut Session) -> Result<(), CliError> {
    let uid = FileUid::parse(&args.uid)?;
    let client = session.client().await?;
    let data = client.pmi_data(&uid).await?;
    print_json(&PmiLine::from(data))
}

/// Runs `feedback`.
pub async fn run_feedback(args: FeedbackArgs, session: &mut Session) -> Result<(), CliError> {
    let request = feedback_request(&args)?;
    let client = session.client().await?;
    let feedback_id = client.send_feedback(&request).await?;
    print_json(&FeedbackLine { feedback_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(attrs: &str) -> FeedbackArgs {
        FeedbackArgs {
            uid: "3f2504e0-4f89-41d3-9a0c-0305e82c3301".into(),
            attrs: attrs.into(),
            text: None,
            user: None,
        }
    }

    #[test]
    fn attrs_are_split_on_commas() {
        let request = feedback_request(&args("material=steel, finish=anodized,")).unwrap();
        assert_eq!(
            request.attributes,
            vec!["material=steel", "finish=anodized"]
        );
        assert!(feedback_request(&args(" , ")).is_err());
        assert!(feedback_request(&args("steel")).is_err());
    }
}
