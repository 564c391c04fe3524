//! The Library's listing: newest first, a page at a time, narrowed by extension, folder and the
//! files a filter selected; alike on both engines.

use std::collections::HashSet;

use partlens_store::model::{ExtensionFilter, Listing, NewContent};

use crate::support::{database_file, stores};

#[test]
fn a_page_lists_the_newest_first_and_counts_every_file_its_conditions_keep() {
    for store in stores() {
        let company = store.write(|tx| {
            let company = tx.ensure_company("A")?;
            // Uploaded one a second; two in the same second (the later record first).
            for (uid, path, at) in [
                ("1", "Parts/a.png", "2026-01-01T00:00:01Z"),
                ("2", "Parts/Sub/b.stl", "2026-01-01T00:00:02Z"),
                ("3", "Other/c.png", "2026-01-01T00:00:03Z"),
                ("4", "Parts/d.png", "2026-01-01T00:00:03Z"),
                ("5", "Partsx/e.png", "2026-01-01T00:00:05Z"),
            ] {
                let mut content = database_file(uid, &company, path);
                content.extension = format!(".{}", path.rsplit('.').next().unwrap());
                tx.upsert_file(&content, at)?;
            }
            let input = NewContent {
                is_search_input: true,
                ..database_file("input", &company, "input.png")
            };
            tx.upsert_file(&input, "2026-01-01T00:00:09Z")?;
            Ok(company)
        });
        let page = |listing: &Listing<'_>| -> (usize, Vec<String>) {
            let listed = store.read(|tx| tx.list_library_page(&company, listing));
            let uids = listed
                .records
                .into_iter()
                .map(|record| record.uid)
                .collect();
            (listed.total, uids)
        };
        let all = Listing {
            limit: 10,
            ..Listing::default()
        };
        assert_eq!(
            page(&all),
            (5, to_strings(&["5", "4", "3", "2", "1"])),
            "{}",
            store.engine
        );
        let second = Listing {
            offset: 2,
            limit: 2,
            ..Listing::default()
        };
        assert_eq!(page(&second), (5, to_strings(&["3", "2"])));
        let folder = Listing {
            folder: Some("/parts/"),
            limit: 10,
            ..Listing::default()
        };
        assert_eq!(
            page(&folder),
            (3, to_strings(&["4", "2", "1"])),
            "{}",
            store.engine
        );
        let pictures = ExtensionFilter::OneOf(vec![".png".into()]);
        let others = ExtensionFilter::NoneOf(vec![".png".into()]);
        let of = |filter| Listing {
            extensions: Some(filter),
            limit: 10,
            ..Listing::default()
        };
        assert_eq!(page(&of(&pictures)).0, 4);
        assert_eq!(page(&of(&others)), (1, to_strings(&["2"])));
        let matching: HashSet<String> = to_strings(&["1", "3", "5"]).into_iter().collect();
        let selected = Listing {
            matching: Some(&matching),
            offset: 1,
            limit: 1,
            ..Listing::default()
        };
        assert_eq!(page(&selected), (3, to_strings(&["3"])), "{}", store.engine);
    }
}

fn to_strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|text| (*text).to_owned()).collect()
}
