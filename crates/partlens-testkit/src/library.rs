//! A large company library written straight into a store (a data folder's, or any [`Store`]: SQLite
//! or PostgreSQL), fast (no analysis, no views, no file bytes): records of pictures, models and
//! drawings in ten folders, each with a material, uploaded one second apart. For the Library's
//! tests, which page through the records and need none of them to be searchable by a picture
//! (`partlens_service::large_library` is the one with views, for search at scale, and takes longer
//! to write).

use std::path::Path;

use partlens_api::Attribute;
use partlens_store::model::{IndexState, IndexedContent, NewContent};
use partlens_store::{Store, StoreError};

/// Records written in one transaction.
const BATCH: usize = 2_000;

/// The UID of record `number`.
pub fn record_uid(number: usize) -> String {
    format!("00000000-0000-4000-8000-{number:012}")
}

/// The extension of record `number`: pictures, models and drawings in turn.
pub fn record_extension(number: usize) -> &'static str {
    [".png", ".stl", ".pdf"][number % 3]
}

/// The folder of record `number` (`Library/Group-3`).
pub fn record_folder(number: usize) -> String {
    format!("Library/Group-{}", number % 10)
}

/// The display name of record `number` (`part-00042.png`).
pub fn record_name(number: usize) -> String {
    format!("part-{number:05}{}", record_extension(number))
}

/// The material of record `number`: steel for even numbers, aluminium for odd ones.
pub fn record_material(number: usize) -> &'static str {
    if number.is_multiple_of(2) {
        "steel"
    } else {
        "aluminium"
    }
}

/// When record `number` was uploaded: one second after the one before it.
fn uploaded_at(number: usize) -> String {
    format!(
        "2026-01-01T{:02}:{:02}:{:02}.000Z",
        number / 3600,
        number / 60 % 60,
        number % 60
    )
}

/// Writes records 0..`count` for the company `company` (created when missing) into the store of
/// `data_dir`; record `count - 1` is the newest. Indexed, without views or pictures.
pub fn write_library(data_dir: &Path, company: &str, count: usize) {
    write_library_into(&Store::open_blocking(data_dir).unwrap(), company, count);
}

/// [`write_library`] into `store`, whichever engine holds it. Blocking, on a thread that drives no
/// async tasks.
pub fn write_library_into(store: &Store, company: &str, count: usize) {
    let company_id = store
        .write_tx_blocking(|tx| tx.ensure_company(company))
        .unwrap();
    for first in (0..count).step_by(BATCH) {
        store
            .write_tx_blocking(|tx| -> Result<(), StoreError> {
                for number in first..(first + BATCH).min(count) {
                    let uid = record_uid(number);
                    let now = uploaded_at(number);
                    let revision = tx.upsert_file(
                        &NewContent {
                            uid: uid.clone(),
                            company_id: company_id.clone(),
                            owner_user_id: 0,
                            is_search_input: false,
                            stored_path: format!(
                                "{}/{}",
                                record_folder(number),
                                record_name(number)
                            ),
                            display_name: record_name(number),
                            extension: record_extension(number).to_owned(),
                            size: 2_048 + number as u64,
                            state: IndexState::InProgress,
                            callback_param: None,
                            text_only: false,
                        },
                        &now,
                    )?;
                    tx.replace_attributes(
                        &company_id,
                        &uid,
                        &[
                            Attribute::parse(&format!("material={}", record_material(number)))
                                .unwrap(),
                        ],
                    )?;
                    let content = IndexedContent {
                        views: Vec::new(),
                        text: format!("part {number}"),
                        extracted_attributes: Vec::new(),
                        pmi_json: "[]".into(),
                        has_thumbnail: false,
                        has_large_image: false,
                        pages_json: String::new(),
                    };
                    tx.save_indexing(&uid, revision, Some(&content), &now)?;
                }
                Ok(())
            })
            .unwrap();
    }
}
