//! The partlens-cli commands, on top of `tasks` and `api`: JSON on stdout, one-line errors on stderr.
//!
//! This file holds the command-line definition (clap derive) and the dispatch; each command group lives
//! in its own file. Every command checks its arguments first (so a refused request sends nothing, not
//! even a login), then logs in once through [`session::Session`], then talks to the service.

pub mod attrs;
pub mod duplicates;
pub mod error;
pub mod files;
pub mod image;
pub mod library;
pub mod output;
pub mod pmi;
pub mod relations;
pub mod search;
pub mod session;
pub mod status;
pub mod sync;
pub mod upload;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use error::CliError;
pub use session::{Session, SessionArgs};

/// Text shown after the command list of `partlens-cli --help`.
const AFTER_HELP: &str = "\
Global options go before the command: partlens-cli --service URL --user NAME upload part.step

The password is never an argument: pipe it with --password-stdin or set PARTLENS_PASSWORD.
Output is one line of JSON on stdout. A failure exits with status 1 and prints one line on
stderr, naming the HTTP status where there is one (options the command line does not accept at
all exit with status 2). Quote values holding | in a shell: 'region=EU|US'.

Examples:
  echo \"$PW\" | partlens-cli --user alice --password-stdin upload drawing.png --async --wait
  partlens-cli search bracket.png --text \"pump housing\" --exact material=steel | jq .TotalResults
  partlens-cli attrs set --name Design/bracket.step material=steel 'region=EU|US'
  partlens-cli sync ./library --to Library --attributes ./library/attributes.csv --delete";

/// The long help of `attributes` (shown by `--help`).
const ATTRIBUTES_HELP: &str = "List the attributes used by your company (GET /api/FileAttributes): the \
FileAttribute list ([{\"ID\", \"Name\", \"Unit\", \"Value\", \"IsCustom\", \"Timestamp\"}]) as the service \
gives it.";

/// partlens-cli: the command-line client of the File Indexing and Search Service.
///
/// Uploads files for search or into the company database, reads and edits file records and their
/// attributes, reads extracted PMI and sends feedback, searches by files, text and attributes, and
/// downloads images. Every command logs in once with the global options and prints JSON on stdout.
#[derive(Debug, Parser)]
#[command(name = "partlens-cli", version, after_help = AFTER_HELP)]
pub struct Cli {
    /// Where the service is and who logs in.
    #[command(flatten)]
    pub session: SessionArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands of partlens-cli.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Upload a file as a search input, or into the company database with --database.
    #[command(long_about = upload::UPLOAD_HELP)]
    Upload(upload::UploadArgs),
    /// Show the indexing state of an uploaded file; with --wait, poll until it ends.
    #[command(long_about = status::STATUS_HELP)]
    Status(status::StatusArgs),
    /// Print a file record (FileMap) as the service gives it, by UID or stored path.
    #[command(long_about = files::FILE_HELP)]
    File(files::FileArgs),
    /// Delete a file by UID.
    #[command(long_about = files::DELETE_HELP)]
    Delete(files::DeleteArgs),
    /// List the attributes used by your company (FileAttribute list).
    #[command(long_about = ATTRIBUTES_HELP)]
    Attributes,
    /// Set or clear the attributes of a file.
    Attrs(attrs::AttrsArgs),
    /// List the distinct values of one attribute in your company, with counts.
    #[command(long_about = attrs::VALUES_HELP)]
    Values(attrs::ValuesArgs),
    /// Print the PMI, free text and attributes extracted from a file.
    #[command(long_about = pmi::PMI_HELP)]
    Pmi(pmi::PmiArgs),
    /// Send feedback on the attributes extracted from a file.
    #[command(long_about = pmi::FEEDBACK_HELP)]
    Feedback(pmi::FeedbackArgs),
    /// Search by files (views of one part), input UIDs, free text and attributes.
    #[command(long_about = search::SEARCH_HELP)]
    Search(search::SearchArgs),
    /// Download a file's thumbnail (or large image) to a path.
    #[command(long_about = image::IMAGE_HELP)]
    Image(image::ImageArgs),
    /// Keep a folder of part files in step with the company database (new and changed files).
    #[command(long_about = sync::SYNC_HELP)]
    Sync(sync::SyncArgs),
    /// List groups of database files that are the same part (same shape and size, any format).
    #[command(long_about = duplicates::DUPLICATES_HELP)]
    Duplicates(duplicates::DuplicatesArgs),
    /// List the company's database files, newest first, a page at a time.
    #[command(long_about = library::FILES_HELP)]
    Files(library::FilesArgs),
    /// Print where a file is used: the assemblies that hold it, up to the top ones.
    #[command(long_about = relations::WHERE_USED_HELP)]
    WhereUsed(relations::RelationArgs),
    /// Print an assembly's components, down to the leaf parts.
    #[command(long_about = relations::COMPONENTS_HELP)]
    Components(relations::RelationArgs),
}

/// Runs one parsed invocation and returns the process exit code: 0 on success, 1 when the service or
/// the input refused (after one `partlens-cli: …` line on stderr).
pub fn run(cli: Cli) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            output::print_error(&CliError::Local(format!(
                "cannot start the async runtime: {error}"
            )));
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            output::print_error(&error);
            ExitCode::FAILURE
        }
    }
}

/// Runs the command of `cli`.
pub async fn dispatch(cli: Cli) -> Result<(), CliError> {
    let mut session = Session::new(cli.session);
    match cli.command {
        Command::Upload(args) => upload::run(args, &mut session).await,
        Command::Status(args) => status::run(args, &mut session).await,
        Command::File(args) => files::run_file(args, &mut session).await,
        Command::Delete(args) => files::run_delete(args, &mut session).await,
        Command::Attributes => attrs::run_attributes(&mut session).await,
        Command::Attrs(args) => attrs::run(args, &mut session).await,
        Command::Values(args) => attrs::run_values(args, &mut session).await,
        Command::Pmi(args) => pmi::run_pmi(args, &mut session).await,
        Command::Feedback(args) => pmi::run_feedback(args, &mut session).await,
        Command::Search(args) => search::run(args, &mut session).await,
        Command::Image(args) => image::run(args, &mut session).await,
        Command::Sync(args) => sync::run(args, &mut session).await,
        Command::Duplicates(args) => duplicates::run(args, &mut session).await,
        Command::Files(args) => library::run(args, &mut session).await,
        Command::WhereUsed(args) => {
            relations::run(args, partlens_api::WalkDirection::UsedIn, &mut session).await
        }
        Command::Components(args) => {
            relations::run(args, partlens_api::WalkDirection::Components, &mut session).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Splits a shell line into its pipeline stages, at `|` outside quotes.
    fn pipeline_stages(line: &str) -> Vec<String> {
        let (mut stages, mut current, mut quote) = (Vec::new(), String::new(), None);
        for character in line.chars() {
            match (character, quote) {
                ('\'' | '"', None) => quote = Some(character),
                (c, Some(open)) if c == open => quote = None,
                ('|', None) => {
                    stages.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(character);
        }
        stages.push(current);
        stages
    }

    #[test]
    fn help_examples_run_as_written_in_a_shell() {
        let examples: Vec<&str> = AFTER_HELP
            .lines()
            .map(str::trim)
            .filter(|line| line.contains("partlens-cli "))
            .filter(|line| line.starts_with("partlens-cli") || line.starts_with("echo"))
            .collect();
        assert!(examples.len() >= 3, "{examples:?}");
        for line in examples {
            for stage in pipeline_stages(line) {
                let command = stage.split_whitespace().next().unwrap_or("");
                assert!(
                    ["partlens-cli", "jq", "echo"].contains(&command),
                    "\"{line}\" pipes into \"{command}\": quote the value holding |"
                );
            }
        }
    }

    #[test]
    fn global_options_come_before_the_command_and_feedback_has_its_own_user() {
        let cli = Cli::try_parse_from([
            "partlens-cli",
            "--user",
            "alice",
            "feedback",
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
            "--attrs",
            "a=b",
            "--user",
            "ext-42",
        ])
        .unwrap();
        assert_eq!(cli.session.user.as_deref(), Some("alice"));
        let Command::Feedback(args) = cli.command else {
            panic!("not feedback")
        };
        assert_eq!(args.user.as_deref(), Some("ext-42"));
    }
}
