//! `indexAssemblyComponents=true` over HTTP on 127.0.0.1, with the real CAx-IF AS1 assembly
//! (`../shared/realworld/step/`): each component gets a searchable record under the assembly's
//! folder, linked to its direct parents with the tree's quantities; the assembly is completed once
//! they are; an overwrite makes no duplicates and a delete takes the components with it. Without
//! the parameter there are no component records.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use partlens_testkit::realworld::corpus_file;
use partlens_testkit::service as service_support;
use service_support::{Session, TestService};

const AS1: &str = "step/pythonocc_core__as1_pe_203.stp";

/// `PUT /api/FileBinary` of a company-database file at `path` with `extra` parameters.
async fn put_model(
    session: &Session,
    path: &str,
    extra: &[(&str, &str)],
    bytes: Vec<u8>,
) -> service_support::Reply {
    let mut query = partlens_api::encoding::QueryString::new();
    query.push("file", path).push("isSearchInput", "false");
    for (name, value) in extra {
        query.push(name, *value);
    }
    session
        .put_binary(&format!("/api/FileBinary?{query}"), bytes)
        .await
}

/// A relation list (`AssemblyChildren` / `AssemblyParents`) as stored path → (UID, quantity).
fn related(list: &serde_json::Value) -> BTreeMap<String, (String, i64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["FileName"].as_str().unwrap().to_owned(),
                (
                    entry["UID"].as_str().unwrap().to_owned(),
                    entry["Quantity"].as_i64().unwrap(),
                ),
            )
        })
        .collect()
}

/// The stored path of AS1's component `name`.
fn component(name: &str) -> String {
    format!("Assemblies/as1/{name}.stp")
}

/// (stored path, quantity) of each entry of a relation list, sorted.
fn paths_and_quantities(list: &serde_json::Value) -> Vec<(String, i64)> {
    related(list)
        .into_iter()
        .map(|(path, (_, quantity))| (path, quantity))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_assembly_with_its_components_indexed_lists_them_each_searchable_replaced_and_deleted() {
    let Some(as1) = corpus_file(AS1) else {
        return;
    };
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    // Without the parameter: one record, no children.
    let reply = put_model(&ann, "Assemblies/as1.stp", &[], as1.clone()).await;
    reply.expect(200);
    let assembly_uid = reply.string();
    let plain = ann.file_record(&assembly_uid).await;
    assert_eq!(plain["IndexingFinished"], true, "{plain}");
    assert_eq!(plain["AssemblyChildren"], serde_json::json!([]));
    assert_eq!(ann.library_total().await, 1);
    // With it, in place.
    let flag = [("indexAssemblyComponents", "true")];
    let reply = put_model(&ann, "Assemblies/as1.stp", &flag, as1.clone()).await;
    reply.expect(200);
    assert_eq!(reply.string(), assembly_uid);
    let assembly = ann.file_record(&assembly_uid).await;
    assert_eq!(assembly["IndexingFinished"], true, "{assembly}");
    // Its direct components, two L-bracket sets.
    assert_eq!(
        paths_and_quantities(&assembly["AssemblyChildren"]),
        [
            (component("L_BRACKET_ASSEMBLY_ASM"), 2),
            (component("PLATE"), 1),
            (component("ROD_ASM"), 1),
        ]
    );
    // Eight components (leaf parts and subassemblies) beside the assembly.
    assert_eq!(ann.library_total().await, 9);
    let mut uids = BTreeMap::new();
    let mut pending = vec![assembly.clone()];
    while let Some(parent) = pending.pop() {
        for (path, (uid, _)) in related(&parent["AssemblyChildren"]) {
            if let std::collections::btree_map::Entry::Vacant(entry) = uids.entry(path) {
                let child = ann.file_record(&uid).await;
                assert_eq!(child["IndexingFinished"], true, "{child}");
                assert_eq!(child["HasThumbnail"], true, "{child}");
                entry.insert(uid);
                pending.push(child);
            }
        }
    }
    assert_eq!(uids.len(), 8, "{uids:?}");
    // Each L-bracket set holds three nut-and-bolt sets.
    let bracket_set = ann
        .file_record(&uids[&component("L_BRACKET_ASSEMBLY_ASM")])
        .await;
    assert_eq!(
        paths_and_quantities(&bracket_set["AssemblyChildren"]),
        [
            (component("L-BRACKET"), 1),
            (component("NUT_BOLT_ASSEMBLY_ASM"), 3),
        ]
    );
    assert_eq!(
        related(&bracket_set["AssemblyParents"])
            .into_keys()
            .collect::<Vec<_>>(),
        ["Assemblies/as1.stp"]
    );
    // The nut names both subassemblies that use it.
    let nut = ann.file_record(&uids[&component("NUT")]).await;
    assert_eq!(
        paths_and_quantities(&nut["AssemblyParents"]),
        [
            (component("NUT_BOLT_ASSEMBLY_ASM"), 1),
            (component("ROD_ASM"), 2),
        ]
    );
    let extracted = nut["ExtractedAttributes"].to_string();
    assert!(extracted.contains("part_number=NUT"), "{extracted}");
    // A search by a component's own file finds its record first.
    for (key, name) in [("L-BRACKET", "L-BRACKET"), ("BOLT", "BOLT")] {
        let bytes = partlens_geometry::step::component_file(&as1, key).unwrap();
        let input = ann.upload_search_input(".stp", &bytes, false).await;
        let found = ann.search_uids(&format!("fileUID={input}")).await;
        assert_eq!(found.first(), Some(&uids[&component(name)]), "{name}");
    }
    // The same nut uploaded on its own names the nut's assemblies too.
    let nut_bytes = partlens_geometry::step::component_file(&as1, "NUT").unwrap();
    let reply = put_model(&ann, "Parts/nut.stp", &[], nut_bytes).await;
    reply.expect(200);
    let alone_uid = reply.string();
    let alone = ann.file_record(&alone_uid).await;
    assert_eq!(
        paths_and_quantities(&alone["AssemblyParents"]),
        paths_and_quantities(&nut["AssemblyParents"])
    );
    for entry in alone["AssemblyParents"].as_array().unwrap() {
        assert_eq!(entry["SamePartAs"], uids[&component("NUT")].as_str());
    }
    // A part of another shape names none.
    let bolt = ann.file_record(&uids[&component("BOLT")]).await;
    assert_eq!(
        related(&bolt["AssemblyParents"])
            .into_keys()
            .collect::<Vec<_>>(),
        [component("NUT_BOLT_ASSEMBLY_ASM")]
    );
    // The assembly filter: the assembly and its three subassemblies; the parts.
    let assemblies = [
        assembly_uid.clone(),
        uids[&component("L_BRACKET_ASSEMBLY_ASM")].clone(),
        uids[&component("NUT_BOLT_ASSEMBLY_ASM")].clone(),
        uids[&component("ROD_ASM")].clone(),
    ];
    let mut kept = ann.search_uids("FT=is_assembly=[true]").await;
    kept.sort();
    let mut expected = assemblies.to_vec();
    expected.sort();
    assert_eq!(kept, expected);
    let parts = ann.search_uids("FT=is_assembly=[false]").await;
    assert_eq!(parts.len(), 6, "five parts and the nut alone: {parts:?}");
    assert!(parts.contains(&alone_uid));
    assert!(!parts.iter().any(|uid| assemblies.contains(uid)));
    // Uploaded again (overwrite): the same records, no duplicates.
    let overwrite = [
        ("indexAssemblyComponents", "true"),
        ("overwriteFile", "true"),
    ];
    let reply = put_model(&ann, "Assemblies/as1.stp", &overwrite, as1.clone()).await;
    reply.expect(200);
    assert_eq!(reply.string(), assembly_uid);
    // Nine, and the stand-alone nut.
    assert_eq!(ann.library_total().await, 10);
    let again = ann.file_record(&assembly_uid).await;
    assert_eq!(
        related(&again["AssemblyChildren"]),
        related(&assembly["AssemblyChildren"])
    );
    // Deleting the assembly deletes its components.
    let admin = service.session("admin").await;
    admin
        .delete(&format!("/api/File?fileUID={assembly_uid}"))
        .await
        .expect(200);
    for uid in uids.values() {
        ann.get(&format!("/api/File?fileUID={uid}"))
            .await
            .expect(404);
    }
    assert_eq!(ann.library_total().await, 1);
    let alone = ann.file_record(&alone_uid).await;
    assert_eq!(alone["AssemblyParents"], serde_json::json!([]));
}
