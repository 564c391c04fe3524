//! Who talks to which service: the global options (each also from the environment), the password
//! (from stdin or `PARTLENS_PASSWORD`, never an argument), and the one login of an invocation.

use std::io::BufRead;
use std::time::Duration;

use clap::Args;

use super::error::CliError;
use partlens_api::{ApiClient, Credentials};
use partlens_tasks::poll::PollPolicy;

/// The environment variable the password is read from when `--password-stdin` is not given.
pub const PASSWORD_ENV: &str = "PARTLENS_PASSWORD";

/// Testing aid (hidden): milliseconds between two FileStatus polls instead of 2 s backing off to 5 s.
pub const POLL_MS_ENV: &str = "PARTLENS_POLL_MS";

/// Testing aid (hidden): the polling deadline of a zero-byte file in milliseconds instead of 120 s.
pub const POLL_DEADLINE_MS_ENV: &str = "PARTLENS_POLL_DEADLINE_MS";

/// The global options: where the service is and who logs in.
#[derive(Clone, Debug, Args)]
pub struct SessionArgs {
    /// Address of the service.
    #[arg(
        long,
        env = "PARTLENS_SERVICE",
        value_name = "URL",
        default_value = "http://127.0.0.1:8480"
    )]
    pub service: String,
    /// The client id the service issued for this application.
    #[arg(
        long,
        env = "PARTLENS_CLIENT_ID",
        value_name = "ID",
        default_value = "partlens"
    )]
    pub client_id: String,
    /// The user name to log in with.
    #[arg(long, env = "PARTLENS_USER", value_name = "NAME")]
    pub user: Option<String>,
    /// Read the password from the first line of standard input. Without it the password comes from
    /// the PARTLENS_PASSWORD environment variable; it is never taken as an argument.
    #[arg(long)]
    pub password_stdin: bool,
}

/// One invocation's connection: the options, and the logged-in client once a command asks for it.
#[derive(Debug)]
pub struct Session {
    args: SessionArgs,
    client: Option<ApiClient>,
}

impl Session {
    /// A session that has not logged in yet.
    pub fn new(args: SessionArgs) -> Self {
        Self { args, client: None }
    }

    /// The service address as given (`--service` or `PARTLENS_SERVICE`).
    pub fn service_address(&self) -> &str {
        &self.args.service
    }

    /// The logged-in client. The first call reads the password and logs in (`POST /api/Token`);
    /// later calls reuse the token.
    pub async fn client(&mut self) -> Result<&ApiClient, CliError> {
        if self.client.is_none() {
            let credentials = self.credentials()?;
            let mut client = ApiClient::new(&self.args.service)?;
            client.login(&credentials).await?;
            self.client = Some(client);
        }
        self.client
            .as_ref()
            .ok_or_else(|| CliError::Local("the login did not keep a client".into()))
    }

    fn credentials(&self) -> Result<Credentials, CliError> {
        let username = match self.args.user.as_deref().map(str::trim) {
            Some(user) if !user.is_empty() => user.to_owned(),
            _ => {
                return Err(CliError::Usage(
                    "no user given: use --user NAME or set PARTLENS_USER".into(),
                ));
            }
        };
        let password = if self.args.password_stdin {
            read_password_line(&mut std::io::stdin().lock())?
        } else {
            match std::env::var(PASSWORD_ENV) {
                Ok(password) => password,
                Err(std::env::VarError::NotPresent) => {
                    return Err(CliError::Usage(
                        "no password given: pipe it with --password-stdin or set PARTLENS_PASSWORD"
                            .into(),
                    ));
                }
                Err(std::env::VarError::NotUnicode(_)) => {
                    return Err(CliError::Usage(
                        "PARTLENS_PASSWORD is not valid UTF-8".into(),
                    ));
                }
            }
        };
        Ok(Credentials {
            client_id: self.args.client_id.clone(),
            username,
            password,
        })
    }
}

/// Reads the password from the first line of `input`, without its line ending. An input that ends
/// before any line is an error (an empty line is an empty password).
pub fn read_password_line(input: &mut impl BufRead) -> Result<String, CliError> {
    let mut line = String::new();
    let read = input.read_line(&mut line).map_err(|error| {
        CliError::Local(format!("cannot read the password from stdin: {error}"))
    })?;
    if read == 0 {
        return Err(CliError::Usage(
            "--password-stdin was given but standard input is empty".into(),
        ));
    }
    if line.ends_with('\n') {
        line.pop();
        if line.ends_with('\r') {
            line.pop();
        }
    }
    Ok(line)
}

/// The FileStatus polling policy: the interface's guidance (2 s backing off to 5 s, deadline by file
/// size), unless the hidden testing variables shorten it.
pub fn poll_policy() -> PollPolicy {
    let mut policy = PollPolicy::default();
    if let Some(interval) = env_millis(POLL_MS_ENV) {
        policy.first_interval = interval;
        policy.max_interval = interval;
    }
    if let Some(deadline) = env_millis(POLL_DEADLINE_MS_ENV) {
        policy.base_deadline = deadline;
    }
    policy
}

fn env_millis(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_line_loses_only_its_line_ending() {
        let mut input = std::io::Cursor::new(" s3cret pw \r\nnext line\n");
        assert_eq!(read_password_line(&mut input).unwrap(), " s3cret pw ");
        let mut no_newline = std::io::Cursor::new("abc");
        assert_eq!(read_password_line(&mut no_newline).unwrap(), "abc");
        let mut empty_line = std::io::Cursor::new("\n");
        assert_eq!(read_password_line(&mut empty_line).unwrap(), "");
        let mut nothing = std::io::Cursor::new("");
        assert!(matches!(
            read_password_line(&mut nothing),
            Err(CliError::Usage(_))
        ));
    }
}
