//! Thumbnails and large images for the views: fetched, decoded and scaled off the UI thread, handed
//! back as plain pixels.
//!
//! Image URLs from records and results are fetched with [`ApiClient::fetch_image`], exactly as given
//! (they may carry their own short-lived token). Local files (the views of a search) are read from
//! disk. Decoding and scaling run in `spawn_blocking`, so neither the UI thread nor the async workers
//! decode. At most [`ImageLoader::concurrency`] loads run at once; a second request for a key already
//! in flight is dropped (de-duplication); a request can be cancelled while it waits, downloads or
//! decodes, and a cancelled request delivers nothing. No egui here: the UI turns
//! [`DecodedImage`] into a texture.

use std::collections::HashMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use partlens_api::{ApiClient, ApiError, FileRef, FileUid, GetFileRequest};

/// Longest side of a result thumbnail, in pixels.
pub const THUMBNAIL_MAX_SIDE: u32 = 256;

/// Longest side of the detail view's large image, in pixels.
pub const LARGE_IMAGE_MAX_SIDE: u32 = 2048;

/// How many images are fetched and decoded at once by default.
pub const DEFAULT_CONCURRENCY: usize = 6;

/// Largest local file read as an image.
pub const MAX_LOCAL_IMAGE_BYTES: u64 = 64 * 1024 * 1024;

/// Largest image dimension accepted before decoding (a guard against decompression bombs).
const MAX_DECODED_SIDE: u32 = 16_384;

/// Most memory the decoder may allocate for one image.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;

/// Decoded, scaled pixels ready to become a texture.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodedImage {
    /// The key the image was requested under (usually its URL).
    pub key: String,
    /// Width and height in pixels.
    pub size: [usize; 2],
    /// RGBA pixels, unmultiplied, row by row (`4 * width * height` bytes).
    pub rgba: Vec<u8>,
}

impl std::fmt::Debug for DecodedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key may be a URL with a token in it, and the pixels are noise in a log.
        f.debug_struct("DecodedImage")
            .field("size", &self.size)
            .field("bytes", &self.rgba.len())
            .finish_non_exhaustive()
    }
}

/// Why an image could not be had.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImageError {
    /// The image URL could not be fetched.
    #[error("the image could not be downloaded: {0}")]
    Fetch(#[from] ApiError),
    /// A local file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// The bytes are not an image this client can decode.
    #[error("not a readable image: {0}")]
    Decode(String),
}

/// Where an image comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageSource {
    /// An image URL from a record or a result, fetched exactly as given.
    Url(String),
    /// A local file (a view of a search).
    File(PathBuf),
    /// Bytes already in memory.
    Bytes(bytes::Bytes),
    /// The image of an uploaded file whose URL is not known yet (a search input that is a model or a
    /// drawing: the service renders its picture): the file's record is read first.
    OfFile(ImageOfRecord),
}

/// One image to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageRequest {
    /// The key the answer carries (and de-duplication uses).
    pub key: String,
    /// Where the bytes come from.
    pub source: ImageSource,
    /// The decoded image is scaled down (keeping its aspect ratio) so neither side exceeds this.
    pub max_side: u32,
    /// The file the image URL belongs to, so that an expired link can be renewed: image URLs carry
    /// their own short-lived token, and a result list or a detail view stays open longer than that.
    pub record: Option<ImageOfRecord>,
}

/// Which image of which file a URL shows (to ask the service for a fresh URL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageOfRecord {
    /// The file.
    pub uid: FileUid,
    /// The large image (`PNGURLFromID`) rather than the thumbnail (`ThumbNailURLFromID`).
    pub large: bool,
    /// The page of a drawing whose image it is (`lgFileNumber`, from 1); `None`: the record's own.
    pub page: Option<u32>,
}

impl ImageRequest {
    /// A result thumbnail: the URL is the key.
    pub fn thumbnail(url: impl Into<String>) -> Self {
        let url = url.into();
        Self {
            key: url.clone(),
            source: ImageSource::Url(url),
            max_side: THUMBNAIL_MAX_SIDE,
            record: None,
        }
    }

    /// The large image of the detail view: keyed apart from a thumbnail of the same URL.
    pub fn large_image(url: impl Into<String>) -> Self {
        let url = url.into();
        Self {
            key: large_image_key(&url),
            source: ImageSource::Url(url),
            max_side: LARGE_IMAGE_MAX_SIDE,
            record: None,
        }
    }

    /// A local image file shown as a thumbnail (a view slot of the search bar).
    pub fn local_file(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        Self {
            key: local_file_key(&path),
            source: ImageSource::File(path),
            max_side: THUMBNAIL_MAX_SIDE,
            record: None,
        }
    }

    /// The thumbnail the service made of an uploaded file, found through its record (a model or
    /// drawing the app cannot draw itself).
    pub fn thumbnail_of_file(uid: FileUid) -> Self {
        Self {
            key: thumbnail_of_file_key(&uid),
            source: ImageSource::OfFile(ImageOfRecord {
                uid: uid.clone(),
                large: false,
                page: None,
            }),
            max_side: THUMBNAIL_MAX_SIDE,
            record: Some(ImageOfRecord {
                uid,
                large: false,
                page: None,
            }),
        }
    }

    /// The large image of page `page` (from 1) of a drawing, found through the record of that page
    /// (`GET /api/File?lgFileNumber=N`): the PMI viewer's picture of a later page.
    pub fn page_of_file(uid: FileUid, page: u32) -> Self {
        let record = ImageOfRecord {
            uid: uid.clone(),
            large: true,
            page: Some(page),
        };
        Self {
            key: format!("page:{}:{page}", uid.as_str()),
            source: ImageSource::OfFile(record.clone()),
            max_side: LARGE_IMAGE_MAX_SIDE,
            record: Some(record),
        }
    }

    /// The same request, told which file's image it is: a link the service refuses (expired) is then
    /// renewed once from the file's record.
    pub fn of_record(mut self, uid: FileUid) -> Self {
        let large = self.max_side == LARGE_IMAGE_MAX_SIDE;
        self.record = Some(ImageOfRecord {
            uid,
            large,
            page: None,
        });
        self
    }
}

/// The cache key of the thumbnail of an uploaded file found through its record.
pub fn thumbnail_of_file_key(uid: &FileUid) -> String {
    format!("file-thumbnail:{}", uid.as_str())
}

/// The cache key of a large image.
pub fn large_image_key(url: &str) -> String {
    format!("large:{url}")
}

/// The cache key of a local file's thumbnail.
pub fn local_file_key(path: &Path) -> String {
    format!("file:{}", path.display())
}

/// True when a file name has an image extension this client decodes (the others, 3D models and
/// drawings, get no thumbnail before upload).
pub fn is_image_name(name: &str) -> bool {
    image::ImageFormat::from_path(name).is_ok_and(|format| format.reading_enabled())
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageOutcome {
    /// The request's key.
    pub key: String,
    /// The pixels, or why there are none.
    pub result: Result<DecodedImage, ImageError>,
}

/// Decodes image bytes and scales them so neither side exceeds `max_side`. Blocking and CPU-bound:
/// call it from `spawn_blocking`.
pub fn decode_and_scale(
    key: &str,
    bytes: &[u8],
    max_side: u32,
) -> Result<DecodedImage, ImageError> {
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|error| ImageError::Decode(error.to_string()))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|error| ImageError::Decode(error.to_string()))?;
    let max_side = max_side.max(1);
    let scaled = if decoded.width() > max_side || decoded.height() > max_side {
        decoded.thumbnail(max_side, max_side)
    } else {
        decoded
    };
    let rgba = scaled.to_rgba8();
    Ok(DecodedImage {
        key: key.to_owned(),
        size: [rgba.width() as usize, rgba.height() as usize],
        rgba: rgba.into_raw(),
    })
}

/// A request in flight: its generation (so a finished old request never unregisters a newer one of
/// the same key) and its cancellation.
struct InFlight {
    generation: u64,
    cancel: CancellationToken,
}

struct Shared {
    permits: Semaphore,
    concurrency: usize,
    in_flight: Mutex<HashMap<String, InFlight>>,
    next_generation: AtomicU64,
}

impl Shared {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<String, InFlight>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Loads images on a tokio runtime with bounded concurrency, de-duplication and cancellation.
///
/// Cheap to clone; clones share the limit and the in-flight set.
#[derive(Clone)]
pub struct ImageLoader {
    shared: Arc<Shared>,
}

impl Default for ImageLoader {
    fn default() -> Self {
        Self::new(DEFAULT_CONCURRENCY)
    }
}

impl std::fmt::Debug for ImageLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageLoader")
            .field("concurrency", &self.shared.concurrency)
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

impl ImageLoader {
    /// A loader that runs at most `concurrency` loads at once (at least one).
    pub fn new(concurrency: usize) -> Self {
        let concurrency = concurrency.max(1);
        Self {
            shared: Arc::new(Shared {
                permits: Semaphore::new(concurrency),
                concurrency,
                in_flight: Mutex::new(HashMap::new()),
                next_generation: AtomicU64::new(1),
            }),
        }
    }

    /// How many loads run at once at most.
    pub fn concurrency(&self) -> usize {
        self.shared.concurrency
    }

    /// Number of requests started and not yet finished or cancelled.
    pub fn in_flight(&self) -> usize {
        self.shared.in_flight().len()
    }

    /// True when a request for `key` is in flight.
    pub fn is_in_flight(&self, key: &str) -> bool {
        self.shared.in_flight().contains_key(key)
    }

    /// Starts loading on `runtime` unless a request for the same key is already in flight (then it
    /// returns false and nothing more happens). `deliver` is called once with the outcome, on a
    /// runtime thread, unless the request is cancelled first. URLs need a `client`; local files and
    /// bytes do not (they load before any login).
    pub fn request(
        &self,
        runtime: &tokio::runtime::Handle,
        client: Option<&ApiClient>,
        request: ImageRequest,
        deliver: impl FnOnce(ImageOutcome) + Send + 'static,
    ) -> bool {
        let cancel = CancellationToken::new();
        let generation = self.shared.next_generation.fetch_add(1, Ordering::Relaxed);
        {
            let mut in_flight = self.shared.in_flight();
            if in_flight.contains_key(&request.key) {
                return false;
            }
            in_flight.insert(
                request.key.clone(),
                InFlight {
                    generation,
                    cancel: cancel.clone(),
                },
            );
        }
        let shared = Arc::clone(&self.shared);
        let client = client.cloned();
        runtime.spawn(async move {
            let key = request.key.clone();
            let result = tokio::select! {
                _ = cancel.cancelled() => None,
                result = load(&shared, client.as_ref(), request) => Some(result),
            };
            {
                let mut in_flight = shared.in_flight();
                if in_flight
                    .get(&key)
                    .is_some_and(|entry| entry.generation == generation)
                {
                    in_flight.remove(&key);
                }
            }
            // A result that lost the race against a cancel is not delivered either.
            if let Some(result) = result
                && !cancel.is_cancelled()
            {
                deliver(ImageOutcome { key, result });
            }
        });
        true
    }

    /// Cancels the request for `key` (its card scrolled away). Returns true if one was in flight.
    pub fn cancel(&self, key: &str) -> bool {
        match self.shared.in_flight().remove(key) {
            Some(entry) => {
                entry.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancels every request (a new search, logout).
    pub fn cancel_all(&self) {
        for (_, entry) in self.shared.in_flight().drain() {
            entry.cancel.cancel();
        }
    }
}

/// Waits for a permit, gets the bytes and decodes them off the async workers.
async fn load(
    shared: &Shared,
    client: Option<&ApiClient>,
    request: ImageRequest,
) -> Result<DecodedImage, ImageError> {
    let _permit = shared
        .permits
        .acquire()
        .await
        .map_err(|_| ImageError::Decode("the image loader has shut down".into()))?;
    let bytes = match &request.source {
        ImageSource::Url(url) => match client {
            Some(client) => {
                fetch_renewing_expired_link(client, url, request.record.as_ref()).await?
            }
            None => {
                return Err(ImageError::Fetch(ApiError::InvalidInput(
                    "not logged in to the service".into(),
                )));
            }
        },
        ImageSource::File(path) => read_local(path).await?,
        ImageSource::Bytes(bytes) => bytes.clone(),
        ImageSource::OfFile(record) => match client {
            Some(client) => fetch_image_of_record(client, record).await?,
            None => {
                return Err(ImageError::Fetch(ApiError::InvalidInput(
                    "not logged in to the service".into(),
                )));
            }
        },
    };
    let key = request.key;
    let max_side = request.max_side;
    tokio::task::spawn_blocking(move || decode_and_scale(&key, &bytes, max_side))
        .await
        .map_err(|error| ImageError::Decode(format!("the decoder stopped: {error}")))?
}

/// Fetches an image URL; when the service refuses it (401/403: the link's own token has expired) and
/// the file is known, asks for the record again and fetches the fresh URL once.
async fn fetch_renewing_expired_link(
    client: &ApiClient,
    url: &str,
    record: Option<&ImageOfRecord>,
) -> Result<bytes::Bytes, ApiError> {
    let error = match client.fetch_image(url).await {
        Ok(bytes) => return Ok(bytes),
        Err(error) => error,
    };
    let (Some(record), ApiError::Unauthorized | ApiError::Forbidden { .. }) = (record, &error)
    else {
        return Err(error);
    };
    fetch_image_of_record(client, record).await
}

/// Reads a file's record (of its page, for a page's image) for its current image URL (image URLs
/// carry their own short-lived token) and fetches that image. A record without the image is [`ApiError::NotFound`].
async fn fetch_image_of_record(
    client: &ApiClient,
    record: &ImageOfRecord,
) -> Result<bytes::Bytes, ApiError> {
    let mut request = GetFileRequest::new(FileRef::Uid(record.uid.clone()));
    request.lg_file_number = record.page.map(|page| page.to_string());
    let file = client.get_file(&request).await?;
    let fresh = if record.large {
        file.picture_url()
    } else {
        Some(file.thumbnail_url.trim()).filter(|url| !url.is_empty())
    };
    let Some(fresh) = fresh else {
        return Err(ApiError::NotFound {
            message: format!("the service has no picture of {}", record.uid.as_str()),
        });
    };
    client.fetch_image(fresh).await
}

async fn read_local(path: &Path) -> Result<bytes::Bytes, ImageError> {
    let read_error = |message: String| ImageError::Read {
        path: path.display().to_string(),
        message,
    };
    let size = tokio::fs::metadata(path)
        .await
        .map_err(|error| read_error(error.to_string()))?
        .len();
    if size > MAX_LOCAL_IMAGE_BYTES {
        return Err(read_error(format!(
            "{} MiB is more than the 64 MiB an image may have",
            size / (1024 * 1024)
        )));
    }
    tokio::fs::read(path)
        .await
        .map(bytes::Bytes::from)
        .map_err(|error| read_error(error.to_string()))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use axum::extract::State;
    use axum::routing::get;

    use super::*;

    fn png_bytes(width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbaImage::from_fn(width, height, |x, y| {
            image::Rgba([(x % 256) as u8, (y % 256) as u8, 128, 255])
        });
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn big_images_are_scaled_down_keeping_their_aspect_ratio() {
        let decoded = decode_and_scale("k", &png_bytes(1000, 500), 256).unwrap();
        assert_eq!(decoded.size, [256, 128]);
        assert_eq!(decoded.rgba.len(), 256 * 128 * 4);
        assert_eq!(decoded.key, "k");
    }

    #[test]
    fn small_images_keep_their_size() {
        let decoded = decode_and_scale("k", &png_bytes(40, 30), 256).unwrap();
        assert_eq!(decoded.size, [40, 30]);
        assert_eq!(&decoded.rgba[..4], &[0, 0, 128, 255]);
    }

    #[test]
    fn bytes_that_are_not_an_image_are_a_decode_error() {
        let error = decode_and_scale("k", b"solid cube\nendsolid", 256).unwrap_err();
        assert!(matches!(error, ImageError::Decode(_)), "{error:?}");
    }

    #[test]
    fn image_names_are_told_from_models() {
        assert!(is_image_name("view-1.PNG"));
        assert!(is_image_name("photo.jpeg"));
        assert!(!is_image_name("bracket.stl"));
        assert!(!is_image_name("drawing.dxf"));
        assert!(!is_image_name("no-extension"));
    }

    /// A loopback image server that counts requests and can hold replies until released.
    struct ImageServer {
        base: String,
        hits: Arc<AtomicUsize>,
        gate: Arc<Semaphore>,
    }

    async fn image_server(held: bool) -> ImageServer {
        let hits = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(Semaphore::new(if held { 0 } else { 1000 }));
        let png = bytes::Bytes::from(png_bytes(600, 300));
        let state = (hits.clone(), gate.clone(), png);
        let app = axum::Router::new()
            .route(
                "/img/{name}",
                get(
                    |State((hits, gate, png)): State<(
                        Arc<AtomicUsize>,
                        Arc<Semaphore>,
                        bytes::Bytes,
                    )>| async move {
                        hits.fetch_add(1, Ordering::SeqCst);
                        let _pass = gate.acquire().await;
                        png
                    },
                ),
            )
            .route("/broken", get(|| async { "not an image at all" }))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        ImageServer { base, hits, gate }
    }

    async fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
        // Generous: the whole test suite may be running on two cores beside it.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !condition() {
            assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_url_is_fetched_decoded_and_scaled() {
        let server = image_server(false).await;
        let client = ApiClient::new(&server.base).unwrap();
        let loader = ImageLoader::new(2);
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        let url = format!("{}/img/a.png?token=x", server.base);
        assert!(loader.request(
            &tokio::runtime::Handle::current(),
            Some(&client),
            ImageRequest::thumbnail(&url),
            move |outcome| {
                let _ = sender.send(outcome);
            },
        ));
        let outcome = tokio::time::timeout(Duration::from_secs(10), receiver.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(outcome.key, url);
        assert_eq!(outcome.result.unwrap().size, [256, 128]);
        wait_until("unregistered", || loader.in_flight() == 0).await;
    }

    /// Loads one request and waits for its outcome.
    async fn load_once(
        loader: &ImageLoader,
        client: &ApiClient,
        request: ImageRequest,
    ) -> Result<DecodedImage, ImageError> {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        assert!(loader.request(
            &tokio::runtime::Handle::current(),
            Some(client),
            request,
            move |outcome| {
                let _ = sender.send(outcome);
            },
        ));
        tokio::time::timeout(Duration::from_secs(30), receiver.recv())
            .await
            .unwrap()
            .unwrap()
            .result
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_expired_image_link_is_renewed_from_the_record() {
        use partlens_api::{Credentials, UploadRequest, UploadSource};
        use partlens_service::{RunningService, ServiceConfig, admin};
        let data = tempfile::tempdir().unwrap();
        admin::add_user(data.path(), "Acme", "ann", "pw", true).unwrap();
        let mut config = ServiceConfig::new(data.path());
        config.addr = "127.0.0.1:0".parse().unwrap();
        config.image_token_lifetime = Duration::from_secs(1);
        let service = RunningService::start(config).await.unwrap();
        let mut client = ApiClient::new(&service.base_url()).unwrap();
        client
            .login(&Credentials {
                client_id: "partlens".into(),
                username: "ann".into(),
                password: "pw".into(),
            })
            .await
            .unwrap();
        let upload = UploadRequest::database(
            UploadSource::Bytes {
                name: "part.png".into(),
                bytes: bytes::Bytes::from(png_bytes(300, 200)),
            },
            "Parts/part.png",
            Vec::new(),
        );
        let uid = client.upload(&upload, None).await.unwrap().uid;
        let record = client
            .get_file(&GetFileRequest::new(FileRef::Uid(uid.clone())))
            .await
            .unwrap();
        // Wait (with a deadline) until the link's own token has expired.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while client.fetch_image(&record.thumbnail_url).await.is_ok() {
            assert!(
                std::time::Instant::now() < deadline,
                "the link never expired"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let loader = ImageLoader::new(2);
        let plain = load_once(
            &loader,
            &client,
            ImageRequest::thumbnail(&record.thumbnail_url),
        )
        .await;
        assert!(
            matches!(plain, Err(ImageError::Fetch(ApiError::Unauthorized))),
            "{plain:?}"
        );
        let renewed = load_once(
            &loader,
            &client,
            ImageRequest::thumbnail(&record.thumbnail_url).of_record(uid.clone()),
        )
        .await
        .unwrap();
        assert_eq!(renewed.size[0].max(renewed.size[1]), 256);
        let large = load_once(
            &loader,
            &client,
            ImageRequest::large_image(&record.large_image_url).of_record(uid),
        )
        .await
        .unwrap();
        assert_eq!(large.size, [300, 200]);
        service.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_later_pages_picture_comes_from_the_record_of_that_page() {
        use partlens_api::{Credentials, UploadRequest, UploadSource};
        use partlens_service::{RunningService, ServiceConfig, admin};
        // Three real drawings joined into one PDF (the service's own page test uses the same).
        let Some(pdf) = partlens_testkit::realworld::joined_drawings_pdf() else {
            return;
        };
        let data = tempfile::tempdir().unwrap();
        admin::add_user(data.path(), "Acme", "ann", "pw", true).unwrap();
        let mut config = ServiceConfig::new(data.path());
        config.addr = "127.0.0.1:0".parse().unwrap();
        config.reader.program = Some(partlens_testkit::program("partlens-service"));
        let service = RunningService::start(config).await.unwrap();
        let mut client = ApiClient::new(&service.base_url()).unwrap();
        client
            .login(&Credentials {
                client_id: "partlens".into(),
                username: "ann".into(),
                password: "pw".into(),
            })
            .await
            .unwrap();
        let upload = UploadRequest::database(
            UploadSource::Bytes {
                name: "three-pages.pdf".into(),
                bytes: bytes::Bytes::from(pdf),
            },
            "Drawings/three-pages.pdf",
            Vec::new(),
        );
        let uid = client.upload(&upload, None).await.unwrap().uid;
        let loader = ImageLoader::new(2);
        let mut pages = Vec::new();
        for page in 1..=3 {
            let request = ImageRequest::page_of_file(uid.clone(), page);
            pages.push(load_once(&loader, &client, request).await.unwrap());
        }
        assert_ne!(pages[0].rgba, pages[1].rgba);
        assert_ne!(pages[1].rgba, pages[2].rgba);
        // Page 1 through lgFileNumber=1 is the record's own large image.
        let record = client
            .get_file(&GetFileRequest::new(FileRef::Uid(uid.clone())))
            .await
            .unwrap();
        let own = ImageRequest::large_image(&record.large_image_url);
        assert_eq!(
            load_once(&loader, &client, own).await.unwrap().rgba,
            pages[0].rgba
        );
        // A page the drawing does not have is refused, not drawn as page 1.
        let missing = load_once(&loader, &client, ImageRequest::page_of_file(uid, 4)).await;
        assert!(missing.is_err(), "{missing:?}");
        service.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_broken_image_is_reported_as_an_error() {
        let server = image_server(false).await;
        let client = ApiClient::new(&server.base).unwrap();
        let loader = ImageLoader::default();
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        for url in [
            format!("{}/broken", server.base),
            format!("{}/missing", server.base),
        ] {
            let sender = sender.clone();
            loader.request(
                &tokio::runtime::Handle::current(),
                Some(&client),
                ImageRequest::thumbnail(url),
                move |outcome| {
                    let _ = sender.send(outcome);
                },
            );
        }
        let mut errors = Vec::new();
        for _ in 0..2 {
            let outcome = tokio::time::timeout(Duration::from_secs(10), receiver.recv())
                .await
                .unwrap()
                .unwrap();
            errors.push(outcome.result.unwrap_err());
        }
        assert!(errors.iter().any(|e| matches!(e, ImageError::Decode(_))));
        assert!(
            errors
                .iter()
                .any(|e| matches!(e, ImageError::Fetch(ApiError::NotFound { .. })))
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_same_key_in_flight_is_requested_once() {
        let server = image_server(true).await;
        let client = ApiClient::new(&server.base).unwrap();
        let loader = ImageLoader::new(4);
        let delivered = Arc::new(AtomicUsize::new(0));
        let url = format!("{}/img/a.png", server.base);
        let mut started = 0;
        for _ in 0..5 {
            let delivered = delivered.clone();
            if loader.request(
                &tokio::runtime::Handle::current(),
                Some(&client),
                ImageRequest::thumbnail(&url),
                move |_| {
                    delivered.fetch_add(1, Ordering::SeqCst);
                },
            ) {
                started += 1;
            }
        }
        assert_eq!(started, 1);
        wait_until("the request reached the server", || {
            server.hits.load(Ordering::SeqCst) == 1
        })
        .await;
        server.gate.add_permits(1000);
        wait_until("delivered", || delivered.load(Ordering::SeqCst) == 1).await;
        assert_eq!(server.hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrency_is_bounded() {
        let server = image_server(true).await;
        let client = ApiClient::new(&server.base).unwrap();
        let loader = ImageLoader::new(2);
        let delivered = Arc::new(AtomicUsize::new(0));
        for i in 0..6 {
            let delivered = delivered.clone();
            loader.request(
                &tokio::runtime::Handle::current(),
                Some(&client),
                ImageRequest::thumbnail(format!("{}/img/{i}.png", server.base)),
                move |_| {
                    delivered.fetch_add(1, Ordering::SeqCst);
                },
            );
        }
        wait_until("two requests reached the server", || {
            server.hits.load(Ordering::SeqCst) == 2
        })
        .await;
        // The server holds both; no third request may start while they are held. Give the runtime a
        // chance to (wrongly) start more by yielding, then check the count.
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        assert_eq!(server.hits.load(Ordering::SeqCst), 2);
        assert_eq!(loader.in_flight(), 6);
        server.gate.add_permits(1000);
        wait_until("all delivered", || delivered.load(Ordering::SeqCst) == 6).await;
        assert_eq!(server.hits.load(Ordering::SeqCst), 6);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancelled_request_delivers_nothing_and_frees_its_slot() {
        let server = image_server(true).await;
        let client = ApiClient::new(&server.base).unwrap();
        let loader = ImageLoader::new(1);
        let delivered = Arc::new(Mutex::new(Vec::new()));
        let request = |name: &str| {
            let delivered = delivered.clone();
            loader.request(
                &tokio::runtime::Handle::current(),
                Some(&client),
                ImageRequest::thumbnail(format!("{}/img/{name}.png", server.base)),
                move |outcome| delivered.lock().unwrap().push(outcome.key),
            );
        };
        // One at a time: two requests made together race for the only permit.
        request("scrolled-away");
        wait_until("the first request is held by the server", || {
            server.hits.load(Ordering::SeqCst) == 1
        })
        .await;
        request("visible");
        assert_eq!(loader.in_flight(), 2, "the second waits for the permit");
        assert!(loader.cancel(&format!("{}/img/scrolled-away.png", server.base)));
        // With the only permit freed, the second request goes out and completes.
        wait_until("the visible one reached the server", || {
            server.hits.load(Ordering::SeqCst) == 2
        })
        .await;
        server.gate.add_permits(1000);
        wait_until("visible delivered", || delivered.lock().unwrap().len() == 1).await;
        wait_until("nothing in flight", || loader.in_flight() == 0).await;
        assert_eq!(
            *delivered.lock().unwrap(),
            vec![format!("{}/img/visible.png", server.base)]
        );
        assert!(!loader.cancel("never-requested"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_local_file_is_decoded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("view.png");
        std::fs::write(&path, png_bytes(300, 600)).unwrap();
        let client = ApiClient::new("http://127.0.0.1:9").unwrap();
        let loader = ImageLoader::default();
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        loader.request(
            &tokio::runtime::Handle::current(),
            Some(&client),
            ImageRequest::local_file(&path),
            move |outcome| {
                let _ = sender.send(outcome);
            },
        );
        let outcome = tokio::time::timeout(Duration::from_secs(10), receiver.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(outcome.key, local_file_key(&path));
        assert_eq!(outcome.result.unwrap().size, [128, 256]);
    }
}
