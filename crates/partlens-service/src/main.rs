//! partlens-service: the local File Indexing and Search Service over HTTP, and the administration of
//! its data directory (users, companies, client ids). Argument parsing only; the work is in
//! `partlens_service`.

use std::io::{BufRead as _, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use partlens_service::{RunningService, ServiceConfig, admin};

/// What `partlens-service --help` shows after the command list.
const AFTER_HELP: &str = "\
Set up a data directory, then serve it:
  partlens-service --data ./data user add --company Acme --user admin --admin --password-stdin
  partlens-service --data ./data serve --addr 127.0.0.1:8480

The service binds 127.0.0.1 unless --addr says otherwise. It prints `listening on URL` on stdout
once it accepts requests, logs to stderr (RUST_LOG=debug for more), and stops on Ctrl-C or SIGTERM;
queued indexing jobs resume at the next start. Passwords are stored only as argon2 hashes.";

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
    #[command(subcommand)]
    command: Command,
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
        /// The address clients reach the service at (e.g. https://parts.example.com behind a
        /// proxy); image links are built on it [default: http:// and the bound address].
        #[arg(long, value_name = "URL", value_parser = parse_public_url)]
        public_url: Option<String>,
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
enum ClientCommand {
    /// Registers a client id (`partlens` is registered by default).
    Add {
        /// The client id.
        client_id: String,
    },
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("partlens-service: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            addr,
            max_body_bytes,
            index_workers,
            ann_from_views,
            public_url,
        } => {
            let mut config = ServiceConfig::new(cli.data);
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
            config.public_url = public_url;
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
            admin::add_user(&cli.data, &company, &user, &password, admin)
                .with_context(|| format!("cannot add user {user}"))?;
            println!("user {user} of company {company} is ready");
            Ok(())
        }
        Command::Client {
            command: ClientCommand::Add { client_id },
        } => {
            admin::add_client(&cli.data, &client_id)
                .with_context(|| format!("cannot add client {client_id}"))?;
            println!("client {client_id} is registered");
            Ok(())
        }
    }
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
