//! Saved attributes, their names and values, and feedback, alike on both engines.

use partlens_api::Attribute;
use partlens_store::StoreError;
use partlens_store::model::{AttributeCaps, Feedback};

use crate::support::{database_file, stores};

const UNCAPPED: AttributeCaps = AttributeCaps {
    max_attributes: usize::MAX,
    max_values: usize::MAX,
};

fn attributes(texts: &[&str]) -> Vec<Attribute> {
    texts
        .iter()
        .map(|text| Attribute::parse(text).unwrap())
        .collect()
}

#[test]
fn a_merge_replaces_the_same_name_and_unit_and_keeps_the_others_within_the_caps() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            tx.upsert_file(&database_file("a", &company, "d/a.png"), "t")?;
            tx.replace_attributes(
                &company,
                "a",
                &attributes(&["material=steel", "region=EU|US"]),
            )?;
            tx.merge_attributes(
                &company,
                "a",
                &attributes(&["Material=brass", "weight(kg)=2"]),
                &UNCAPPED,
            )?;
            assert_eq!(
                tx.attribute_texts_of("a")?,
                ["Material=brass", "region=EU|US", "weight(kg)=2"],
                "{}",
                store.engine
            );
            let caps = AttributeCaps {
                max_attributes: 3,
                max_values: 5,
            };
            assert!(matches!(
                tx.merge_attributes(&company, "a", &attributes(&["d=4"]), &caps),
                Err(StoreError::Refused(_))
            ));
            assert_eq!(tx.attribute_texts_of("a")?.len(), 3, "nothing written");
            Ok(())
        });
    }
}

#[test]
fn the_attributes_of_several_files_are_read_in_one_call_each_in_its_order() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            for (uid, path) in [("a", "d/a.png"), ("b", "d/b.png"), ("c", "d/c.png")] {
                tx.upsert_file(&database_file(uid, &company, path), "t")?;
            }
            tx.replace_attributes(&company, "a", &attributes(&["z=1", "material=steel"]))?;
            tx.replace_attributes(&company, "b", &attributes(&["region=EU|US"]))?;
            let uids: Vec<String> = ["a", "b", "c", "gone"].map(str::to_owned).to_vec();
            let texts = tx.attribute_texts_of_files(&uids)?;
            assert_eq!(texts["a"], ["z=1", "material=steel"], "{}", store.engine);
            assert_eq!(texts["b"], ["region=EU|US"], "{}", store.engine);
            assert!(texts["c"].is_empty(), "{}", store.engine);
            assert!(
                texts.get("gone").is_none_or(Vec::is_empty),
                "{}",
                store.engine
            );
            for uid in ["a", "b"] {
                assert_eq!(texts[uid], tx.attribute_texts_of(uid)?, "{}", store.engine);
            }
            Ok(())
        });
    }
}

#[test]
fn attributes_of_a_file_that_is_gone_or_another_companys_are_not_found() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            tx.upsert_file(&database_file("a", &company, "d/a.png"), "t")?;
            tx.upsert_file(&database_file("b", &company, "d/b.png"), "t")?;
            tx.delete_file("a")?;
            for result in [
                tx.replace_attributes(&company, "a", &attributes(&["material=steel"])),
                tx.merge_attributes(&company, "a", &attributes(&["material=steel"]), &UNCAPPED),
                tx.replace_attributes("another company", "b", &[]),
            ] {
                assert!(
                    matches!(result, Err(StoreError::NotFound(_))),
                    "{}: {result:?}",
                    store.engine
                );
            }
            Ok(())
        });
    }
}

#[test]
fn values_are_counted_one_by_one_and_names_listed_once() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            for uid in ["a", "b"] {
                tx.upsert_file(&database_file(uid, &company, &format!("d/{uid}.png")), "t")?;
            }
            tx.replace_attributes(&company, "a", &attributes(&["Region=EU|US", "w(kg)=1"]))?;
            tx.replace_attributes(&company, "b", &attributes(&["region=EU"]))?;
            assert_eq!(
                tx.attribute_value_counts(&company, "REGION", None)?,
                vec![("EU".to_owned(), 2), ("US".to_owned(), 1)],
                "{}",
                store.engine
            );
            assert_eq!(
                tx.attribute_value_counts(&company, "w", Some("KG"))?,
                vec![("1".to_owned(), 1)]
            );
            assert!(
                tx.attribute_value_counts(&company, "w", Some("g"))?
                    .is_empty()
            );
            let names = tx.company_attribute_names(&company)?;
            let listed: Vec<(&str, &str)> = names
                .iter()
                .map(|name| (name.name.as_str(), name.unit.as_str()))
                .collect();
            assert_eq!(listed, [("Region", ""), ("w", "kg")], "{}", store.engine);
            Ok(())
        });
    }
}

#[test]
fn a_feedback_id_is_replaced_within_its_company_only() {
    for store in stores() {
        store.write(|tx| {
            let feedback = Feedback {
                id: "f".into(),
                file_uid: "u".into(),
                company_id: "acme".into(),
                user_id: 1,
                external_user: String::new(),
                feedback: String::new(),
                attributes: vec!["a=b".into()],
            };
            assert!(tx.save_feedback(&feedback, "t")?);
            let again = Feedback {
                feedback: "second".into(),
                ..feedback.clone()
            };
            assert!(tx.save_feedback(&again, "t")?, "{}", store.engine);
            let foreign = Feedback {
                company_id: "globex".into(),
                ..feedback
            };
            assert!(!tx.save_feedback(&foreign, "t")?, "{}", store.engine);
            Ok(())
        });
    }
}

#[test]
fn extracted_names_are_listed_not_custom_and_a_single_value_is_given() {
    use partlens_store::model::{IndexedContent, NewContent};
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            for (uid, material) in [("a", "steel"), ("b", "Steel")] {
                tx.upsert_file(&database_file(uid, &company, &format!("d/{uid}.png")), "t")?;
                tx.replace_attributes(
                    &company,
                    uid,
                    &attributes(&[&format!("material={material}"), &format!("code={uid}")]),
                )?;
                let content = IndexedContent {
                    extracted_attributes: vec!["width_px=10".into(), "material=brass".into()],
                    ..IndexedContent::default()
                };
                assert!(tx.save_indexing(uid, 1, Some(&content), "2026-12-05T00:00:00.000Z")?);
            }
            // A search input's extracted names are not the company's.
            let input = NewContent {
                is_search_input: true,
                ..database_file("i", &company, "i.png")
            };
            tx.upsert_file(&input, "t")?;
            let content = IndexedContent {
                extracted_attributes: vec!["only_in_input=1".into()],
                ..IndexedContent::default()
            };
            tx.save_indexing("i", 1, Some(&content), "t")?;
            let names = tx.company_attribute_names(&company)?;
            let listed: Vec<(&str, Option<&str>, bool)> = names
                .iter()
                .map(|name| {
                    (
                        name.name.as_str(),
                        name.single_value.as_deref(),
                        name.custom,
                    )
                })
                .collect();
            assert_eq!(
                listed,
                [
                    ("code", None, true),
                    ("material", Some("Steel"), true),
                    ("width_px", None, false)
                ],
                "{}",
                store.engine
            );
            assert!(
                names.iter().all(|name| name.last_set_at.is_some()),
                "{}: {names:?}",
                store.engine
            );
            Ok(())
        });
    }
}

#[test]
fn categories_are_kept_by_company_with_their_rules() {
    for store in stores() {
        store.write(|tx| {
            let acme = tx.ensure_company("Acme")?;
            let globex = tx.ensure_company("Globex")?;
            assert_eq!(tx.company_named("acme")?, Some(acme.clone()));
            assert_eq!(tx.company_named("Initech")?, None);
            let drawings = tx.add_category(&acme, None, " Drawings ", &[], "t")?;
            assert_eq!((drawings.id, drawings.name.as_str()), (1, "Drawings"));
            let models = tx.add_category(&acme, Some(5), "Models", &["material".into()], "t")?;
            assert_eq!(models.id, 5);
            assert!(matches!(
                tx.add_category(&acme, Some(5), "Other", &[], "t"),
                Err(StoreError::Refused(_))
            ));
            assert!(matches!(
                tx.add_category(&acme, None, "MODELS", &[], "t"),
                Err(StoreError::Refused(_))
            ));
            assert_eq!(tx.add_category(&globex, None, "Models", &[], "t")?.id, 1);
            assert_eq!(tx.categories_of(&acme)?, vec![drawings.clone(), models]);
            assert!(tx.remove_category(&acme, 5)?);
            assert!(!tx.remove_category(&acme, 5)?);
            assert_eq!(tx.categories_of(&acme)?, vec![drawings]);
            Ok(())
        });
    }
}
