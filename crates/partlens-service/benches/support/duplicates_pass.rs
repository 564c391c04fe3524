//! Duplicates at 100,000 files (issue 51 item 4), the `duplicates` case of `search_pass`: on the
//! bench's library, the pairing of one newly indexed file (what indexing adds to an upload:
//! `Pairer::pair_blocking`, one ranking by the file's own views and its pairs written), and the
//! answer of `GET /api/Duplicates` (`duplicates::find`) once every visual file is paired.
//!
//! Ranking every one of the library's ~50,000 visual files would take the better part of an hour,
//! so after [`PAIRED`] files are paired for real, the others are given synthetic pairs as the
//! pairing writes them: [`NEIGHBOURS`] each, with other visual files, scores spread over 0.40–0.88
//! and one pair in [`SAME_PART_ONE_IN`] at 0.95 (a library where a few files have a twin). That is
//! the most rows the pairing stores (every neighbour within the size rule); `find` reads those at
//! or above `minScore` through the store's index.

use std::time::{Duration, Instant};

use partlens_service::caller::Caller;
use partlens_service::duplicates::{DEFAULT_MIN_SCORE, NEIGHBOURS, find};
use partlens_service::error::ServiceError;
use partlens_service::pairing::PAIRING_VERSION;
use partlens_service::state::AppState;
use partlens_store::model::FilePair;

use super::support::{millis, percentile};

/// Files paired for real (timed).
const PAIRED: usize = 40;
/// One synthetic pair in this many is a twin (0.95).
const SAME_PART_ONE_IN: usize = 200;
/// Files given synthetic pairs in one write transaction.
const BATCH: usize = 2_000;
/// Timed answers of `find` a minimum score, after one untimed.
const ANSWERS: usize = 10;

/// Times the pairing of [`PAIRED`] files, fills the others' pairs, times `find`; prints a table.
pub async fn measure(state: &AppState, caller: &Caller, engine: &str) {
    let unpaired = list_unpaired(state).await;
    eprintln!("{} visual files not paired yet", unpaired.len());
    let mut times = Vec::new();
    for uid in unpaired.iter().take(PAIRED) {
        let pairer = state.indexer.pairer().clone();
        let uid = uid.clone();
        let started = Instant::now();
        let paired = tokio::task::spawn_blocking(move || pairer.pair_blocking(&uid)).await;
        times.push(started.elapsed());
        if !matches!(paired, Ok(Ok(true))) {
            panic!("a file is not paired: {paired:?}");
        }
    }
    let rest: Vec<String> = unpaired.iter().skip(PAIRED).cloned().collect();
    let started = Instant::now();
    fill(state, &caller.company_id, &rest).await;
    eprintln!(
        "{} files given synthetic pairs in {:.1} s",
        rest.len(),
        started.elapsed().as_secs_f64()
    );
    println!("| store | duplicates | files compared | groups | p50 | p95 |");
    println!("|---|---|---|---|---|---|");
    if !times.is_empty() {
        let (p50, p95) = (percentile(&mut times, 0.5), percentile(&mut times, 0.95));
        println!(
            "| {engine} | pairing one indexed file ({} files) | | | {} ms | {} ms |",
            times.len(),
            millis(p50),
            millis(p95)
        );
    }
    for min_score in [DEFAULT_MIN_SCORE, 0.8] {
        let mut times: Vec<Duration> = Vec::new();
        let mut answer = (0, 0);
        for number in 0..=ANSWERS {
            let started = Instant::now();
            let reply = match find(state, caller, min_score).await {
                Ok(reply) => reply,
                Err(error) => panic!("duplicates: {error}"),
            };
            if number > 0 {
                times.push(started.elapsed());
            }
            answer = (reply.files_compared, reply.groups.len());
        }
        let (p50, p95) = (percentile(&mut times, 0.5), percentile(&mut times, 0.95));
        println!(
            "| {engine} | `GET /api/Duplicates?minScore={min_score}` | {} | {} | {} ms | {} ms |",
            answer.0,
            answer.1,
            millis(p50),
            millis(p95)
        );
    }
}

/// Every visual file of the store not paired at this pairing version, in UID order.
async fn list_unpaired(state: &AppState) -> Vec<String> {
    let store = state.store.clone();
    let listed = store
        .read_tx(|tx| -> Result<Vec<String>, ServiceError> {
            Ok(tx.unpaired_files(PAIRING_VERSION, "", usize::MAX)?)
        })
        .await;
    match listed {
        Ok(uids) => uids,
        Err(error) => panic!("the unpaired files are not listed: {error}"),
    }
}

/// Writes [`NEIGHBOURS`] synthetic pairs for each of `uids` (see the module's doc).
async fn fill(state: &AppState, company_id: &str, uids: &[String]) {
    for (batch_number, batch) in uids.chunks(BATCH).enumerate() {
        let store = state.store.clone();
        let (company, batch, all) = (company_id.to_owned(), batch.to_vec(), uids.to_vec());
        let first = batch_number * BATCH;
        let written = store
            .write_tx(move |tx| -> Result<(), ServiceError> {
                for (offset, uid) in batch.iter().enumerate() {
                    let at = first + offset;
                    let pairs: Vec<FilePair> = (1..=NEIGHBOURS)
                        .map(|step| {
                            let mix = at.wrapping_mul(7919).wrapping_add(step * 104_729);
                            let score = if mix.is_multiple_of(SAME_PART_ONE_IN) {
                                0.95
                            } else {
                                0.40 + 0.48 * ((mix % 1000) as f32 / 1000.0)
                            };
                            FilePair {
                                file_uid: uid.clone(),
                                other_uid: all[(at + step * 37) % all.len()].clone(),
                                score,
                            }
                        })
                        .collect();
                    tx.save_pairs(uid, &company, PAIRING_VERSION, &pairs)?;
                }
                Ok(())
            })
            .await;
        if let Err(error) = written {
            panic!("the synthetic pairs are not written: {error}");
        }
    }
}
