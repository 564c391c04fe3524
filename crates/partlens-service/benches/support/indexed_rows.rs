//! A table row's cells shared by `text_scale` and `visual_scale`: an indexed path against the scan
//! it replaced.

use std::time::Duration;

use super::support::{millis, percentile};

/// The cells of a table row comparing an indexed path with the scan it replaced: p50 and p95 of
/// each, how many times faster the index is at p50, and whether both found the same files.
pub fn indexed_against_scanned(
    indexed: &mut [Duration],
    scanned: &mut [Duration],
    same: bool,
) -> String {
    let indexed_p50 = percentile(indexed, 0.5);
    let scanned_p50 = percentile(scanned, 0.5);
    format!(
        "{} ms | {} ms | {} ms | {} ms | {:.0}× | {}",
        millis(indexed_p50),
        millis(percentile(indexed, 0.95)),
        millis(scanned_p50),
        millis(percentile(scanned, 0.95)),
        scanned_p50.as_secs_f64() / indexed_p50.as_secs_f64().max(1e-9),
        if same { "yes" } else { "NO" }
    )
}
