//! `duplicates [--min-score S]`: the groups of the company's database files that are the same
//! part (same shape and size, any format or name), as this project's service finds them
//! (`GET /api/Duplicates`).

use clap::Args;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;

/// The long help of `duplicates` (shown by `--help`).
pub const DUPLICATES_HELP: &str = "List the groups of your company's database files that are the \
same part: the same shape at the same size, whatever their format or name (a STEP file and the STL \
exported from it, a model uploaded twice) (GET /api/Duplicates, an extension of partlens's own \
service).\n\n\
Prints {\"MinScore\", \"FilesCompared\", \"Groups\": [{\"Score\", \"Files\": [{\"UID\", \"FileName\", \
\"DisplayName\", \"SizeMm\"}]}]}, the groups highest score first; a group's score is the weakest \
pair score that joined it, SizeMm a model's extents in millimetres, smallest first (empty for a \
picture or drawing). Models are grouped only with models of the same size (within 3 %).";

/// Arguments of `duplicates`.
#[derive(Debug, Args)]
pub struct DuplicatesArgs {
    /// The lowest pair score (0 to 1) taken for the same part; the service's default (0.885) if not
    /// given.
    #[arg(long, value_name = "S")]
    pub min_score: Option<f64>,
}

/// Runs `duplicates`.
pub async fn run(args: DuplicatesArgs, session: &mut Session) -> Result<(), CliError> {
    if let Some(score) = args.min_score
        && !(0.0..=1.0).contains(&score)
    {
        return Err(CliError::Usage(format!(
            "--min-score {score} is not a number from 0 to 1"
        )));
    }
    let client = session.client().await?;
    print_json(&client.duplicates_json(args.min_score).await?)
}
