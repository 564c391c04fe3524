//! `exact=streamed` of the store runs: the exact answers of every query in every filter case,
//! computed by streaming the company's stored views once, before the graph is loaded, instead of
//! holding every view in memory in an exact scan (547 B a view: 9.8 GB at 100,000 parts, which do
//! not fit beside the graph on a 23 GB machine).
//!
//! Each case's filter is resolved once to the files it allows, as the service resolves it for the
//! exact scan (`rank_visually`'s every match listed: `matching_database_files`). Then one pass
//! over the views (`for_each_searched_file`, ordered by file): the reading thread gathers files
//! into batches of about [`BATCH_VIEWS`] stored views and counts each case's matches; the scoring
//! threads (one a core) decode a batch's files and score each against every query with
//! `partlens_engine::match_views`, the exact scan's scoring (`VisualIndex::rank` gives the same
//! scores to the bit), and keep per query and case only the best `LIMIT` files in the result
//! order (score, then UID). Memory: queries × cases × `LIMIT` results and at most a batch a
//! thread and one waiting. `exact=both` also runs the in-memory exact scan and asserts that the
//! two give the same files, scores (to the bit) and match counts for every query and case.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::ops::ControlFlow;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use partlens_engine::{ViewDescriptor, match_views};
use partlens_service::error::ServiceError;
use partlens_store::Store;
use partlens_visual::Ranked;

use super::{Case, LIMIT};

/// Stored views a batch handed to a scoring thread holds (about 100 models, some 12 MB stored).
const BATCH_VIEWS: usize = 20_000;

/// Where the store runs take the exact side of recall from (`exact=memory|streamed|both`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExactMode {
    /// The exact scan with every view held in memory (the default).
    #[default]
    Memory,
    /// The store streamed once for the exact answers; no view held.
    Streamed,
    /// Both, asserted to agree; the table's times are the exact scan's.
    Both,
}

impl ExactMode {
    /// The mode `exact=` asks for among `arguments` (the default without it).
    pub fn from_arguments(arguments: &[String]) -> Self {
        match arguments.iter().find_map(|arg| arg.strip_prefix("exact=")) {
            None | Some("memory") => Self::Memory,
            Some("streamed") => Self::Streamed,
            Some("both") => Self::Both,
            Some(other) => panic!("exact={other}: memory, streamed or both"),
        }
    }

    /// True when the exact scan holds every view in memory.
    pub fn holds_views(self) -> bool {
        self != Self::Streamed
    }

    /// True when the store is streamed for the exact answers.
    pub fn streams(self) -> bool {
        self != Self::Memory
    }
}

/// One file of a batch: its UID, stored views and which cases allow it.
struct BatchFile {
    uid: String,
    stored: Vec<Vec<u8>>,
    allowed: Vec<bool>,
}

/// A kept result; the worse of two orders greater, so a max-heap's top is the worst kept.
struct Kept {
    score: f32,
    uid: String,
}

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        // The result order (best score first, then UID) is "less is better".
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.uid.cmp(&other.uid))
    }
}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Kept {}

/// The best [`LIMIT`] files of one query in one case.
#[derive(Default)]
struct Best(BinaryHeap<Kept>);

impl Best {
    fn offer(&mut self, uid: &str, score: f32) {
        if self.0.len() < LIMIT {
            self.0.push(Kept {
                score,
                uid: uid.to_owned(),
            });
            return;
        }
        let better = self.0.peek().is_some_and(|worst| {
            score
                .total_cmp(&worst.score)
                .then_with(|| worst.uid.as_str().cmp(uid))
                .is_gt()
        });
        if better {
            self.0.pop();
            self.0.push(Kept {
                score,
                uid: uid.to_owned(),
            });
        }
    }

    fn merge(&mut self, other: Self) {
        for kept in other.0 {
            self.offer(&kept.uid, kept.score);
        }
    }

    fn into_ranked(self) -> Ranked {
        self.0
            .into_sorted_vec()
            .into_iter()
            .map(|kept| (kept.uid, kept.score))
            .collect()
    }
}

/// The exact answers of a streamed pass, with what the pass cost.
pub struct StreamedAnswers {
    /// By query set, case, query: the best `LIMIT` files and the case's matches.
    answers: Vec<Vec<Vec<(Ranked, usize)>>>,
    /// The cases' labels, in the order of `answers`' second level.
    case_labels: Vec<&'static str>,
    /// The pass's time (the filters' resolution before it not included).
    pass: Duration,
    /// Answers given: queries × cases.
    answered: usize,
    /// Queries scored (each once, whatever the cases).
    queries: usize,
}

impl StreamedAnswers {
    /// The answer of query `query` of query set `set` in the case labelled `case`.
    pub fn answer(&self, set: usize, case: &str, query: usize) -> &(Ranked, usize) {
        let at = self.case_labels.iter().position(|label| *label == case);
        match at.and_then(|at| self.answers.get(set)?.get(at)?.get(query)) {
            Some(answer) => answer,
            None => panic!("the streamed pass has no answer for set {set}, {case}, query {query}"),
        }
    }

    /// The exact side's time of one answer in the tables: the pass's time over its answers.
    pub fn time_an_answer(&self) -> Duration {
        self.pass / u32::try_from(self.answered.max(1)).unwrap_or(u32::MAX)
    }

    /// The table note that says what the exact columns of the streamed rows are.
    pub fn note(&self, label: &str) -> String {
        format!(
            "{label} [exact streamed]: the exact columns are the streamed pass's {:.1} s over the \
             {} answers it gave ({} queries × {} cases, every query scored once against every \
             file), the same at p50 and p95: not one search's time.",
            self.pass.as_secs_f64(),
            self.answered,
            self.queries,
            self.case_labels.len(),
        )
    }

    /// The note of `exact=both` once every answer was asserted.
    pub fn agreement_note(&self, label: &str) -> String {
        format!(
            "{label}: exact=both: the streamed pass ({:.1} s) and the in-memory exact scan agree \
             on all {} answers ({} queries × {} cases: the same files in the same order, the same \
             scores to the bit, the same matches).",
            self.pass.as_secs_f64(),
            self.answered,
            self.queries,
            self.case_labels.len(),
        )
    }

    /// The scale table's "exact index loaded in" cell when only the pass ran.
    pub fn pass_cell(&self) -> String {
        format!("– (streamed pass {:.1} s)", self.pass.as_secs_f64())
    }
}

/// Asserts that the in-memory exact scan's `held` answer of query `query` of set `set` in `case`
/// is the streamed one: the same files in the same order, the same scores to the bit, the same
/// matches.
pub fn assert_agrees(
    streamed: &StreamedAnswers,
    (set, case, query): (usize, &str, usize),
    held: &(Ranked, usize),
) {
    let (ranked, matches) = streamed.answer(set, case, query);
    let bits = |ranked: &Ranked| -> Vec<(String, u32)> {
        ranked
            .iter()
            .map(|(uid, score)| (uid.clone(), score.to_bits()))
            .collect()
    };
    assert_eq!(
        (bits(&held.0), held.1),
        (bits(ranked), *matches),
        "set {set}, {case}, query {query}: the exact scan (left) and the streamed pass (right) differ"
    );
}

/// Each case's allowed files: `None` for a case without terms, else the files its terms select,
/// resolved as `rank_visually` resolves them for the exact scan.
fn allowed_files(store: &Store, company: &str, cases: &[Case]) -> Vec<Option<HashSet<String>>> {
    let resolved = store.read_tx_blocking(|tx| {
        cases
            .iter()
            .map(|case| -> Result<_, ServiceError> {
                if case.terms.is_empty() {
                    return Ok(None);
                }
                let files = tx.matching_database_files(company, &case.terms)?;
                Ok(Some(files.into_iter().map(|file| file.uid).collect()))
            })
            .collect::<Result<Vec<_>, _>>()
    });
    match resolved {
        Ok(resolved) => resolved,
        Err(error) => panic!("a case's filter does not resolve: {error}"),
    }
}

/// The exact answers of every query of `query_sets` in every case of `cases` on `company`'s
/// library in `store`, by one pass over its stored views (see the module doc).
pub fn stream(
    store: &Store,
    company: &str,
    query_sets: &[&[Vec<ViewDescriptor>]],
    cases: &[Case],
) -> StreamedAnswers {
    let started = Instant::now();
    let allowed = allowed_files(store, company, cases);
    eprintln!(
        "streamed exact: {} cases' filters resolved in {:.2} s",
        cases.len(),
        started.elapsed().as_secs_f64()
    );
    let queries: Vec<&[ViewDescriptor]> = query_sets
        .iter()
        .flat_map(|set| set.iter().map(Vec::as_slice))
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let started = Instant::now();
    let (sender, receiver) = sync_channel::<Vec<BatchFile>>(1);
    let receiver = Arc::new(Mutex::new(receiver));
    let (mut best, read) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let receiver = Arc::clone(&receiver);
                let queries = &queries;
                scope.spawn(move || score_batches(&receiver, queries, cases.len()))
            })
            .collect();
        drop(receiver);
        let read = read_batches(store, company, &allowed, sender);
        let mut best: Option<Vec<Best>> = None;
        for worker in workers {
            let gathered = match worker.join() {
                Ok(gathered) => gathered,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            best = Some(match best {
                None => gathered,
                Some(mut all) => {
                    for (kept, more) in all.iter_mut().zip(gathered) {
                        kept.merge(more);
                    }
                    all
                }
            });
        }
        (best.unwrap_or_default(), read)
    });
    let pass = started.elapsed();
    read.report(pass, queries.len(), threads);
    let answers = answers_by_set(&mut best, query_sets, &read.matches);
    StreamedAnswers {
        answers,
        case_labels: cases.iter().map(|case| case.label).collect(),
        pass,
        answered: queries.len() * cases.len(),
        queries: queries.len(),
    }
}

/// `best` (query-major: every case of the first query, then of the next) arranged by query set,
/// case and query, with each case's matches.
fn answers_by_set(
    best: &mut Vec<Best>,
    query_sets: &[&[Vec<ViewDescriptor>]],
    matches: &[usize],
) -> Vec<Vec<Vec<(Ranked, usize)>>> {
    let cases = matches.len();
    let mut ranked: Vec<Option<Ranked>> = best
        .drain(..)
        .map(|kept| Some(kept.into_ranked()))
        .collect();
    let mut first = 0;
    let mut answers = Vec::with_capacity(query_sets.len());
    for set in query_sets {
        let by_case = (0..cases)
            .map(|case| {
                (0..set.len())
                    .map(|query| {
                        let taken = ranked
                            .get_mut((first + query) * cases + case)
                            .and_then(Option::take);
                        (taken.unwrap_or_default(), matches[case])
                    })
                    .collect()
            })
            .collect();
        answers.push(by_case);
        first += set.len();
    }
    answers
}

/// What the reading side of a pass saw.
struct Read {
    files: usize,
    views: usize,
    /// Each case's matches: the streamed files it allows.
    matches: Vec<usize>,
    /// The largest batch: files, views, stored bytes.
    peak_batch: (usize, usize, usize),
    /// How long the reading waited for the scoring threads to take a batch (the pass less this
    /// is about what reading the store alone takes).
    waited: Duration,
}

impl Read {
    fn report(&self, pass: Duration, queries: usize, threads: usize) {
        let seconds = pass.as_secs_f64().max(1e-9);
        let (files, views, bytes) = self.peak_batch;
        eprintln!(
            "streamed exact pass: {} files, {} views against {queries} queries in {seconds:.2} s \
             on {threads} scoring threads ({:.0} views a second); peak batch {files} files, \
             {views} views, {:.1} MB stored (at most {} batches held at once); the reading \
             waited {:.2} s for the scoring",
            self.files,
            self.views,
            self.views as f64 / seconds,
            bytes as f64 / 1e6,
            threads + 2,
            self.waited.as_secs_f64(),
        );
    }
}

/// Reads the company's stored views file by file, counts each case's matches and sends the files
/// any case allows to the scoring threads in batches of about [`BATCH_VIEWS`] views.
fn read_batches(
    store: &Store,
    company: &str,
    allowed: &[Option<HashSet<String>>],
    sender: SyncSender<Vec<BatchFile>>,
) -> Read {
    let mut read = Read {
        files: 0,
        views: 0,
        matches: vec![0; allowed.len()],
        peak_batch: (0, 0, 0),
        waited: Duration::ZERO,
    };
    let mut batch: Vec<BatchFile> = Vec::new();
    let mut batch_views = 0;
    let send = |batch: Vec<BatchFile>, read: &mut Read| -> ControlFlow<()> {
        let views: usize = batch.iter().map(|file| file.stored.len()).sum();
        let bytes: usize = batch
            .iter()
            .flat_map(|file| file.stored.iter().map(Vec::len))
            .sum();
        if views > read.peak_batch.1 {
            read.peak_batch = (batch.len(), views, bytes);
        }
        // The scoring threads have stopped only when one panicked: stop reading, the join tells.
        let started = Instant::now();
        let sent = sender.send(batch);
        read.waited += started.elapsed();
        match sent {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    };
    let streamed = store.read_tx_blocking(|tx| -> Result<(), ServiceError> {
        tx.for_each_searched_file(company, &mut |uid, stored| {
            read.files += 1;
            read.views += stored.len();
            let allows: Vec<bool> = allowed
                .iter()
                .map(|files| files.as_ref().is_none_or(|files| files.contains(&uid)))
                .collect();
            for (matches, allows) in read.matches.iter_mut().zip(&allows) {
                *matches += usize::from(*allows);
            }
            if !allows.contains(&true) {
                return ControlFlow::Continue(());
            }
            batch_views += stored.len();
            batch.push(BatchFile {
                uid,
                stored,
                allowed: allows,
            });
            if batch_views < BATCH_VIEWS {
                return ControlFlow::Continue(());
            }
            batch_views = 0;
            send(std::mem::take(&mut batch), &mut read)
        })?;
        Ok(())
    });
    if let Err(error) = streamed {
        panic!("the library's views do not stream: {error}");
    }
    if !batch.is_empty() {
        // A refused last batch means a scoring thread panicked; the join reports it.
        let _ = send(batch, &mut read);
    }
    read
}

/// A scoring thread: decodes the files of each batch it takes and scores each against every
/// query, keeping the best [`LIMIT`] of each query in each case that allows the file; returns them
/// query-major (every case of the first query, then of the next) when the batches end.
fn score_batches(
    receiver: &Mutex<Receiver<Vec<BatchFile>>>,
    queries: &[&[ViewDescriptor]],
    cases: usize,
) -> Vec<Best> {
    let mut best: Vec<Best> = (0..queries.len() * cases)
        .map(|_| Best::default())
        .collect();
    loop {
        let batch = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(error) => panic!("the batches' receiver: {error}"),
        };
        let Ok(batch) = batch else {
            return best;
        };
        for file in batch {
            let views = file
                .stored
                .iter()
                .map(|bytes| ViewDescriptor::from_bytes(bytes))
                .collect::<Result<Vec<_>, _>>();
            let views = match views {
                Ok(views) => views,
                Err(error) => panic!("a stored view of {} does not read: {error}", file.uid),
            };
            for (at, query) in queries.iter().enumerate() {
                let score = match_views(query, &views);
                for (case, allows) in file.allowed.iter().enumerate() {
                    if *allows {
                        best[at * cases + case].offer(&file.uid, score);
                    }
                }
            }
        }
    }
}
