//! `GET /api/Search` (by input UIDs and/or metadata) and `PUT /api/Search` (single call: upload and
//! search in one request).

use reqwest::Method;

use super::client::{ApiClient, CALL_TIMEOUT, parse_json};
use super::encoding::{QueryString, file_extension, search_files_body};
use super::error::ApiError;
use super::filter::SearchFilter;
use super::limits::MAX_SEARCH_FILES;
use super::model::SearchResult;
use super::reply::Decoded;
use super::upload::UploadSource;

/// A search by filter (`GET /api/Search`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchRequest {
    /// Input UIDs, free text and attribute terms.
    pub filter: SearchFilter,
    /// Further parameters the spec leaves open (e.g. `includeShapelets`), sent as given.
    pub extra_params: Vec<(String, String)>,
}

impl SearchRequest {
    /// A search by this filter.
    pub fn new(filter: SearchFilter) -> Self {
        Self {
            filter,
            extra_params: Vec::new(),
        }
    }

    fn query(&self) -> QueryString {
        let mut query = QueryString::new();
        query.push("filterStr", self.filter.inner());
        for (name, value) in &self.extra_params {
            query.push(name, value.as_str());
        }
        query
    }
}

/// The extension shared by all the files of a single-call search, or an error saying why there is none.
pub fn shared_extension(files: &[UploadSource]) -> Result<String, ApiError> {
    let extensions: Vec<String> = files
        .iter()
        .map(|file| file_extension(&file.file_name()))
        .collect();
    let Some(first) = extensions.first() else {
        return Err(ApiError::InvalidInput(
            "give at least one file to search by".into(),
        ));
    };
    if first.is_empty() {
        return Err(ApiError::InvalidInput(format!(
            "{} has no file extension",
            files[0].file_name()
        )));
    }
    if extensions.iter().any(|extension| extension != first) {
        return Err(ApiError::InvalidInput(
            "a single-call search needs files of one extension; use the two-step search for mixed formats".into(),
        ));
    }
    Ok(first.clone())
}

impl ApiClient {
    /// Runs `GET /api/Search` and returns the reply as the service sent it.
    pub async fn search_json(
        &self,
        request: &SearchRequest,
    ) -> Result<serde_json::Value, ApiError> {
        if request.filter.is_empty() {
            return Err(ApiError::InvalidInput(
                "the search is empty: give input files, text or attribute terms".into(),
            ));
        }
        let builder = self
            .request(Method::GET, "api/Search", &request.query())?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        parse_json(&reply.body, "search result")
    }

    /// Runs `GET /api/Search` and decodes the result, keeping the JSON beside it.
    pub async fn search_decoded(
        &self,
        request: &SearchRequest,
    ) -> Result<Decoded<SearchResult>, ApiError> {
        Decoded::from_json(self.search_json(request).await?, "search result")
    }

    /// Runs `GET /api/Search`.
    pub async fn search(&self, request: &SearchRequest) -> Result<SearchResult, ApiError> {
        Ok(self.search_decoded(request).await?.value)
    }

    /// Runs the single-call `PUT /api/Search`: up to ten files of one extension, uploaded and searched
    /// in one request; `filter` may add text, attribute terms and earlier input UIDs. Returns the reply
    /// as the service sent it.
    pub async fn search_with_files_json(
        &self,
        files: &[UploadSource],
        filter: &SearchFilter,
    ) -> Result<serde_json::Value, ApiError> {
        self.search_with_files_and_params_json(files, filter, &[])
            .await
    }

    /// [`ApiClient::search_with_files_json`] with further parameters the interface leaves open
    /// (`maxResults`, `sizeFirst`, …: [`crate::SearchOptions::params`]), sent as given.
    pub async fn search_with_files_and_params_json(
        &self,
        files: &[UploadSource],
        filter: &SearchFilter,
        params: &[(String, String)],
    ) -> Result<serde_json::Value, ApiError> {
        if files.len() > MAX_SEARCH_FILES {
            return Err(ApiError::InvalidInput(format!(
                "{} files given; one search takes at most {MAX_SEARCH_FILES}",
                files.len()
            )));
        }
        let extension = shared_extension(files)?;
        let mut contents = Vec::with_capacity(files.len());
        for file in files {
            contents.push(file.read_all().await?);
        }
        let mut query = QueryString::new();
        query.push("fileExtension", extension);
        if !filter.is_empty() {
            query.push("filterStr", filter.inner());
        }
        for (name, value) in params {
            query.push(name, value.as_str());
        }
        let builder = self
            .request(Method::PUT, "api/Search", &query)?
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(search_files_body(&contents));
        let reply = self.send(builder, &[]).await?;
        parse_json(&reply.body, "search result")
    }

    /// Runs the single-call `PUT /api/Search` (see [`ApiClient::search_with_files_json`]) and
    /// decodes the result, keeping the JSON beside it.
    pub async fn search_with_files_decoded(
        &self,
        files: &[UploadSource],
        filter: &SearchFilter,
    ) -> Result<Decoded<SearchResult>, ApiError> {
        self.search_with_files_and_params_decoded(files, filter, &[])
            .await
    }

    /// [`ApiClient::search_with_files_decoded`] with further parameters, sent as given (see
    /// [`ApiClient::search_with_files_and_params_json`]).
    pub async fn search_with_files_and_params_decoded(
        &self,
        files: &[UploadSource],
        filter: &SearchFilter,
        params: &[(String, String)],
    ) -> Result<Decoded<SearchResult>, ApiError> {
        Decoded::from_json(
            self.search_with_files_and_params_json(files, filter, params)
                .await?,
            "search result",
        )
    }

    /// Runs the single-call `PUT /api/Search`; see [`ApiClient::search_with_files_json`].
    pub async fn search_with_files(
        &self,
        files: &[UploadSource],
        filter: &SearchFilter,
    ) -> Result<SearchResult, ApiError> {
        Ok(self.search_with_files_decoded(files, filter).await?.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> UploadSource {
        UploadSource::Bytes {
            name: name.into(),
            bytes: bytes::Bytes::from_static(b"x"),
        }
    }

    #[test]
    fn single_call_needs_one_extension() {
        assert_eq!(
            shared_extension(&[file("a.png"), file("b.PNG")]).unwrap(),
            ".png"
        );
        assert!(shared_extension(&[file("a.png"), file("b.jpg")]).is_err());
        assert!(shared_extension(&[]).is_err());
    }

    #[tokio::test]
    async fn more_than_ten_files_are_refused_before_sending() {
        // Port 9 (discard) is never contacted: the check comes first.
        let client = ApiClient::new("http://127.0.0.1:9").unwrap();
        let files: Vec<UploadSource> = (0..11).map(|i| file(&format!("{i}.png"))).collect();
        let error = client
            .search_with_files_json(&files, &SearchFilter::new())
            .await
            .unwrap_err();
        assert!(
            matches!(error, ApiError::InvalidInput(ref text) if text.contains("at most 10")),
            "{error}"
        );
    }

    #[test]
    fn filter_goes_in_filter_str() {
        let request = SearchRequest::new(SearchFilter::new().text("pump housing"));
        assert_eq!(request.query().to_string(), "filterStr=FT%3Dpump%20housing");
    }
}
