//! The S3-compatible blob store (`--blobs s3://BUCKET[/PREFIX]`), through `object_store`.
//!
//! Objects are named as the folder store's files (`files/UID`, `images/UID.sm.jpg`…) under the
//! prefix. A file is sent from its temporary file in parts of 10 MiB (one `PUT` when smaller), so
//! an upload of any size takes no more memory than that; an object appears whole or not at all.
//! Every request is bounded ([`REQUEST_TIMEOUT`]) and retried by the client on the failures S3
//! clients retry (connection refused or reset, 5xx, throttling) a few times before the error
//! reaches the caller, whose upload then fails with its reason and changes nothing.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path as ObjectPath;
use object_store::prefix::PrefixStore;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt as _, PutPayload, RetryConfig};
use tokio::io::AsyncWriteExt as _;

use super::{BlobKey, io_error};
use crate::body::TempFile;

/// The longest one request to the object store may take (an upload's part of 10 MiB included).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// An S3-compatible bucket, with a prefix inside it, and how to reach it.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Location {
    bucket: String,
    prefix: String,
    settings: Vec<(String, String)>,
}

impl std::fmt::Debug for S3Location {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Settings may hold a secret key: only their names are shown.
        let names: Vec<&str> = self
            .settings
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        formatter
            .debug_struct("S3Location")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("settings", &names)
            .finish()
    }
}

impl S3Location {
    /// Reads `s3://BUCKET[/PREFIX]`. Credentials, region and endpoint come from the `AWS_*`
    /// variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
    /// `AWS_ALLOW_HTTP`…) unless [`S3Location::with_setting`] gives them.
    pub fn parse(text: &str) -> Result<Self, String> {
        let url = url::Url::parse(text.trim())
            .map_err(|error| format!("{text}: not an s3:// URL ({error})"))?;
        let bucket = url.host_str().unwrap_or_default().to_owned();
        if bucket.is_empty() {
            return Err(format!("{text}: no bucket (s3://BUCKET[/PREFIX])"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!(
                "{text}: settings go in AWS_* variables, not in the URL"
            ));
        }
        let prefix = url.path().trim_matches('/').to_owned();
        Ok(Self {
            bucket,
            prefix,
            settings: Vec::new(),
        })
    }

    /// The same location with one client setting given here rather than by the environment:
    /// an `object_store` S3 configuration key such as `aws_endpoint`, `aws_access_key_id`,
    /// `aws_secret_access_key`, `aws_region` or `aws_allow_http`.
    pub fn with_setting(mut self, name: &str, value: &str) -> Self {
        self.settings.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The bucket.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// The prefix of every key, without slashes at either end (may be empty).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

/// Stored files and images as objects in an S3-compatible bucket.
pub struct S3Blobs {
    store: Arc<dyn ObjectStore>,
    described: String,
    /// The runtime the store's requests run on when called from a blocking thread.
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for S3Blobs {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.described)
    }
}

impl S3Blobs {
    /// The client of `location` (no request yet). Must be called in a tokio runtime.
    pub fn open(location: &S3Location) -> std::io::Result<Self> {
        // rustls without a built-in provider (see the workspace's reqwest): ring, as the app's
        // client installs it; a provider installed first by someone else is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Handle::try_current().map_err(std::io::Error::other)?;
        // The service's bounds first, then the operator's AWS_* variables (as
        // `AmazonS3Builder::from_env` reads them, which client options set afterwards would wipe),
        // then settings given in code.
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&location.bucket)
            .with_client_options(
                ClientOptions::new()
                    .with_timeout(REQUEST_TIMEOUT)
                    .with_connect_timeout(Duration::from_secs(10)),
            )
            .with_retry(RetryConfig {
                max_retries: 3,
                retry_timeout: Duration::from_secs(30),
                ..RetryConfig::default()
            });
        for (name, value) in std::env::vars_os() {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            if name.starts_with("AWS_")
                && let Ok(key) = name.to_ascii_lowercase().parse::<AmazonS3ConfigKey>()
            {
                builder = builder.with_config(key, value);
            }
        }
        for (name, value) in &location.settings {
            let key = name.parse::<AmazonS3ConfigKey>().map_err(|error| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("S3 setting {name}: {error}"),
                )
            })?;
            builder = builder.with_config(key, value);
        }
        let bucket = builder.build().map_err(|error| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("cannot use s3://{}: {error}", location.bucket),
            )
        })?;
        let store: Arc<dyn ObjectStore> = if location.prefix.is_empty() {
            Arc::new(bucket)
        } else {
            Arc::new(PrefixStore::new(bucket, location.prefix.as_str()))
        };
        let described = if location.prefix.is_empty() {
            format!("s3://{}", location.bucket)
        } else {
            format!("s3://{}/{}", location.bucket, location.prefix)
        };
        Ok(Self {
            store,
            described,
            runtime,
        })
    }

    /// `s3://bucket/prefix`.
    pub fn describe(&self) -> String {
        self.described.clone()
    }

    /// Sends `file` to `key` from a blocking thread; the temporary file goes afterwards.
    pub fn persist_blocking(&self, key: BlobKey<'_>, file: TempFile) -> std::io::Result<()> {
        self.upload_blocking(&key.name(), file.path())?;
        drop(file);
        Ok(())
    }

    /// Sends the file at `path` to the object `name` (`files/UID`…, under the prefix) from a
    /// thread outside the runtime; the file stays.
    pub fn upload_blocking(&self, name: &str, path: &Path) -> std::io::Result<()> {
        let object = ObjectPath::from(name);
        self.runtime.block_on(async {
            let mut source = tokio::fs::File::open(path).await?;
            let mut writer = object_store::buffered::BufWriter::new(self.store.clone(), object);
            if let Err(error) = tokio::io::copy(&mut source, &mut writer).await {
                // A multipart upload begun is aborted, so the bucket keeps no orphan parts.
                let _ = writer.abort().await;
                return Err(error);
            }
            writer.shutdown().await
        })
    }

    /// The size of the object `name`, `None` when there is none; from a thread outside the runtime.
    pub fn size_blocking(&self, name: &str) -> std::io::Result<Option<u64>> {
        match self
            .runtime
            .block_on(self.store.head(&ObjectPath::from(name)))
        {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(io_error(error)),
        }
    }

    /// Removes `key` from a blocking thread; one that is not there is fine.
    pub fn remove_blocking(&self, key: BlobKey<'_>) -> std::io::Result<()> {
        let path = ObjectPath::from(key.name());
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(io_error(error)),
        }
    }

    /// Removes every object whose name starts with `prefix`, from a blocking thread.
    pub fn remove_prefix_blocking(&self, prefix: &str) -> std::io::Result<()> {
        use futures_util::StreamExt as _;
        let prefix = ObjectPath::from(prefix);
        self.runtime.block_on(async {
            let mut listed = self.store.list(Some(&prefix));
            while let Some(object) = listed.next().await {
                let object = object.map_err(io_error)?;
                match self.store.delete(&object.location).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                    Err(error) => return Err(io_error(error)),
                }
            }
            Ok(())
        })
    }

    /// The bytes of `key`, `None` when there is no such object.
    pub async fn read(&self, key: BlobKey<'_>) -> std::io::Result<Option<Vec<u8>>> {
        let path = ObjectPath::from(key.name());
        let got = match self.store.get(&path).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(io_error(error)),
        };
        let bytes = got.bytes().await.map_err(io_error)?;
        Ok(Some(bytes.to_vec()))
    }

    /// Puts and deletes a small object under `probe/`: the bucket is reachable and takes writes.
    pub async fn probe(&self) -> std::io::Result<()> {
        let path = ObjectPath::from(format!("probe/{}", uuid::Uuid::new_v4().simple()));
        self.store
            .put(&path, PutPayload::from_static(b"ready"))
            .await
            .map_err(io_error)?;
        self.store.delete(&path).await.map_err(io_error)
    }
}
