//! File categories (`categoryId` of an upload): the rule a company-database upload is held to,
//! and the administration of a company's categories (`partlens-service category add|list|
//! remove`, blocking functions like [`crate::admin`]'s).
//!
//! Behaviour the interface leaves open, as this service defines it (docs/OPERATIONS.md):
//! - A company with at least one category requires `categoryId` naming one of them on every
//!   company-database upload: 400 otherwise, listing the valid ids.
//! - A company without categories refuses `categoryId` (400 "this company has no categories"):
//!   a number that files nothing is a mistake to report, not to drop.
//! - Search inputs are not filed in the company database (they carry no attributes either), so
//!   `categoryId` is not read for them.
//! - The category is saved on the file as the attribute `category=<name>` (in place of any
//!   `category` the upload's `attributes` hold): returned on its record, found by the ordinary
//!   attribute filters (`FT=category=[Drawings]`). An upload whose category requires attributes
//!   it lacks is a 400 naming them; an upload that sends no `attributes` over a stored file is
//!   checked with the attributes the file keeps.
//! - Removing a category leaves the files filed under it with their `category=<name>` attribute.

use std::path::Path;

use partlens_api::Attribute;
use partlens_store::model::categories::CATEGORY_ATTRIBUTE;
use partlens_store::model::{AttributeCaps, Category, name_key, one_per_name};
use partlens_store::{DatabaseUrl, Store, StoreTx, iso_now};

use super::error::ServiceError;
use super::upload_params::{UploadParams, UploadTarget};

/// The category a company-database upload is filed under, checked against the company's
/// categories (see the module's rules); `None` for a search input, or a company without
/// categories and no `categoryId`.
pub fn category_of_upload(
    tx: &mut dyn StoreTx,
    company_id: &str,
    params: &UploadParams,
) -> Result<Option<Category>, ServiceError> {
    if matches!(params.target, UploadTarget::SearchInput { .. }) {
        return Ok(None);
    }
    let categories = tx.categories_of(company_id)?;
    match (params.category_id, categories.is_empty()) {
        (None, true) => Ok(None),
        (Some(id), true) => Err(ServiceError::BadRequest(format!(
            "categoryId={id}: this company has no categories; upload without categoryId"
        ))),
        (None, false) => Err(ServiceError::BadRequest(format!(
            "this company files its uploads by category: send categoryId, one of {}",
            id_list(&categories)
        ))),
        (Some(id), false) => {
            let list = id_list(&categories);
            categories
                .into_iter()
                .find(|category| category.id == id)
                .map(Some)
                .ok_or_else(|| {
                    ServiceError::BadRequest(format!(
                        "categoryId={id} is not a category of this company; use one of {list}"
                    ))
                })
        }
    }
}

/// The valid ids with their names, for messages: `1 (Drawings), 2 (Models)`.
fn id_list(categories: &[Category]) -> String {
    categories
        .iter()
        .map(|category| format!("{} ({})", category.id, category.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The attributes a database upload filed under `category` leaves on file `uid`: those it sends
/// (`sent`), or when it sends none those the file keeps, with `category=<name>` in place of any
/// other `category`. 400 naming the attributes the category requires that they lack, or when the
/// category takes them over `caps`.
pub fn attributes_with_category(
    tx: &mut dyn StoreTx,
    uid: &str,
    sent: Option<&[Attribute]>,
    category: &Category,
    caps: &AttributeCaps,
) -> Result<Vec<Attribute>, ServiceError> {
    let base: Vec<Attribute> = match sent {
        Some(list) => list.to_vec(),
        None => tx
            .attribute_texts_of(uid)?
            .iter()
            .filter_map(|text| Attribute::parse(text).ok())
            .collect(),
    };
    let list = one_per_name(
        base.into_iter()
            .filter(|attribute| name_key(&attribute.name) != CATEGORY_ATTRIBUTE)
            .chain([category.attribute()]),
    );
    let missing = category.missing_from(&list);
    if !missing.is_empty() {
        return Err(ServiceError::BadRequest(format!(
            "category {} requires the attributes {}; send them in attributes",
            category.name,
            missing.join(", ")
        )));
    }
    caps.check(&list)?;
    Ok(list)
}

/// The id of the company called `company` in `store`; 404 when there is none.
fn company_id(tx: &mut dyn StoreTx, company: &str) -> Result<String, ServiceError> {
    tx.company_named(company)?
        .ok_or_else(|| ServiceError::NotFound(format!("there is no company called {company}")))
}

/// Adds a category to an existing company of the store a service is configured with (see
/// [`crate::admin::add_user_in`]): `id` `None` takes one more than the largest. Returns it.
pub fn add_category_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    id: Option<i64>,
    name: &str,
    required_attributes: &[String],
) -> Result<Category, ServiceError> {
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.write_tx_blocking(|tx| -> Result<Category, ServiceError> {
        let company_id = company_id(tx, company)?;
        Ok(tx.add_category(&company_id, id, name, required_attributes, &iso_now())?)
    })
}

/// The categories of a company of the store a service is configured with, by id.
pub fn list_categories_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
) -> Result<Vec<Category>, ServiceError> {
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.read_tx_blocking(|tx| -> Result<Vec<Category>, ServiceError> {
        let company_id = company_id(tx, company)?;
        Ok(tx.categories_of(&company_id)?)
    })
}

/// Removes category `id` of a company of the store a service is configured with; 404 when the
/// company has no such category.
pub fn remove_category_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    id: i64,
) -> Result<(), ServiceError> {
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.write_tx_blocking(|tx| -> Result<(), ServiceError> {
        let company_id = company_id(tx, company)?;
        if tx.remove_category(&company_id, id)? {
            Ok(())
        } else {
            Err(ServiceError::NotFound(format!(
                "company {company} has no category {id}"
            )))
        }
    })
}

/// A category as `partlens-service category list` prints it: id, name and the attributes it
/// requires, separated by tabs.
pub fn category_line(category: &Category) -> String {
    format!(
        "{}\t{}\t{}",
        category.id,
        category.name,
        category.required_attributes.join(",")
    )
}
