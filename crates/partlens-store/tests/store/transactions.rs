//! Transactions: counted by kind, a write rolled back whole when its work fails, each engine's
//! name and schema version; alike on both engines.

use partlens_store::{StoreError, TransactionCounts};

use crate::support::{database_file, stores};

#[test]
fn the_store_counts_its_transactions_by_kind() {
    for store in stores() {
        let before = store.store.transaction_counts();
        store.read(|tx| tx.metadata_generation());
        store.read(|tx| tx.metadata_generation());
        store.write(|tx| tx.ensure_company("A"));
        store
            .store
            .queue_tx_blocking(|tx| tx.claim_next_job())
            .unwrap();
        let counted = store.store.transaction_counts().since(&before);
        assert_eq!(
            counted,
            TransactionCounts {
                reads: 2,
                writes: 1,
                queue: 1,
            },
            "{}",
            store.engine
        );
        // Clones count together.
        let clone = store.store.clone();
        clone
            .read_tx_blocking(|tx| tx.metadata_generation())
            .unwrap();
        assert_eq!(store.store.transaction_counts().since(&before).reads, 3);
    }
}

#[test]
fn a_write_whose_work_fails_leaves_nothing_behind() {
    for store in stores() {
        let company = store.write(|tx| tx.ensure_company("A"));
        let failed = store
            .store
            .write_tx_blocking(|tx| -> Result<(), StoreError> {
                tx.upsert_file(&database_file("a", &company, "d/a.png"), "t")?;
                Err(StoreError::Refused("changed my mind".into()))
            });
        assert!(matches!(failed, Err(StoreError::Refused(_))));
        assert!(
            store.read(|tx| tx.find_any_file("a")).is_none(),
            "{}",
            store.engine
        );
    }
}

#[test]
fn each_engine_names_itself_and_is_at_its_current_schema() {
    let mut engines = Vec::new();
    for store in stores() {
        let (engine, (found, current)) = store.read(|tx| Ok((tx.engine(), tx.schema_versions()?)));
        assert_eq!(engine, store.engine);
        assert_eq!(found, current, "{engine}");
        assert_eq!(store.store.shared_by_nodes(), engine == "PostgreSQL");
        assert_eq!(store.store.node_id().is_some(), engine == "PostgreSQL");
        engines.push(engine);
    }
    assert!(engines.contains(&"SQLite"));
}
