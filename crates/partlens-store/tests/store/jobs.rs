//! The indexing queue: claimed fairly, returned in its place, counted by company; alike on both
//! engines.

use partlens_store::model::{IndexState, NewContent, QueueDepth};
use partlens_store::{StoreError, StoreTx};

use crate::support::{database_file, stores};

/// Records a queued file of `company` and puts it in the queue.
fn queue(
    tx: &mut dyn StoreTx,
    uid: &str,
    company: &str,
    search_input: bool,
) -> Result<(), StoreError> {
    let content = NewContent {
        is_search_input: search_input,
        state: IndexState::Queued,
        ..database_file(uid, company, &format!("d/{uid}.step"))
    };
    tx.upsert_file(&content, "t")?;
    tx.enqueue_job(uid, "t")
}

#[test]
fn search_inputs_go_first_then_companies_take_turns_and_a_returned_job_keeps_its_place() {
    for store in stores() {
        let (a, b) = store.write(|tx| {
            let a = tx.ensure_company("A")?;
            let b = tx.ensure_company("B")?;
            // A queues three database files, then B one, then B a search input.
            for (uid, company, search_input) in [
                ("a1", &a, false),
                ("a2", &a, false),
                ("a3", &a, false),
                ("b1", &b, false),
                ("b2", &b, true),
            ] {
                queue(tx, uid, company, search_input)?;
            }
            Ok((a, b))
        });
        let mut order = Vec::new();
        for _ in 0..5 {
            let job = store
                .store
                .queue_tx_blocking(|tx| tx.claim_next_job())
                .unwrap()
                .unwrap();
            order.push(job);
        }
        let uids: Vec<&str> = order.iter().map(|job| job.uid.as_str()).collect();
        // The search input first; then A (B is busy with it); then, each busy with one, the older
        // file (a2); then B's (A is busy with two); then A's last.
        assert_eq!(uids, ["b2", "a1", "a2", "b1", "a3"], "{}", store.engine);
        assert!(order[0].is_search_input);
        assert_eq!(order[0].company_id, b);
        store.write(|tx| {
            assert_eq!(
                tx.find_any_file("a3")?.unwrap().state,
                IndexState::InProgress
            );
            assert!(tx.claim_next_job()?.is_none());
            tx.return_job_to_queue(&order[4])?;
            let depths = tx.queue_depths()?;
            assert!(
                depths.contains(&QueueDepth {
                    company_id: a.clone(),
                    queued: 1,
                    in_progress: 2,
                }),
                "{}: {depths:?}",
                store.engine
            );
            assert_eq!(depths.len(), 2);
            assert_eq!(tx.claim_next_job()?.unwrap().uid, "a3", "{}", store.engine);
            Ok(())
        });
    }
}

#[test]
fn a_file_queued_again_loses_its_views_and_waits_behind_the_others() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("A")?;
            queue(tx, "a", &company, false)?;
            crate::support::indexed(
                tx,
                &database_file("b", &company, "d/b.png"),
                &[],
                "",
                &[b"v"],
            )?;
            tx.requeue_for_indexing("b", "later")?;
            let record = tx.find_any_file("b")?.unwrap();
            assert_eq!(record.state, IndexState::Queued, "{}", store.engine);
            assert!(tx.views_of("b")?.is_empty());
            assert_eq!(tx.claim_next_job()?.unwrap().uid, "a");
            assert_eq!(tx.claim_next_job()?.unwrap().uid, "b");
            Ok(())
        });
    }
}

#[test]
fn a_company_with_nothing_queued_is_counted_at_zero() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Idle")?;
            assert_eq!(
                tx.queue_depths()?,
                [QueueDepth {
                    company_id: company,
                    queued: 0,
                    in_progress: 0,
                }],
                "{}",
                store.engine
            );
            Ok(())
        });
    }
}
