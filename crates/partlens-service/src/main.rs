//! partlens-service: the local File Indexing and Search Service over HTTP, and the administration of
//! its data directory (users, companies, client ids). Argument parsing only; the work is in
//! `partlens_service`.

use std::io::{BufRead as _, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use partlens_service::blobs::BlobLocation;
use partlens_service::metrics::MetricsExposure;
use partlens_service::{RunningService, ServiceConfig, admin, categories};
use partlens_store::DatabaseUrl;

/// What `partlens-service --help` shows after the command list.
const AFTER_HELP: &str = "\
Set up a data directory, then serve it:
  partlens-service --data ./data user add --company Acme --user admin --admin --password-stdin
  partlens-service --data ./data category add --company Acme --name Drawings --requires material
  partlens-service --data ./data callback set --company Acme --url https://hooks.example.com/partlens
  partlens-service --data ./data serve --addr 127.0.0.1:8480

The service binds 127.0.0.1 unless --addr says otherwise. It prints `listening on URL` on stdout
once it accepts requests, logs to stderr (RUST_LOG=debug for more; --log-format json for one JSON
object a line), and stops on Ctrl-C or SIGTERM; queued indexing jobs resume at the next start.
Passwords are stored only as argon2 hashes. Prometheus metrics are on GET /metrics when the service
is bound to a loopback address (serve --metrics).

Models and drawings are read in worker processes (this program, run by the service itself), each
with hard limits the operating system enforces: 60 s wall clock, 2 GiB of memory, 60 s of CPU by
default (--reader-time-limit, --reader-memory-limit, --reader-cpu-limit). A file that hits a limit
or crashes its reader fails with the reason in words; the service goes on.";

/// partlens-service: the local File Indexing and Search Service.
///
/// Serves the whole interface (token, file upload and records, indexing status, attributes, PMI
/// and feedback, search by files, text and attributes, images) over HTTP from a data directory,
/// and manages that directory's users, companies and client ids.
#[derive(Parser, Debug)]
#[command(name = "partlens-service", version, after_help = AFTER_HELP)]
struct Cli {
    /// The data directory: database, uploaded files, rendered images (created if missing).
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// Keep records, accounts and the queue in this PostgreSQL database (postgres://…) instead of
    /// the SQLite file in --data, which then holds the uploaded files and images (a folder several
    /// nodes on one database may share). See docs/OPERATIONS.md, "On PostgreSQL".
    #[arg(
        long,
        value_name = "URL",
        env = "PARTLENS_DATABASE_URL",
        hide_env_values = true,
        value_parser = parse_database_url
    )]
    database: Option<DatabaseUrl>,
    /// Keep the uploaded files and rendered images here instead of in --data: a folder (a local
    /// disk or a mount the nodes share) or an S3-compatible bucket, s3://BUCKET[/PREFIX], reached
    /// with the AWS_* variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
    /// AWS_ENDPOINT_URL for MinIO and others, AWS_ALLOW_HTTP=true for plain http).
    #[arg(
        long,
        value_name = "DIR|s3://BUCKET[/PREFIX]",
        env = "PARTLENS_BLOBS",
        value_parser = BlobLocation::parse
    )]
    blobs: Option<BlobLocation>,
    /// How the log on stderr is written: `text` for people, `json` for one JSON object a line (for
    /// a log collector). Filtered by RUST_LOG either way; `listening on URL` on stdout is the same.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        default_value_t = LogFormat::Text,
        env = "PARTLENS_LOG_FORMAT",
        global = true
    )]
    log_format: LogFormat,
    /// Callbacks may go to loopback, private, link-local and other non-public addresses
    /// (checked when a URL is set and at every send). Off by default: a callback URL could
    /// otherwise reach the service's own network.
    #[arg(long, env = "PARTLENS_ALLOW_PRIVATE_CALLBACKS", global = true)]
    allow_private_callbacks: bool,
    #[command(subcommand)]
    command: Command,
}

/// How the log on stderr is written (`--log-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    /// Lines for people: time, level, message, fields.
    Text,
    /// One JSON object a line: `timestamp`, `level`, `target`, `fields` (the message among them).
    Json,
}

/// Whether `GET /metrics` is served (`serve --metrics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MetricsArg {
    /// Served when the service is bound to a loopback address, not otherwise.
    Auto,
    /// Served on any address: let only the Prometheus server reach it (it needs no token).
    On,
    /// Never served (`GET /metrics` is a 404).
    Off,
}

impl From<MetricsArg> for MetricsExposure {
    fn from(value: MetricsArg) -> Self {
        match value {
            MetricsArg::Auto => MetricsExposure::Auto,
            MetricsArg::On => MetricsExposure::On,
            MetricsArg::Off => MetricsExposure::Off,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serves the interface over HTTP until Ctrl-C or SIGTERM.
    Serve {
        /// The address to listen on; port 0 picks a free port.
        #[arg(long, default_value = "127.0.0.1:8480")]
        addr: SocketAddr,
        /// The largest request body accepted, in bytes [default: 536870912, 512 MiB].
        #[arg(long, value_name = "BYTES")]
        max_body_bytes: Option<u64>,
        /// Background workers indexing asynchronous uploads (0 queues them without indexing)
        /// [default: 2].
        #[arg(long, value_name = "N")]
        index_workers: Option<usize>,
        /// A company is searched visually through an approximate nearest-neighbour graph (saved
        /// under DIR/visual/) from this many views on, by the exact scan below [default: 50000;
        /// 0: always; a number larger than any library: never].
        #[arg(long, value_name = "VIEWS")]
        ann_from_views: Option<usize>,
        /// A graph holds of each model the views from this many of its 162 directions (spread
        /// evenly) and its picture's; every view is still kept and scored: half the build time
        /// of a large library, at some recall of one-photograph searches [default: 162, all; 32
        /// to 162]. A saved graph built with another number is built again at the start.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(32..=162))]
        graph_directions: Option<u16>,
        /// The address clients reach the service at (e.g. https://parts.example.com behind a
        /// proxy); image links are built on it [default: http:// and the bound address].
        #[arg(long, value_name = "URL", value_parser = parse_public_url)]
        public_url: Option<String>,
        /// Wall-clock limit of reading one model or drawing, in seconds: past it the reader's
        /// worker process is killed and the file fails with that reason [default: 60].
        #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
        reader_time_limit: Option<u64>,
        /// Memory limit of reading one model or drawing, in MiB (the worker's RLIMIT_DATA, set by
        /// the operating system) [default: 2048].
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(64..))]
        reader_memory_limit: Option<u64>,
        /// CPU-time limit of reading one model or drawing, in seconds (the worker's RLIMIT_CPU)
        /// [default: 60].
        #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
        reader_cpu_limit: Option<u64>,
        /// How many files are read at once, each model or drawing in its own worker process
        /// [default: one a CPU core]. Shared fairly: no company holds more than half while another
        /// waits, and search inputs go first.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        reader_slots: Option<u64>,
        /// Prometheus metrics on GET /metrics, without a token: requests by route and status,
        /// latency of each route (search and upload among them), indexing queue by company id,
        /// reader workers killed by limit, database connections. `auto` serves them when --addr is
        /// a loopback address only; on another address use `on` only where just the Prometheus
        /// server reaches the port. Off, /metrics is a 404.
        #[arg(
            long,
            value_enum,
            value_name = "WHEN",
            default_value_t = MetricsArg::Auto,
            env = "PARTLENS_METRICS"
        )]
        metrics: MetricsArg,
        /// The first wait before a callback is tried again, in milliseconds (later waits are
        /// multiples of it) [default: 5000]. For tests.
        #[arg(long, hide = true, env = "PARTLENS_CALLBACK_RETRY_BASE_MS",
              value_parser = clap::value_parser!(u64).range(1..))]
        callback_retry_base_ms: Option<u64>,
        /// The time limit of one callback call, in milliseconds [default: 10000]. For tests.
        #[arg(long, hide = true, env = "PARTLENS_CALLBACK_TIMEOUT_MS",
              value_parser = clap::value_parser!(u64).range(1..))]
        callback_timeout_ms: Option<u64>,
        /// How long callback deliveries that ended (delivered or failed) are kept, in days from
        /// their event; older ones are deleted with their attempts (at start, then every hour).
        /// Pending deliveries are never deleted.
        #[arg(long, value_name = "DAYS", default_value_t = 30,
              value_parser = clap::value_parser!(u64).range(1..=36_500))]
        callback_retention_days: u64,
    },
    /// Manages users.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Manages client ids.
    Client {
        #[command(subcommand)]
        command: ClientCommand,
    },
    /// Manages a company's file categories (`categoryId` of uploads).
    ///
    /// A company with categories must name one of them in every company-database upload; the
    /// category is saved on the file as the attribute category=<name>. See docs/OPERATIONS.md.
    Category {
        #[command(subcommand)]
        command: CategoryCommand,
    },
    /// Manages a company's callback: where events are POSTed, signed (Standard Webhooks).
    ///
    /// Events: indexing.completed, indexing.failed, file.deleted of company-database files,
    /// sent from a durable outbox and retried for a day. See docs/OPERATIONS.md, "Callbacks".
    Callback {
        #[command(subcommand)]
        command: CallbackCommand,
    },
    /// Says whether the store can be served as it is; exits 1 when it cannot.
    ///
    /// Looks at the database (reachable, schema current, pgvector present) and changes nothing.
    Check,
    /// Copies a SQLite data directory into PostgreSQL; exits 1 when the counts differ.
    ///
    /// Run again, it resumes (or does nothing). Records, accounts (password hashes and tokens included), attributes, feedback, descriptors
    /// and the queue go into the database; the stored files and images into --blobs (a folder or a
    /// bucket), else into --data unless it is DIR itself. The source is only read. See docs/OPERATIONS.md, "On PostgreSQL".
    Migrate {
        /// The SQLite data directory to copy (with the service on it stopped).
        #[arg(long, value_name = "DIR")]
        from: PathBuf,
        /// The PostgreSQL database to copy into [default: --database].
        #[arg(long, value_name = "URL", value_parser = parse_database_url)]
        to: Option<DatabaseUrl>,
    },
}

#[derive(Subcommand, Debug)]
enum UserCommand {
    /// Adds a user to a company (created if needed), or resets an existing user's password and role.
    Add {
        /// The company name.
        #[arg(long)]
        company: String,
        /// The user name (the login).
        #[arg(long)]
        user: String,
        /// The password (visible to other users of this machine in the process list: prefer
        /// --password-stdin).
        #[arg(
            long,
            conflicts_with = "password_stdin",
            required_unless_present = "password_stdin"
        )]
        password: Option<String>,
        /// Reads the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
        /// The user may delete company-database files.
        #[arg(long)]
        admin: bool,
    },
}

#[derive(Subcommand, Debug)]
enum CategoryCommand {
    /// Adds a category to a company (which must exist) and prints its id.
    Add {
        /// The company name.
        #[arg(long)]
        company: String,
        /// The category name (unique in the company, case-insensitively).
        #[arg(long)]
        name: String,
        /// The id uploads name it by [default: one more than the largest].
        #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
        id: Option<i64>,
        /// Attribute names an upload of this category must carry (comma-separated).
        #[arg(long, value_name = "NAMES", value_delimiter = ',')]
        requires: Vec<String>,
    },
    /// Lists a company's categories: id, name and required attributes, tab-separated.
    List {
        /// The company name.
        #[arg(long)]
        company: String,
    },
    /// Removes a category (files filed under it keep their category attribute).
    Remove {
        /// The company name.
        #[arg(long)]
        company: String,
        /// The category id.
        #[arg(long)]
        id: i64,
    },
}

#[derive(Subcommand, Debug)]
enum CallbackCommand {
    /// Sets a company's callback (the company must exist); prints the secret when it made one.
    Set {
        /// The company name.
        #[arg(long)]
        company: String,
        /// The http(s) URL events are POSTed to (its host must resolve to public addresses
        /// unless --allow-private-callbacks).
        #[arg(long)]
        url: String,
        /// The signing secret, whsec_ and base64 of 16 to 64 bytes [default: the company's, or
        /// a new one].
        #[arg(long)]
        secret: Option<String>,
        /// The events sent, comma-separated: indexing.completed, indexing.failed, file.deleted
        /// [default: the company's, or all].
        #[arg(long, value_name = "EVENTS", value_delimiter = ',')]
        events: Option<Vec<String>>,
        /// Whether events are recorded and sent.
        #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
        enabled: bool,
    },
    /// Shows a company's callback: URL, events, on or off, the secret masked; tab-separated.
    Show {
        /// The company name.
        #[arg(long)]
        company: String,
    },
    /// Sends one callback.test event now and prints the receiver's status (exits 1 without one).
    Test {
        /// The company name.
        #[arg(long)]
        company: String,
    },
    /// Lists a company's last deliveries with their attempts, newest first, one JSON object a line.
    Log {
        /// The company name.
        #[arg(long)]
        company: String,
        /// How many deliveries.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
}

#[derive(Subcommand, Debug)]
enum ClientCommand {
    /// Registers a client id (`partlens` is registered by default).
    Add {
        /// The client id.
        client_id: String,
    },
}

fn main() -> std::process::ExitCode {
    // A reader worker (`partlens-service read-worker …`, started by the service itself) does its
    // one read and ends here.
    if let Some(code) = partlens_service::run_reader_worker_if_requested() {
        return code;
    }
    let cli = Cli::parse();
    let log_format = cli.log_format;
    start_log(log_format);
    match run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            match log_format {
                LogFormat::Text => eprintln!("partlens-service: {error:#}"),
                // Every line on stderr stays one JSON object for the log collector.
                LogFormat::Json => tracing::error!(error = format!("{error:#}"), "stopped"),
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs to stderr in `format`, filtered by RUST_LOG (info by default).
fn start_log(format: LogFormat) {
    let subscriber = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        );
    match format {
        LogFormat::Text => subscriber
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        LogFormat::Json => subscriber.json().with_ansi(false).init(),
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            addr,
            max_body_bytes,
            index_workers,
            ann_from_views,
            graph_directions,
            public_url,
            reader_time_limit,
            reader_memory_limit,
            reader_cpu_limit,
            reader_slots,
            metrics,
            callback_retry_base_ms,
            callback_timeout_ms,
            callback_retention_days,
        } => {
            let mut config = ServiceConfig::new(cli.data);
            config.database = cli.database;
            config.blobs = cli.blobs.unwrap_or_default();
            config.addr = addr;
            if let Some(bytes) = max_body_bytes {
                config.max_body_bytes = bytes;
            }
            if let Some(workers) = index_workers {
                config.index_workers = workers;
            }
            if let Some(views) = ann_from_views {
                config.visual.ann_from_views = views;
            }
            if let Some(directions) = graph_directions {
                config.visual.ann.graph_directions = usize::from(directions);
            }
            config.public_url = public_url;
            set_reader_options(
                &mut config.reader,
                (reader_time_limit, reader_cpu_limit),
                reader_memory_limit,
                reader_slots,
            );
            config.metrics = metrics.into();
            set_callback_options(
                &mut config.callbacks,
                cli.allow_private_callbacks,
                (callback_retry_base_ms, callback_timeout_ms),
                callback_retention_days,
            );
            serve(config)
        }
        Command::User {
            command:
                UserCommand::Add {
                    company,
                    user,
                    password,
                    password_stdin,
                    admin,
                },
        } => {
            let password = match (password, password_stdin) {
                (Some(password), _) => password,
                (None, _) => read_password_line()?,
            };
            admin::add_user_in(
                &cli.data,
                cli.database.as_ref(),
                &company,
                &user,
                &password,
                admin,
            )
            .with_context(|| format!("cannot add user {user}"))?;
            println!("user {user} of company {company} is ready");
            Ok(())
        }
        Command::Check => {
            let (lines, usable) =
                admin::check(&cli.data, cli.database.as_ref()).context("cannot check the store")?;
            let (blob_lines, blobs_usable) =
                admin::check_blobs(&cli.data, &cli.blobs.unwrap_or_default());
            let (lines, usable) = (
                lines.into_iter().chain(blob_lines).collect::<Vec<_>>(),
                usable && blobs_usable,
            );
            for line in lines {
                println!("{line}");
            }
            anyhow::ensure!(usable, "the service cannot start on this store as it is");
            println!("ready to serve");
            Ok(())
        }
        Command::Migrate { from, to } => partlens_service::migrate::run_command(
            &cli.data,
            cli.database.as_ref(),
            &cli.blobs.unwrap_or_default(),
            &from,
            to.as_ref(),
        ),
        Command::Category { command } => run_category(&cli.data, cli.database.as_ref(), command),
        Command::Callback { command } => run_callback(
            &cli.data,
            cli.database.as_ref(),
            cli.allow_private_callbacks,
            command,
        ),
        Command::Client {
            command: ClientCommand::Add { client_id },
        } => {
            admin::add_client_in(&cli.data, cli.database.as_ref(), &client_id)
                .with_context(|| format!("cannot add client {client_id}"))?;
            println!("client {client_id} is registered");
            Ok(())
        }
    }
}

/// Runs a `category` subcommand on the store a service is configured with.
fn run_category(
    data: &std::path::Path,
    database: Option<&DatabaseUrl>,
    command: CategoryCommand,
) -> anyhow::Result<()> {
    match command {
        CategoryCommand::Add {
            company,
            name,
            id,
            requires,
        } => {
            let category =
                categories::add_category_in(data, database, &company, id, &name, &requires)
                    .with_context(|| format!("cannot add category {name}"))?;
            println!(
                "category {} of company {company} is {}",
                category.id, category.name
            );
        }
        CategoryCommand::List { company } => {
            let list = categories::list_categories_in(data, database, &company)
                .with_context(|| format!("cannot list the categories of {company}"))?;
            for category in &list {
                println!("{}", categories::category_line(category));
            }
        }
        CategoryCommand::Remove { company, id } => {
            categories::remove_category_in(data, database, &company, id)
                .with_context(|| format!("cannot remove category {id}"))?;
            println!("category {id} of company {company} is removed");
        }
    }
    Ok(())
}

/// The reader options of `serve`: its wall-clock and CPU-time limits (seconds), its memory limit
/// (MiB) and how many files are read at once.
fn set_reader_options(
    reader: &mut partlens_service::ReaderSettings,
    (time_limit, cpu_limit): (Option<u64>, Option<u64>),
    memory_limit: Option<u64>,
    slots: Option<u64>,
) {
    if let Some(seconds) = time_limit {
        reader.limits.time = std::time::Duration::from_secs(seconds);
    }
    if let Some(mib) = memory_limit {
        reader.limits.memory_bytes = mib.saturating_mul(1024 * 1024);
    }
    if let Some(seconds) = cpu_limit {
        reader.limits.cpu = std::time::Duration::from_secs(seconds);
    }
    if let Some(slots) = slots {
        reader.slots = usize::try_from(slots).unwrap_or(usize::MAX);
    }
}

/// The callback options of `serve`: private addresses allowed, the hidden retry base and call
/// time limit (milliseconds), the retention of ended deliveries (days).
fn set_callback_options(
    callbacks: &mut partlens_callbacks::SenderSettings,
    allow_private: bool,
    (retry_base_ms, timeout_ms): (Option<u64>, Option<u64>),
    retention_days: u64,
) {
    callbacks.allow_private = allow_private;
    if let Some(millis) = retry_base_ms {
        let base = std::time::Duration::from_millis(millis);
        callbacks.retry.base = base;
        callbacks.poll = callbacks.poll.min(base);
    }
    if let Some(millis) = timeout_ms {
        callbacks.call_timeout = std::time::Duration::from_millis(millis);
    }
    callbacks.retention = std::time::Duration::from_secs(retention_days.saturating_mul(86_400));
}

/// Runs a `callback` subcommand on the store a service is configured with.
fn run_callback(
    data: &std::path::Path,
    database: Option<&DatabaseUrl>,
    allow_private: bool,
    command: CallbackCommand,
) -> anyhow::Result<()> {
    use partlens_callbacks::admin;
    match command {
        CallbackCommand::Set {
            company,
            url,
            secret,
            events,
            enabled,
        } => {
            let made_secret = secret.is_none();
            let request = admin::SetRequest {
                url,
                secret,
                renew_secret: false,
                events,
                enabled,
                allow_private,
            };
            let settings = admin::set_callback_in(data, database, &company, &request)
                .with_context(|| format!("cannot set the callback of {company}"))?
                .settings;
            println!("callback of company {company} is set");
            for line in admin::settings_lines(&settings) {
                println!("{line}");
            }
            if made_secret {
                println!(
                    "secret in full (give it to the receiver)\t{}",
                    settings.secret
                );
            }
        }
        CallbackCommand::Show { company } => {
            let settings = admin::callback_settings_in(data, database, &company)
                .with_context(|| format!("cannot show the callback of {company}"))?;
            for line in admin::settings_lines(&settings) {
                println!("{line}");
            }
        }
        CallbackCommand::Test { company } => {
            let answer = admin::test_callback_in(data, database, &company, allow_private)
                .with_context(|| format!("cannot test the callback of {company}"))?;
            match answer {
                Ok(status) => println!("the receiver answered {status}"),
                Err(error) => anyhow::bail!("no answer from the receiver: {error}"),
            }
        }
        CallbackCommand::Log { company, limit } => {
            for line in admin::callback_log_in(data, database, &company, limit)
                .with_context(|| format!("cannot list the callbacks of {company}"))?
            {
                println!("{line}");
            }
        }
    }
    Ok(())
}

/// Checks `--database`: a PostgreSQL connection string the client can read.
fn parse_database_url(text: &str) -> Result<DatabaseUrl, String> {
    DatabaseUrl::parse(text)
}

/// Checks `--public-url`: an absolute http(s) URL without query or fragment.
fn parse_public_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text.trim()).map_err(|error| format!("not a URL: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err("use an http:// or https:// URL with a host".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("the URL may not have a query or fragment".into());
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// Reads one line from standard input, without its line ending.
fn read_password_line() -> anyhow::Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read the password from standard input")?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    anyhow::ensure!(!password.is_empty(), "no password on standard input");
    Ok(password)
}

fn serve(config: ServiceConfig) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let service = RunningService::start(config).await?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on {}", service.base_url())?;
        stdout.flush()?;
        drop(stdout);
        wait_for_stop_signal().await?;
        service.shutdown().await;
        Ok(())
    })
}

/// Waits for Ctrl-C, or SIGTERM on Unix.
async fn wait_for_stop_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .context("cannot listen for SIGTERM")?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result.context("cannot listen for Ctrl-C")?,
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c()
        .await
        .context("cannot listen for Ctrl-C")?;
    Ok(())
}
