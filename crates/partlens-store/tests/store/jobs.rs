//! The indexing queue: claimed fairly, returned in its place, counted by company; alike on both
//! engines.

use partlens_store::model::{IndexState, NewContent, QueueDepth};
use partlens_store::{DatabaseUrl, Store, StoreError, StoreTx};

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

/// Records a queued search input of company `company` and puts it in the queue.
fn queue_input(tx: &mut dyn StoreTx, uid: &str, company: &str) {
    tx.upsert_file(
        &NewContent {
            uid: uid.into(),
            company_id: company.into(),
            owner_user_id: 1,
            is_search_input: true,
            stored_path: format!("{uid}.png"),
            display_name: format!("{uid}.png"),
            extension: ".png".into(),
            size: 2000,
            state: IndexState::Queued,
            callback_param: None,
            text_only: false,
        },
        "2026-11-28T00:00:00.000Z",
    )
    .unwrap();
    tx.enqueue_job(uid, "2026-11-28T00:00:00.000Z").unwrap();
}

#[test]
fn a_job_claimed_by_one_node_is_not_claimed_by_another_until_that_node_dies() {
    let Some(database) = partlens_testkit::postgres::database() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (path, url) = (dir.path().to_path_buf(), database.url.clone());
    let (first_node, held) = {
        let url = DatabaseUrl::parse(&url).unwrap();
        let first = Store::open_configured_blocking(&path, Some(&url)).unwrap();
        let second = Store::open_configured_blocking(&path, Some(&url)).unwrap();
        first
            .write_tx_blocking(|tx| -> Result<(), StoreError> {
                let company = tx.ensure_company("Acme")?;
                for uid in ["a", "b", "c"] {
                    queue_input(tx, uid, &company);
                }
                Ok(())
            })
            .unwrap();
        // The first node's claim is still open (its transaction not committed) while the second
        // claims: the second skips the locked job instead of waiting for it.
        let (claimed, claimed_seen) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holder = first.clone();
        let holding = std::thread::spawn(move || {
            holder.queue_tx_blocking(|tx| -> Result<_, StoreError> {
                let job = tx.claim_next_job()?;
                claimed.send(()).unwrap();
                released.recv().unwrap();
                Ok(job)
            })
        });
        claimed_seen.recv().unwrap();
        let beside = second.queue_tx_blocking(|tx| tx.claim_next_job()).unwrap();
        release.send(()).unwrap();
        let held = holding.join().unwrap().unwrap().unwrap();
        let beside = beside.unwrap();
        assert_eq!(held.uid, "a");
        assert_eq!(
            beside.uid, "b",
            "the locked job was skipped, not waited for"
        );
        // Committed claims of live nodes stay theirs.
        let third = second.queue_tx_blocking(|tx| tx.claim_next_job()).unwrap();
        assert_eq!(third.unwrap().uid, "c");
        assert!(
            second
                .queue_tx_blocking(|tx| tx.claim_next_job())
                .unwrap()
                .is_none()
        );
        // A job given back is claimable again.
        second
            .queue_tx_blocking(|tx| tx.return_job_to_queue(&beside))
            .unwrap();
        let again = first.queue_tx_blocking(|tx| tx.claim_next_job()).unwrap();
        assert_eq!(again.unwrap().uid, "b");
        let node = first.node_id().unwrap().to_owned();
        drop(first);
        (node, held)
    };
    // Claims and returns never move the metadata generation (they run beside the writers).
    let generation = database.query_text("SELECT value FROM metadata_generation");
    // The first node died (its store is gone and its heartbeat stopped long enough ago): its
    // jobs ("a" and "b") are taken by the other node, and by nobody twice.
    database.execute(&format!(
        "UPDATE nodes SET heartbeat_at = now() - interval '1 hour' WHERE id = '{first_node}'"
    ));
    let (path, url) = (dir.path().to_path_buf(), database.url.clone());
    let retaken = {
        let url = DatabaseUrl::parse(&url).unwrap();
        let survivor = Store::open_configured_blocking(&path, Some(&url)).unwrap();
        let mut retaken = Vec::new();
        while let Some(job) = survivor
            .queue_tx_blocking(|tx| tx.claim_next_job())
            .unwrap()
        {
            retaken.push(job);
        }
        retaken
    };
    let uids: Vec<&str> = retaken.iter().map(|job| job.uid.as_str()).collect();
    assert_eq!(uids, ["a", "b"]);
    assert_eq!(retaken[0].revision, held.revision);
    assert_eq!(
        database.query_text("SELECT value FROM metadata_generation"),
        generation
    );
}
