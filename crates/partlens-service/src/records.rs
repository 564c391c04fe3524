//! The wire shapes of stored files: the FileMap of `GET /api/File` (with `IndexingError`, the reason
//! in words, on a file that failed to index, and `TextOnly: true` on one uploaded with
//! `textOnly=true`) and the result items of search, built with the client's own types
//! (`partlens_api::model`) so both sides share one shape. `AssemblyParents` and
//! `AssemblyChildren` are read from the store's file relations ([`FileRelations`]), each entry an
//! object `{"UID", "FileName", "DisplayName", "Quantity"}` with `"ReferenceDesignator"` when the
//! relation has one (docs/ARCHITECTURE.md, the wire rules).

use partlens_api::Attribute;
use partlens_api::model::{ExtraFields, FileMap, ResultAttribute, SearchResultItem, ShapeResult};
use partlens_api::relations::{CHILD_COUNT_FIELD, PARENT_COUNT_FIELD};

use super::disk::ImageKind;
use super::failure_reason::FAILURE_REASON_FIELD;
use super::image_links::{ImageLinks, LinkBinding, Linked};
use super::pages::StoredPage;
use crate::caller::Caller;
use partlens_store::model::{FileRecord, IndexState, Relation, RelationCount};
use partlens_store::{StoreError, StoreTx};

/// The FileMap field that says a file was indexed for its text and attributes only
/// (`textOnly=true`): it has no views, thumbnail or large image, by request.
pub const TEXT_ONLY_FIELD: &str = "TextOnly";

/// Builds the image URLs of records for one caller, on the service's public origin.
pub struct ImageUrls<'a> {
    /// Signs the tokens.
    pub links: &'a ImageLinks,
    /// The public origin (`http://host:port`).
    pub origin: &'a str,
    /// Who the links are made for (they are bound to this user's credentials and company).
    pub viewer: &'a Caller,
    /// Now, Unix seconds.
    pub now: i64,
}

impl ImageUrls<'_> {
    /// The URL of what `linked` names of a record.
    fn url(&self, record: &FileRecord, linked: Linked) -> String {
        let binding = LinkBinding {
            user_id: self.viewer.user_id,
            credential_stamp: &self.viewer.credential_stamp,
            company_id: &record.company_id,
            generation: &record.uploaded_at,
        };
        self.links
            .url(self.origin, &record.uid, linked, self.now, &binding)
    }

    /// The thumbnail and large-image URLs of a record; empty when it has no picture.
    pub fn of(&self, record: &FileRecord) -> (String, String) {
        let url = |present: bool, kind| {
            if present {
                self.url(record, Linked::image(kind))
            } else {
                String::new()
            }
        };
        (
            url(record.has_thumbnail, ImageKind::Thumbnail),
            url(record.has_large_image, ImageKind::Large),
        )
    }

    /// The thumbnail and large-image URLs of one page of a drawing (page 1's are the record's
    /// own); empty for a picture the page does not have.
    pub fn of_page(&self, record: &FileRecord, page: &StoredPage) -> (String, String) {
        if page.number <= 1 {
            return self.of(record);
        }
        let url = |present: bool, kind| {
            if present {
                let page = page.number;
                self.url(record, Linked::Image { kind, page })
            } else {
                String::new()
            }
        };
        (
            url(page.thumbnail, ImageKind::Thumbnail),
            url(page.large, ImageKind::Large),
        )
    }

    /// The URL that serves a stored PDF inline (`GET /api/Pdf`); empty for any other file.
    pub fn pdf(&self, record: &FileRecord) -> String {
        if record.extension.eq_ignore_ascii_case(".pdf") {
            self.url(record, Linked::Pdf)
        } else {
            String::new()
        }
    }
}

/// Makes a FileMap or result item show page `page` of a drawing: `Page` names it, and the image
/// URLs (and `HasThumbnail`, where there is one) are that page's. A page the file does not have
/// changes nothing.
pub fn show_page(
    extra: &mut ExtraFields,
    images: (&mut String, &mut String),
    record: &FileRecord,
    pages: &[StoredPage],
    page: u32,
    urls: &ImageUrls<'_>,
) {
    extra.insert("Page".into(), serde_json::Value::from(page));
    if let Some(shown) = pages.iter().find(|shown| shown.number == page) {
        (*images.0, *images.1) = urls.of_page(record, shown);
    }
}

/// The page and image detail `includeShapelets=true` adds to a FileMap (`Pages`): per page its
/// `Page` number, `Name` (a DXF's model space or layout), `ImageSize` (pixels, the PMI boxes'),
/// `ThumbNailURLFromID` and `PNGURLFromID` (empty when the page has no such picture) and
/// `ViewCount` (its views in the visual index). A file without pages lists none.
pub fn page_detail(
    record: &FileRecord,
    pages: &[StoredPage],
    urls: &ImageUrls<'_>,
) -> serde_json::Value {
    let listed = pages
        .iter()
        .map(|page| {
            let (thumbnail, large) = urls.of_page(record, page);
            serde_json::json!({
                "Page": page.number,
                "Name": page.name,
                "ImageSize": page.size,
                "ThumbNailURLFromID": thumbnail,
                "PNGURLFromID": large,
                "ViewCount": page.view_count(),
            })
        })
        .collect();
    serde_json::Value::Array(listed)
}

/// A file's parents and children (each relation with the other file's record), as the FileMap
/// shows them.
#[derive(Clone, Debug, Default)]
pub struct FileRelations {
    /// The files that hold this one (a `.zip` bundle, an assembly), by parent UID.
    pub parents: Vec<(Relation, FileRecord)>,
    /// The files this one holds, in their order.
    pub children: Vec<(Relation, FileRecord)>,
    /// The assemblies that hold a file that is the same part as this one (same shape and size,
    /// as the duplicates search decides: [`crate::same_part_links`]), each relation as stored
    /// (its `child_uid` is that file's), by parent UID.
    pub same_part_parents: Vec<(Relation, FileRecord)>,
}

impl FileRelations {
    /// Reads the relations of file `uid` of the company, with the records they name (a relation
    /// to a file of another company, which no write makes, is left out).
    pub fn read(tx: &mut dyn StoreTx, company_id: &str, uid: &str) -> Result<Self, StoreError> {
        let parents = tx.parents_of(uid)?;
        let children = tx.children_of(uid)?;
        let with_records = |tx: &mut dyn StoreTx,
                            relations: Vec<Relation>,
                            other: fn(&Relation) -> &str|
         -> Result<Vec<(Relation, FileRecord)>, StoreError> {
            let uids: Vec<String> = relations.iter().map(|r| other(r).to_owned()).collect();
            let records = tx.find_files(company_id, &uids)?;
            Ok(relations
                .into_iter()
                .filter_map(|relation| {
                    let record = records
                        .iter()
                        .find(|record| record.uid == other(&relation))?
                        .clone();
                    Some((relation, record))
                })
                .collect())
        };
        Ok(Self {
            parents: with_records(tx, parents, |relation| &relation.parent_uid)?,
            children: with_records(tx, children, |relation| &relation.child_uid)?,
            same_part_parents: Vec::new(),
        })
    }
}

/// The field of an `AssemblyParents` entry that comes from a file of the same part: that file's
/// UID (the component the assembly lists).
pub const SAME_PART_FIELD: &str = "SamePartAs";

/// One entry of `AssemblyParents` / `AssemblyChildren`: the other file of the relation and how
/// many of the child the parent holds.
fn relation_entry(relation: &Relation, other: &FileRecord) -> serde_json::Value {
    let mut entry = serde_json::json!({
        "UID": other.uid,
        "FileName": other.stored_path,
        "DisplayName": other.display_name,
        "Quantity": relation.quantity,
    });
    if let (Some(reference), Some(fields)) = (&relation.reference, entry.as_object_mut()) {
        fields.insert(
            "ReferenceDesignator".into(),
            serde_json::Value::String(reference.clone()),
        );
    }
    entry
}

/// The FileMap of a record with its saved attributes (wire form, as uploaded) and its relations.
pub fn file_map(
    record: &FileRecord,
    attributes: Vec<String>,
    relations: &FileRelations,
    urls: &ImageUrls<'_>,
) -> FileMap {
    let (thumbnail_url, large_image_url) = urls.of(record);
    let mut extra = ExtraFields::new();
    if let (IndexState::Failed, Some(reason)) = (record.state, &record.failure_reason) {
        extra.insert(
            FAILURE_REASON_FIELD.into(),
            serde_json::Value::String(reason.clone()),
        );
    }
    if record.text_only {
        // Uploaded with textOnly=true: no views and no pictures, by request.
        extra.insert(TEXT_ONLY_FIELD.into(), serde_json::Value::Bool(true));
    }
    FileMap {
        uid: record.uid.clone(),
        viz_space_id: record.company_id.clone(),
        file_name: record.stored_path.clone(),
        display_name: record.display_name.clone(),
        attributes,
        extracted_attributes: record.extracted_attributes.clone(),
        has_thumbnail: record.has_thumbnail,
        thumbnail_url,
        large_image_url,
        pdf_url: urls.pdf(record),
        indexing_finished: record.state == IndexState::Completed,
        assembly_parents: relations
            .parents
            .iter()
            .map(|(relation, parent)| relation_entry(relation, parent))
            .chain(
                relations
                    .same_part_parents
                    .iter()
                    .map(|(relation, parent)| {
                        let mut entry = relation_entry(relation, parent);
                        if let Some(fields) = entry.as_object_mut() {
                            fields.insert(
                                SAME_PART_FIELD.into(),
                                serde_json::Value::String(relation.child_uid.clone()),
                            );
                        }
                        entry
                    }),
            )
            .collect(),
        assembly_children: relations
            .children
            .iter()
            .map(|(relation, child)| relation_entry(relation, child))
            .collect(),
        extra,
    }
}

/// Says on a search result or a Library file how many components it has
/// (`AssemblyChildCount`) and how many files hold it (`AssemblyParentCount`), each only when
/// there are any: the relations stored, which a card shows without listing them (the record's
/// `AssemblyParents` also names the assemblies of a part it is the same part as: a ranking a
/// record, too dear for a page of results).
pub fn add_relation_counts(extra: &mut ExtraFields, count: RelationCount) {
    for (field, value) in [
        (CHILD_COUNT_FIELD, count.children),
        (PARENT_COUNT_FIELD, count.parents),
    ] {
        if value > 0 {
            extra.insert(field.into(), serde_json::Value::from(value));
        }
    }
}

/// `name(unit)=v1|v2` with the name part lower-cased, as `ShapeResult.Attributes` shows it.
fn lower_cased_name(text: &str) -> String {
    match text.split_once('=') {
        Some((name, values)) => format!("{}={values}", name.to_lowercase()),
        None => text.to_owned(),
    }
}

/// A search result item: the record, its score (None for a search without inputs) and attributes.
pub fn result_item(
    record: &FileRecord,
    score: Option<f32>,
    attributes: &[String],
    urls: &ImageUrls<'_>,
) -> SearchResultItem {
    let (thumbnail_url, large_image_url) = urls.of(record);
    let mut extra = ExtraFields::new();
    extra.insert(
        "IndexingFinished".into(),
        serde_json::Value::Bool(record.state == IndexState::Completed),
    );
    SearchResultItem {
        uid: record.uid.clone(),
        file_name: record.stored_path.clone(),
        display_name: record.display_name.clone(),
        // Six decimals: enough to order by, without float noise in the JSON.
        score: score.map(|score| (f64::from(score) * 1e6).round() / 1e6),
        thumbnail_url,
        large_image_url,
        shape_result: ShapeResult {
            attributes: attributes
                .iter()
                .map(|text| lower_cased_name(text))
                .collect(),
            extra: ExtraFields::new(),
        },
        attributes: attributes
            .iter()
            .filter_map(|text| Attribute::parse(text).ok())
            .map(|attribute| ResultAttribute {
                name: attribute.wire_name(),
                value: attribute.joined_values(),
                extra: ExtraFields::new(),
            })
            .collect(),
        extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_result_names_are_lower_cased_and_values_kept() {
        assert_eq!(
            lower_cased_name("Weight(KG)=12.3|Abc"),
            "weight(kg)=12.3|Abc"
        );
        assert_eq!(lower_cased_name("Note="), "note=");
    }
}
