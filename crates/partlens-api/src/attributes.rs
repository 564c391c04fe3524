//! `GET/PUT/DELETE /api/FileAttributes` and `GET /api/AttributeValues`.

use reqwest::Method;

use super::attribute::Attribute;
use super::client::{ApiClient, CALL_TIMEOUT, parse_json};
use super::encoding::{QueryString, bool_reply, double_encoded_strings};
use super::error::ApiError;
use super::files::FileRef;
use super::model::{AttributeValue, FileAttribute};
use super::uid::FileUid;

impl ApiClient {
    /// The attribute names used by the caller's company, as the service sent them (a JSON array).
    pub async fn company_attributes_json(&self) -> Result<serde_json::Value, ApiError> {
        let builder = self
            .request(Method::GET, "api/FileAttributes", &QueryString::new())?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        parse_json(&reply.body, "attribute list")
    }

    /// The attribute names used by the caller's company.
    pub async fn company_attributes(&self) -> Result<Vec<FileAttribute>, ApiError> {
        let value = self.company_attributes_json().await?;
        serde_json::from_value(value)
            .map_err(|error| ApiError::Decode(format!("attribute list: {error}")))
    }

    /// Sets attributes on a file. With `delete_existing` (the service's default) the list replaces every
    /// attribute; without, it adds to them. Every attribute is checked before anything is sent.
    pub async fn set_attributes(
        &self,
        file: &FileRef,
        attributes: &[Attribute],
        delete_existing: bool,
    ) -> Result<bool, ApiError> {
        file.validate()?;
        for attribute in attributes {
            attribute.validate()?;
        }
        let items: Vec<String> = attributes.iter().map(Attribute::to_string).collect();
        let mut query = QueryString::new();
        file.push_to(&mut query);
        query.push("deleteExisting", delete_existing.to_string());
        let builder = self
            .request(Method::PUT, "api/FileAttributes", &query)?
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(double_encoded_strings(&items))
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        bool_reply(&reply.body)
    }

    /// Sets attributes given as wire strings (`name=value`, `name=a|b`, `name(unit)=v`); each must
    /// contain `=`.
    pub async fn set_attribute_strings(
        &self,
        file: &FileRef,
        attributes: &[String],
        delete_existing: bool,
    ) -> Result<bool, ApiError> {
        let parsed: Vec<Attribute> = attributes
            .iter()
            .map(|text| Attribute::parse(text))
            .collect::<Result<_, _>>()?;
        self.set_attributes(file, &parsed, delete_existing).await
    }

    /// Removes every attribute of a file.
    pub async fn clear_attributes(&self, uid: &FileUid) -> Result<bool, ApiError> {
        let mut query = QueryString::new();
        query.push("fileUID", uid.as_str());
        let builder = self
            .request(Method::DELETE, "api/FileAttributes", &query)?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        bool_reply(&reply.body)
    }

    /// The distinct values of an attribute in the caller's company, with counts, as the service sent
    /// them (a JSON array).
    pub async fn attribute_values_json(&self, name: &str) -> Result<serde_json::Value, ApiError> {
        if name.trim().is_empty() {
            return Err(ApiError::InvalidInput("give an attribute name".into()));
        }
        let mut query = QueryString::new();
        query.push("attribute", name.trim());
        let builder = self
            .request(Method::GET, "api/AttributeValues", &query)?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        parse_json(&reply.body, "attribute values")
    }

    /// The distinct values of an attribute in the caller's company, with counts.
    pub async fn attribute_values(&self, name: &str) -> Result<Vec<AttributeValue>, ApiError> {
        let value = self.attribute_values_json(name).await?;
        serde_json::from_value(value)
            .map_err(|error| ApiError::Decode(format!("attribute values: {error}")))
    }
}
