//! `sync DIR --to PREFIX [--attributes CSV] [--file-column NAME] [--attribute-column NAME]…
//! [--delete] [--parallel N]`: a folder kept in step with the company database (the engine is `tasks::sync`,
//! shared with the app).

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

use clap::Args;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use partlens_tasks::ServiceChoice;
use partlens_tasks::data_dir::{DATA_DIR_ENV, default_data_dir};
use partlens_tasks::sync::sync_state::sync_dir;
use partlens_tasks::sync::{
    CsvMapping, MAX_UPLOADS_AT_ONCE, SyncContext, SyncControl, SyncLimits, SyncOrigin,
    SyncProgress, SyncSetup, preview_sync, run_sync,
};

/// The long help of `sync` (shown by `--help`).
pub const SYNC_HELP: &str = "Keep a folder of part files in step with the company database.\n\n\
Every part file below DIR (pictures, 3D models, drawings; hidden files and links are left out) is \
stored at PREFIX/<its path in DIR>. A file goes up when it is new or its content changed (by SHA-1), \
with overwriteFile=true, so the service replaces the file at that path and keeps its UID; unchanged \
files are not sent again. What went up is recorded in the data folder (PARTLENS_DATA_DIR, else the \
platform's), so a run that is interrupted (Ctrl+C, a dropped connection, a crash) carries on where \
it stopped when run again, without uploading a file twice.\n\n\
--attributes CSV gives attributes: one row a file, a column naming the file (its name, or its path \
in DIR; --file-column, else a column called file, file name, path or name, else the first) and \
columns that become attributes (--attribute-column, repeatable, else every other column). A header \
carries the unit in parentheses, weight(kg); a cell holds several values joined with |. When only \
a file's attributes changed, they are set with PUT /api/FileAttributes.\n\n\
--parallel N keeps N uploads on their way at once (default 1, at most 16): the service indexes \
each file as it uploads, so N of its reader cores work on the folder. Files are still checked in \
path order; \"uploaded\" lists them in the order their uploads finished.\n\n\
Files that left DIR are reported under \"removed\"; with --delete they are deleted from the service \
(needs an admin) and listed under \"deleted\".\n\n\
Prints one line of JSON: {\"folder\", \"prefix\", \"files\", \"uploaded\": [paths], \"confirmed\": \
[uploads of an interrupted run found on the service], \"attributes_updated\": [paths], \
\"unchanged\": n, \"removed\": [paths], \"deleted\": [paths], \"failed\": [{\"path\", \"reason\"}], \
\"ignored\": [files that are not part files], \"warnings\": [sentences], \"interrupted\": null or \
why the run stopped early}. Exits with status 1 after the JSON when a file failed or the run \
stopped early; a folder or CSV that cannot be used is refused before anything is sent.\n\n\
Limits: 200,000 files in DIR (a run then holds about 140 MiB), 32 folder levels; a CSV of at \
most 16 MiB, 100,000 rows, 64 columns and 1,024 characters a cell.";

/// Arguments of `sync`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The folder to sync.
    #[arg(value_name = "DIR")]
    pub folder: PathBuf,
    /// The folder of the company database the files go to (Library/Pumps).
    #[arg(long = "to", value_name = "PREFIX")]
    pub prefix: String,
    /// A CSV giving the files' attributes.
    #[arg(long, value_name = "CSV")]
    pub attributes: Option<PathBuf>,
    /// The CSV column that names the files (default: guessed from the headers).
    #[arg(long, value_name = "COLUMN", requires = "attributes")]
    pub file_column: Option<String>,
    /// A CSV column that becomes an attribute; repeat for more (default: every other column).
    #[arg(
        long = "attribute-column",
        value_name = "COLUMN",
        requires = "attributes"
    )]
    pub attribute_columns: Vec<String>,
    /// Delete files that left the folder from the service (else they are only reported).
    #[arg(long)]
    pub delete: bool,
    /// Uploads on their way at once, 1 to 16 (each keeps one of the service's reader cores busy).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u8).range(1..=MAX_UPLOADS_AT_ONCE as i64)
    )]
    pub parallel: u8,
}

impl SyncArgs {
    /// The setup these arguments describe.
    pub fn setup(&self) -> SyncSetup {
        SyncSetup {
            folder: self.folder.clone(),
            prefix: self.prefix.clone(),
            attributes: self.attributes.as_ref().map(|csv| CsvMapping {
                csv: csv.clone(),
                file_column: self.file_column.clone(),
                attribute_columns: (!self.attribute_columns.is_empty())
                    .then(|| self.attribute_columns.clone()),
            }),
            delete_removed: self.delete,
        }
    }
}

/// Progress on stderr, only when it is a terminal (scripts never see it).
fn progress_reporter() -> Box<dyn Fn(&SyncProgress) + Send + Sync> {
    if !std::io::stderr().is_terminal() {
        return Box::new(|_| {});
    }
    Box::new(|progress: &SyncProgress| {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(
            stderr,
            "\r\x1b[Ksyncing: {} of {} files, {} uploaded",
            progress.checked, progress.files, progress.uploaded
        );
        if progress.files > 0 && progress.checked == progress.files && progress.current.is_none() {
            let _ = writeln!(stderr);
        }
        let _ = stderr.flush();
    })
}

/// Runs `sync`.
pub async fn run(args: SyncArgs, session: &mut Session) -> Result<(), CliError> {
    let setup = args.setup();
    let data_dir = default_data_dir().ok_or_else(|| {
        CliError::Usage(format!(
            "this system has no data folder for the sync record; set {DATA_DIR_ENV} to a folder"
        ))
    })?;
    let context = SyncContext {
        sync_dir: sync_dir(&data_dir),
        service_key: ServiceChoice::remote(session.service_address(), "").key(),
        limits: SyncLimits::default(),
        origin: SyncOrigin::Cli,
        uploads_at_once: usize::from(args.parallel),
    };
    // The folder, the CSV and the mapping are checked before logging in, so a refused sync sends
    // nothing.
    preview_sync(&setup, &context).await?;
    let client = session.client().await?;
    let control = SyncControl::default();
    let pause = control.pause.clone();
    // Ctrl+C ends the run between two files with everything done so far recorded.
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            pause.cancel();
        }
    });
    let report = progress_reporter();
    let outcome = run_sync(client, &setup, &context, &control, report.as_ref()).await;
    interrupt.abort();
    let summary = outcome?;
    print_json(&summary)?;
    if let Some(stop) = &summary.stop {
        return Err(CliError::Unfinished(format!(
            "the sync stopped before the end: {} Run the same command again to carry on.",
            stop.sentence()
        )));
    }
    if !summary.failed.is_empty() {
        return Err(CliError::Unfinished(format!(
            "{} of {} files could not be synced (the JSON lists each with the reason), for \
             example {}: {}",
            summary.failed.len(),
            summary.files,
            summary.failed[0].path,
            summary.failed[0].reason
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    #[test]
    fn columns_need_a_csv_and_make_an_explicit_mapping() {
        let parse = |args: &[&str]| {
            crate::Cli::try_parse_from(
                ["partlens-cli", "sync", "parts", "--to", "Library"]
                    .iter()
                    .chain(args),
            )
        };
        assert!(parse(&["--file-column", "file"]).is_err());
        let cli = parse(&[
            "--attributes",
            "a.csv",
            "--attribute-column",
            "weight(kg)",
            "--delete",
        ])
        .unwrap();
        let crate::Command::Sync(args) = cli.command else {
            panic!("not sync")
        };
        let setup = args.setup();
        assert!(setup.delete_removed);
        let mapping = setup.attributes.unwrap();
        assert_eq!(mapping.file_column, None);
        assert_eq!(mapping.attribute_columns, Some(vec!["weight(kg)".into()]));
    }
}
