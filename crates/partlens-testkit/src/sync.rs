//! Shared pieces of the library-sync tests: a folder of sample part files with an attributes CSV,
//! a logged-in client, the files the service holds under a prefix (read from its database, which
//! also says how often each was uploaded), and a loopback proxy that drops the connection at a
//! chosen upload, before or after the service got it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use partlens_api::{ApiClient, Credentials};
use partlens_store::DATABASE_FILE;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// The sample library of the repository.
pub fn samples() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("assets/samples")
}

/// The part files of the test folder, in the order a sync goes through them.
pub const FOLDER_FILES: [&str; 6] = [
    "bolt.png",
    "flange.png",
    "gear.png",
    "hinge.png",
    "models/washer.stl",
    "washer.png",
];

/// The attributes CSV of the test folder: the unit in a header, several values in a cell, a row
/// without a file in the folder, a file (hinge.png) without a row.
pub const ATTRIBUTES_CSV: &str = "\
file,material,weight(kg),region
bolt.png,steel,0.05,EU
flange.png,steel|stainless steel,1.2,EU|US
gear.png,brass,0.4,
washer.stl,steel,0.01,APAC
washer.png,steel,0.01,EU|US|APAC
missing.png,gold,9,EU
";

/// Writes a folder of sample part files (pictures, one model in a subfolder), a file that is not
/// a part file, and `attributes.csv`; returns the folder.
pub fn sample_folder(parent: &Path) -> PathBuf {
    let folder = parent.join("library");
    std::fs::create_dir_all(folder.join("models")).unwrap();
    for relative in FOLDER_FILES {
        let source = if relative.ends_with(".stl") {
            samples().join("models").join("washer.stl")
        } else {
            samples().join(relative)
        };
        std::fs::copy(source, folder.join(relative)).unwrap();
    }
    std::fs::write(folder.join("readme.txt"), "parts of the test library\n").unwrap();
    std::fs::write(folder.join("attributes.csv"), ATTRIBUTES_CSV).unwrap();
    folder
}

/// Changes a file's content (to another sample picture).
pub fn change_file(folder: &Path, relative: &str) {
    std::fs::copy(samples().join("pulley.png"), folder.join(relative)).unwrap();
}

/// A client of `base` logged in as `user` with `password`.
pub async fn client(base: &str, user: &str, password: &str) -> ApiClient {
    let mut client = ApiClient::new(base).unwrap();
    client
        .login(&Credentials {
            client_id: "partlens".into(),
            username: user.into(),
            password: password.into(),
        })
        .await
        .unwrap();
    client
}

/// A company-database file as the service's database holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFile {
    /// Its stored path.
    pub path: String,
    /// Its UID.
    pub uid: String,
    /// Bumped by the service on every upload over it: 1 means uploaded once.
    pub revision: i64,
    /// When it was last indexed.
    pub indexed_at: Option<String>,
}

/// Every database file under `prefix/` in the service whose data directory is `service_dir`,
/// sorted by path. Read from the database (read-only): the interface cannot list a folder or say
/// how often a file was uploaded.
pub fn stored_files(service_dir: &Path, prefix: &str) -> Vec<StoredFile> {
    let connection = rusqlite::Connection::open_with_flags(
        service_dir.join(DATABASE_FILE),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    connection
        .busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    let mut statement = connection
        .prepare(
            "SELECT stored_path, uid, revision, indexed_at FROM files
             WHERE is_search_input = 0 AND stored_path LIKE ?1 ORDER BY stored_path",
        )
        .unwrap();
    statement
        .query_map([format!("{prefix}/%")], |row| {
            Ok(StoredFile {
                path: row.get(0)?,
                uid: row.get(1)?,
                revision: row.get(2)?,
                indexed_at: row.get(3)?,
            })
        })
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap()
}

/// What the proxy does to the chosen upload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// Drops the connection before the request: the service never sees it.
    Request,
    /// Drops the connection before the answer: the service stored the file, the client never
    /// hears so.
    Answer,
    /// Holds the request (nothing is forwarded, the connection stays open): the upload hangs until
    /// the client gives up; later connections go through.
    Hold,
}

struct ProxyState {
    upstream: SocketAddr,
    uploads_seen: AtomicUsize,
    cut_at: AtomicUsize,
    loss: std::sync::Mutex<Loss>,
    down: AtomicBool,
}

/// A loopback proxy in front of a service that drops the connection at the n-th upload
/// (`PUT /api/FileBinary`) and then refuses every connection until [`DroppingProxy::restore`]:
/// a dropped connection as a client sees it, at a chosen moment.
pub struct DroppingProxy {
    /// `http://127.0.0.1:PORT` of the proxy.
    pub base: String,
    state: Arc<ProxyState>,
    shutdown: CancellationToken,
}

impl DroppingProxy {
    /// A proxy in front of the service at `upstream_base` (`http://127.0.0.1:PORT`).
    pub async fn start(upstream_base: &str) -> Self {
        let upstream: SocketAddr = upstream_base
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(ProxyState {
            upstream,
            uploads_seen: AtomicUsize::new(0),
            cut_at: AtomicUsize::new(usize::MAX),
            loss: std::sync::Mutex::new(Loss::Request),
            down: AtomicBool::new(false),
        });
        let shutdown = CancellationToken::new();
        let (accept_state, accept_shutdown) = (state.clone(), shutdown.clone());
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = accept_shutdown.cancelled() => return,
                    accepted = listener.accept() => accepted,
                };
                let Ok((client, _)) = accepted else {
                    continue;
                };
                if accept_state.down.load(Ordering::SeqCst) {
                    // Refused: the connection closes at once.
                    drop(client);
                    continue;
                }
                tokio::spawn(relay(client, accept_state.clone(), accept_shutdown.clone()));
            }
        });
        Self {
            base,
            state,
            shutdown,
        }
    }

    /// Does `loss` to the `nth` upload from now on (1 is the next one).
    pub fn cut_upload(&self, nth: usize, loss: Loss) {
        let seen = self.state.uploads_seen.load(Ordering::SeqCst);
        *self.state.loss.lock().unwrap() = loss;
        self.state.cut_at.store(seen + nth, Ordering::SeqCst);
    }

    /// Lets connections through again, and cuts nothing more.
    pub fn restore(&self) {
        self.state.cut_at.store(usize::MAX, Ordering::SeqCst);
        self.state.down.store(false, Ordering::SeqCst);
    }

    /// Uploads that reached the proxy so far.
    pub fn uploads_seen(&self) -> usize {
        self.state.uploads_seen.load(Ordering::SeqCst)
    }
}

impl Drop for DroppingProxy {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Finds `needle` in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Carries one client connection to the service and back, cutting it as the state says.
async fn relay(client: TcpStream, state: Arc<ProxyState>, shutdown: CancellationToken) {
    let Ok(server) = TcpStream::connect(state.upstream).await else {
        return;
    };
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let cut = shutdown.child_token();
    let answer_lost = Arc::new(AtomicBool::new(false));
    let to_server = {
        let (state, cut, answer_lost) = (state.clone(), cut.clone(), answer_lost.clone());
        async move {
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                let read = match client_read.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => read,
                };
                let chunk = &buffer[..read];
                // Once down, only the connection whose answer is to be lost goes on (its body).
                if state.down.load(Ordering::SeqCst) && !answer_lost.load(Ordering::SeqCst) {
                    break;
                }
                if contains(chunk, b"PUT /api/FileBinary") {
                    let nth = state.uploads_seen.fetch_add(1, Ordering::SeqCst) + 1;
                    if nth == state.cut_at.load(Ordering::SeqCst) {
                        let loss = *state.loss.lock().unwrap();
                        match loss {
                            Loss::Request => {
                                state.down.store(true, Ordering::SeqCst);
                                break;
                            }
                            Loss::Answer => {
                                state.down.store(true, Ordering::SeqCst);
                                answer_lost.store(true, Ordering::SeqCst);
                            }
                            // Until the client or the proxy closes the connection.
                            Loss::Hold => std::future::pending::<()>().await,
                        }
                    }
                }
                if server_write.write_all(chunk).await.is_err() {
                    break;
                }
            }
            // Nothing more goes to the service on this connection; a lost answer keeps the
            // connection open until the service answers.
            if !answer_lost.load(Ordering::SeqCst) {
                cut.cancel();
            }
        }
    };
    let to_client = {
        let cut = cut.clone();
        async move {
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                let read = match server_read.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => read,
                };
                if answer_lost.load(Ordering::SeqCst) {
                    break;
                }
                if client_write.write_all(&buffer[..read]).await.is_err() {
                    break;
                }
            }
            cut.cancel();
        }
    };
    tokio::select! {
        _ = cut.cancelled() => {}
        _ = async { tokio::join!(to_server, to_client) } => {}
    }
}
