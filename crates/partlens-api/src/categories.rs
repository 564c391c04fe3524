//! `GET /api/Categories`, beyond the interface (which has no way to list a company's file
//! categories): the categories an upload's `categoryId` may name, so that an upload form can offer
//! them by name. A service without the endpoint answers 404; a form then keeps a number field.

use serde::{Deserialize, Serialize};

/// One file category of the caller's company (`GET /api/Categories`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileCategory {
    /// The id an upload names it by (`categoryId`).
    #[serde(rename = "ID")]
    pub id: i64,
    /// Its name (the value of the file's `category` attribute).
    #[serde(rename = "Name")]
    pub name: String,
    /// Attribute names an upload of this category must carry.
    #[serde(rename = "RequiredAttributes")]
    pub required_attributes: Vec<String>,
}

#[cfg(feature = "client")]
mod client {
    use reqwest::Method;

    use super::FileCategory;
    use crate::client::{ApiClient, CALL_TIMEOUT, parse_json};
    use crate::encoding::QueryString;
    use crate::error::ApiError;

    impl ApiClient {
        /// The file categories of the caller's company, by id (`GET /api/Categories`, this
        /// service's own endpoint: another service answers 404, [`ApiError`]'s not-found).
        pub async fn company_categories(&self) -> Result<Vec<FileCategory>, ApiError> {
            let builder = self
                .request(Method::GET, "api/Categories", &QueryString::new())?
                .timeout(CALL_TIMEOUT);
            let reply = self.send(builder, &[]).await?;
            parse_json(&reply.body, "category list")
        }
    }
}
