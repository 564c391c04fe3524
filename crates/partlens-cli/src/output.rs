//! What partlens-cli writes: one line of compact JSON on stdout per command, one `partlens-cli: …`
//! line on stderr per failure, and upload progress on stderr only when stderr is a terminal (so that
//! scripts reading either stream never see it).

use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use super::error::CliError;
use partlens_api::ProgressFn;

/// Prints `value` as one line of compact JSON on stdout.
pub fn print_json(value: &impl Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string(value)
        .map_err(|error| CliError::Local(format!("cannot write the result as JSON: {error}")))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}")
        .and_then(|()| stdout.flush())
        .map_err(|error| CliError::Local(format!("cannot write to standard output: {error}")))
}

/// The one stderr line of a failure, without the trailing newline: `partlens-cli: <what went wrong>`,
/// squeezed onto one line.
pub fn error_line(error: &CliError) -> String {
    let text = error.to_string();
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("partlens-cli: {one_line}")
}

/// Prints the one stderr line of a failure.
pub fn print_error(error: &CliError) {
    // Nothing sensible is left to do if stderr itself is closed.
    let _ = writeln!(std::io::stderr().lock(), "{}", error_line(error));
}

/// A progress reporter for an upload of `name`, drawing `\r`-updated percentages on stderr, or `None`
/// when stderr is not a terminal.
pub fn upload_progress(name: &str) -> Option<ProgressFn> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let name = name.to_owned();
    let last_percent = Arc::new(AtomicU64::new(u64::MAX));
    Some(Arc::new(move |sent: u64, total: u64| {
        let percent = (sent * 100).checked_div(total).unwrap_or(100);
        if last_percent.swap(percent, Ordering::Relaxed) == percent {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        let _ = write!(
            stderr,
            "\ruploading {name}: {percent:>3}% ({} of {})",
            human_size(sent),
            human_size(total)
        );
        if sent >= total {
            let _ = writeln!(stderr);
        }
        let _ = stderr.flush();
    }))
}

/// A byte count for people: `812 B`, `4.2 MiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_api::ApiError;

    #[test]
    fn error_line_is_one_line_and_names_the_status() {
        let error = CliError::Api(ApiError::from_status(403, "false"));
        let line = error_line(&error);
        assert!(line.starts_with("partlens-cli: "), "{line}");
        assert!(line.contains("403"), "{line}");
        let multi = CliError::Local("first\nsecond\r\nthird".into());
        assert_eq!(error_line(&multi), "partlens-cli: first second third");
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(20 * 1024 * 1024), "20.0 MiB");
    }
}
