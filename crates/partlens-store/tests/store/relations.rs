//! Parent/child relations between files: replaced as a whole, read from either side in order, and
//! gone with either file; alike on both engines.

use partlens_store::model::NewRelation;

use crate::support::{database_file, stores};

fn child(uid: &str, quantity: i64, reference: Option<&str>) -> NewRelation {
    NewRelation {
        child_uid: uid.into(),
        quantity,
        reference: reference.map(str::to_owned),
    }
}

#[test]
fn children_are_replaced_in_order_read_from_both_sides_and_go_with_either_file() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            for (uid, path) in [
                ("kit", "d/kit.zip"),
                ("set", "d/set.step"),
                ("bolt", "d/kit/bolt.step"),
                ("nut", "d/kit/nut.step"),
                ("washer", "d/kit/washer.step"),
            ] {
                tx.upsert_file(&database_file(uid, &company, path), "t")?;
            }
            tx.replace_children(
                "kit",
                &[
                    child("nut", 1, None),
                    child("bolt", 1, None),
                    child("washer", 1, None),
                ],
            )?;
            tx.replace_children("set", &[child("nut", 6, Some("N1"))])?;
            let kit: Vec<(String, i64)> = tx
                .children_of("kit")?
                .into_iter()
                .map(|relation| (relation.child_uid, relation.position))
                .collect();
            assert_eq!(
                kit,
                [("nut".into(), 0), ("bolt".into(), 1), ("washer".into(), 2)],
                "{}",
                store.engine
            );
            // Replaced as a whole: no duplicates, the new order.
            tx.replace_children("kit", &[child("washer", 1, None), child("nut", 1, None)])?;
            let kit: Vec<String> = tx
                .children_of("kit")?
                .into_iter()
                .map(|relation| relation.child_uid)
                .collect();
            assert_eq!(kit, ["washer", "nut"], "{}", store.engine);
            let parents = tx.parents_of("nut")?;
            let named: Vec<(&str, i64, Option<&str>)> = parents
                .iter()
                .map(|relation| {
                    (
                        relation.parent_uid.as_str(),
                        relation.quantity,
                        relation.reference.as_deref(),
                    )
                })
                .collect();
            assert_eq!(
                named,
                [("kit", 1, None), ("set", 6, Some("N1"))],
                "{}",
                store.engine
            );
            assert!(tx.parents_of("bolt")?.is_empty());
            // A relation goes with either of its files.
            tx.delete_file("nut")?;
            assert_eq!(tx.children_of("kit")?.len(), 1, "{}", store.engine);
            assert!(tx.children_of("set")?.is_empty(), "{}", store.engine);
            tx.delete_file("kit")?;
            assert!(tx.parents_of("washer")?.is_empty(), "{}", store.engine);
            Ok(())
        });
    }
}
