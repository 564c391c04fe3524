//! `search [FILE]... [--uid UID]... [--text WORDS] [--attr …]... [--exact …]... [--prefix …]...
//! [--range …]... [--two-step] [--async] [--no-size-first] [--ignore-mirrored]`.

use std::io::IsTerminal as _;
use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::error::CliError;
use super::output::print_json;
use super::session::{Session, poll_policy};
use partlens_api::limits::MAX_SEARCH_FILES;
use partlens_api::range::parse_range;
use partlens_api::{FileUid, FilterTerm, SearchFilter, SearchOptions, SearchRequest, UploadSource};
use partlens_tasks::search_flow::{
    FileSearchError, FileSearchOptions, FileSearchProgress, run_file_search,
};

/// The long help of `search` (shown by `--help`).
pub const SEARCH_HELP: &str = "Search the company database and print the search result as the service gives it \
(InputFileUID, TotalResults, ResultsList, …).\n\n\
FILEs are views of one part (up to 10 views in all, counting --uid inputs). When they share an \
extension they go up with the search in one PUT /api/Search; otherwise, or with --two-step, each is \
uploaded as a search input first and the search runs by their UIDs; --async indexes the uploads \
asynchronously and waits until every input is indexed before searching. --uid adds search inputs \
uploaded earlier.\n\n\
Filters: --text free words; --attr NAME=VALUE a regular attribute match; --exact NAME=VALUE a whole \
value (sent as NAME=[VALUE]); --prefix NAME=PREFIX the start of a value (sent as NAME=PREFIX*); \
--range NAME=LOW..HIGH[UNIT] a numeric range, both ends included, either end may be left out \
(--range length=40..60mm, --range \"weight(kg)=..2,5\"). The names length, width and thickness \
filter by a model's size (its largest, middle and smallest extent, in mm unless a unit mm, cm, m or \
in follows); any other name compares the numeric values of that attribute. A --attr value of the \
same LOW..HIGH shape is read as a range too. \
Each filter is its own FT= part; all must hold.\n\n\
A search by a model ranks the models of its size first; --no-size-first ranks by shape alone \
(sent as sizeFirst=false). A result that is the mirror image of the model searched by says \
\"Mirrored\": true; --ignore-mirrored leaves those out (sent as ignoreMirrored=true).";

/// Arguments of `search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Files to search by (views of one part).
    pub files: Vec<PathBuf>,
    /// A search input uploaded earlier (its UID). Repeat for more.
    #[arg(long = "uid", value_name = "UID")]
    pub uids: Vec<String>,
    /// Free text searched in names, attributes and extracted text.
    #[arg(long, value_name = "WORDS")]
    pub text: Option<String>,
    /// A regular attribute match NAME=VALUE. Repeat for more.
    #[arg(long = "attr", value_name = "NAME=VALUE")]
    pub attributes: Vec<String>,
    /// An exact match of a whole value NAME=VALUE. Repeat for more.
    #[arg(long, value_name = "NAME=VALUE")]
    pub exact: Vec<String>,
    /// A prefix match NAME=PREFIX (a trailing * is optional). Repeat for more.
    #[arg(long, value_name = "NAME=PREFIX")]
    pub prefix: Vec<String>,
    /// A numeric range NAME=LOW..HIGH[UNIT] (`length=40..60mm`, `weight(kg)=..2,5`); length, width
    /// and thickness are a model's size. Repeat for more.
    #[arg(long, value_name = "NAME=LOW..HIGH[UNIT]")]
    pub range: Vec<String>,
    /// Upload each FILE as a search input first, then search by UIDs, even when one call would do.
    #[arg(long)]
    pub two_step: bool,
    /// Index the uploaded FILEs asynchronously and wait until each is indexed before searching.
    #[arg(long = "async")]
    pub index_async: bool,
    /// Rank a search by a model by shape alone, not the models of its size first.
    #[arg(long)]
    pub no_size_first: bool,
    /// Leave out the results that are the mirror image of the model searched by.
    #[arg(long)]
    pub ignore_mirrored: bool,
}

impl SearchArgs {
    /// The search options the arguments ask for, as query parameters (none by default).
    pub fn search_params(&self) -> Vec<(String, String)> {
        SearchOptions {
            size_first: !self.no_size_first,
            ignore_mirrored: self.ignore_mirrored,
        }
        .params()
    }
}

/// Splits `NAME=VALUE` of a filter option, refusing a missing `=` or name.
fn name_value<'a>(option: &str, text: &'a str) -> Result<(String, &'a str), CliError> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_owned(), value)),
        _ => Err(CliError::Usage(format!(
            "{option} \"{text}\" is not NAME=VALUE"
        ))),
    }
}

/// The filter of the arguments: input UIDs, then text, regular, exact, prefix and range terms, each
/// its own FT part.
pub fn search_filter(args: &SearchArgs) -> Result<SearchFilter, CliError> {
    let uids = args
        .uids
        .iter()
        .map(|uid| FileUid::parse(uid))
        .collect::<Result<Vec<_>, _>>()?;
    let mut filter = SearchFilter::new().with_uids(uids);
    if let Some(text) = &args.text {
        filter = filter.text(text);
    }
    for text in &args.attributes {
        let (name, value) = name_value("--attr", text)?;
        filter = filter.term(FilterTerm::Regular {
            name,
            value: value.to_owned(),
        });
    }
    for text in &args.exact {
        let (name, value) = name_value("--exact", text)?;
        filter = filter.term(FilterTerm::Exact {
            name,
            value: value.to_owned(),
        });
    }
    for text in &args.prefix {
        let (name, prefix) = name_value("--prefix", text)?;
        filter = filter.term(FilterTerm::Prefix {
            name,
            prefix: prefix.strip_suffix('*').unwrap_or(prefix).to_owned(),
        });
    }
    for text in &args.range {
        let (name, value) = name_value("--range", text)?;
        let Some((low, high, unit)) = parse_range(value) else {
            return Err(CliError::Usage(format!(
                "--range \"{text}\" is not NAME=LOW..HIGH[UNIT] (numbers, either end may be left \
                 out, a unit mm, cm, m or in may follow: length=40..60mm)"
            )));
        };
        filter = filter.term(FilterTerm::Range {
            name,
            low,
            high,
            unit,
        });
    }
    Ok(filter)
}

/// Checks what the arguments ask for before anything is sent.
pub fn check(args: &SearchArgs, filter: &SearchFilter) -> Result<(), CliError> {
    let views = args.files.len() + args.uids.len();
    if views > MAX_SEARCH_FILES {
        return Err(CliError::Usage(format!(
            "{views} views given (FILEs and --uid inputs); one search takes at most {MAX_SEARCH_FILES}"
        )));
    }
    if args.files.is_empty() && (args.two_step || args.index_async) {
        return Err(CliError::Usage(
            "--two-step and --async apply to searches by FILE".into(),
        ));
    }
    if args.files.is_empty() && filter.is_empty() {
        return Err(CliError::Usage(
            "the search is empty: give FILEs, --uid, --text or attribute filters".into(),
        ));
    }
    for file in &args.files {
        if !file.is_file() {
            return Err(CliError::Usage(format!(
                "{} is not a readable file",
                file.display()
            )));
        }
    }
    Ok(())
}

/// Runs `search`.
pub async fn run(args: SearchArgs, session: &mut Session) -> Result<(), CliError> {
    let filter = search_filter(&args)?;
    check(&args, &filter)?;
    let client = session.client().await?;
    if args.files.is_empty() {
        let mut request = SearchRequest::new(filter);
        request.extra_params = args.search_params();
        let result = client.search_json(&request).await?;
        return print_json(&result);
    }
    let views: Vec<UploadSource> = args.files.iter().cloned().map(UploadSource::Path).collect();
    let options = FileSearchOptions {
        two_step: args.two_step,
        index_async: args.index_async,
        poll_when_mixed: false,
        search_params: args.search_params(),
    };
    let show_progress = std::io::stderr().is_terminal();
    let outcome = run_file_search(
        client,
        &views,
        filter,
        &options,
        &poll_policy(),
        &CancellationToken::new(),
        move |progress| {
            if show_progress {
                report_progress(&progress);
            }
        },
    )
    .await
    .map_err(search_error)?;
    print_json(&outcome.result_json)
}

/// A file-search error as the CLI reports it: a view that could not be indexed names the status the
/// service reported (422 failed, 404 unknown), and its reason when the service gave one.
fn search_error(error: FileSearchError) -> CliError {
    match error {
        FileSearchError::IndexingFailed { view, name, state } => {
            let status = if state == "unknown" { 404 } else { 422 };
            CliError::Indexing(format!(
                "view {} ({name}) could not be indexed: the service reported it {state} (HTTP {status}); try another file",
                view + 1
            ))
        }
        FileSearchError::IndexingRefused { view, name, reason } => CliError::Indexing(format!(
            "view {} ({name}) could not be indexed (HTTP 422): {reason}; try another file",
            view + 1
        )),
        other => CliError::Search(other),
    }
}

/// One progress line on stderr (a terminal) for a file search.
fn report_progress(progress: &FileSearchProgress) {
    let mut stderr = std::io::stderr().lock();
    let _ = match progress {
        FileSearchProgress::Uploading { view, sent, total } => {
            let percent = (sent * 100).checked_div(*total).unwrap_or(100);
            write!(stderr, "\ruploading view {}: {percent:>3}%", view + 1)
        }
        FileSearchProgress::Indexing { view, waited } => write!(
            stderr,
            "\rindexing view {}: {}s          ",
            view + 1,
            waited.as_secs()
        ),
        FileSearchProgress::Searching => writeln!(stderr, "\rsearching…                    "),
    };
    let _ = stderr.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> SearchArgs {
        SearchArgs {
            files: Vec::new(),
            uids: Vec::new(),
            text: None,
            attributes: Vec::new(),
            exact: Vec::new(),
            prefix: Vec::new(),
            range: Vec::new(),
            two_step: false,
            index_async: false,
            no_size_first: false,
            ignore_mirrored: false,
        }
    }

    #[test]
    fn size_and_mirror_options_are_sent_only_when_asked() {
        assert!(args().search_params().is_empty());
        let asked = SearchArgs {
            no_size_first: true,
            ignore_mirrored: true,
            ..args()
        };
        assert_eq!(
            asked.search_params(),
            [
                ("sizeFirst".to_owned(), "false".to_owned()),
                ("ignoreMirrored".to_owned(), "true".to_owned())
            ]
        );
    }

    #[test]
    fn options_become_ft_parts_in_order() {
        let search = SearchArgs {
            text: Some("pump housing".into()),
            attributes: vec!["material=steel".into()],
            exact: vec!["document_number=AX-1000".into()],
            prefix: vec!["document_number=AX-*".into(), "part=B".into()],
            range: vec!["length=40..60 mm".into(), "weight(kg)=..2,5".into()],
            ..args()
        };
        let filter = search_filter(&search).unwrap();
        let expressions: Vec<String> = filter.terms().map(FilterTerm::expression).collect();
        assert_eq!(
            expressions,
            vec![
                "pump housing",
                "material=steel",
                "document_number=[AX-1000]",
                "document_number=AX-*",
                "part=B*",
                "length=40..60mm",
                "weight(kg)=..2.5"
            ]
        );
    }

    #[test]
    fn empty_or_oversized_searches_are_refused() {
        let empty = args();
        assert!(check(&empty, &search_filter(&empty).unwrap()).is_err());
        let too_many = SearchArgs {
            uids: (0..11).map(|_| FileUid::new_random().to_string()).collect(),
            ..args()
        };
        let error = check(&too_many, &search_filter(&too_many).unwrap()).unwrap_err();
        assert!(error.to_string().contains("at most 10"), "{error}");
        let bad = SearchArgs {
            attributes: vec!["steel".into()],
            ..args()
        };
        assert!(search_filter(&bad).is_err());
        for not_a_range in ["length=40", "length=1..2x", "length=..", "=1..2"] {
            let bad = SearchArgs {
                range: vec![not_a_range.into()],
                ..args()
            };
            let error = search_filter(&bad).unwrap_err();
            assert!(
                error.to_string().contains("--range"),
                "{not_a_range}: {error}"
            );
        }
    }
}
