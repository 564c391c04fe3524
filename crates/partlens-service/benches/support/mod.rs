//! What the scale benchmarks (`text_scale`, `visual_scale`) share: percentiles and times as the
//! tables print them, and where a library is written (a temporary folder, or one kept for later
//! runs with `keep=DIR`).

use std::path::PathBuf;
use std::time::Duration;

/// The `share` percentile (0..=1) of `times` (sorted in place); zero when there are none.
pub fn percentile(times: &mut [Duration], share: f64) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    times.sort();
    times[((times.len() - 1) as f64 * share).round() as usize]
}

/// Milliseconds with two decimals.
pub fn millis(duration: Duration) -> String {
    format!("{:.2}", duration.as_secs_f64() * 1000.0)
}

/// The folder given with `keep=DIR` among the arguments, if any.
pub fn kept_folder(arguments: &[String]) -> Option<PathBuf> {
    arguments
        .iter()
        .find_map(|arg| arg.strip_prefix("keep="))
        .map(PathBuf::from)
}

/// Where the library of `size` goes: `DIR/<size>` under a kept folder, else `temporary` (which the
/// caller keeps alive while it uses the library).
pub fn library_folder(
    kept: Option<&PathBuf>,
    size: usize,
    temporary: &tempfile::TempDir,
) -> PathBuf {
    kept.map_or_else(
        || temporary.path().to_path_buf(),
        |kept| kept.join(size.to_string()),
    )
}
