//! The hard limits of one read: wall-clock time (the parent kills the worker), memory and CPU time
//! (the worker sets them on itself with `setrlimit` before it reads a byte, so the kernel enforces
//! them whatever the reader does).

use std::time::Duration;

/// The default wall-clock limit of one read.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);
/// The default memory limit of one read (the worker's data segment, `RLIMIT_DATA`): 2 GiB.
pub const DEFAULT_MEMORY_LIMIT_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// The default CPU-time limit of one read.
pub const DEFAULT_CPU_LIMIT: Duration = Duration::from_secs(60);
/// The smallest memory limit accepted: below it the worker cannot start.
pub const MIN_MEMORY_LIMIT_BYTES: u64 = 64 * 1024 * 1024;

/// The limits every read in a worker gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderLimits {
    /// Wall-clock time from the worker's start to its answer; past it the worker is killed.
    pub time: Duration,
    /// The worker's memory (`RLIMIT_DATA`: heap and private mappings); an allocation past it fails
    /// and the worker ends. Its address space (`RLIMIT_AS`) is capped at twice this plus 1 GiB, for
    /// the reservations of threads and libraries.
    pub memory_bytes: u64,
    /// CPU time the worker may use (all its threads together); past it the kernel stops it.
    pub cpu: Duration,
}

impl Default for ReaderLimits {
    fn default() -> Self {
        Self {
            time: DEFAULT_TIME_LIMIT,
            memory_bytes: DEFAULT_MEMORY_LIMIT_BYTES,
            cpu: DEFAULT_CPU_LIMIT,
        }
    }
}

impl ReaderLimits {
    /// The address-space cap that goes with [`ReaderLimits::memory_bytes`].
    pub fn address_space_bytes(&self) -> u64 {
        address_space_for(self.memory_bytes)
    }

    /// The memory limit in words ("2 GiB", "512 MiB").
    pub fn memory_in_words(&self) -> String {
        bytes_in_words(self.memory_bytes)
    }
}

/// The address-space cap of a worker whose memory limit is `memory_bytes`: twice that plus 1 GiB,
/// for the reservations of threads and libraries.
pub fn address_space_for(memory_bytes: u64) -> u64 {
    memory_bytes
        .saturating_mul(2)
        .saturating_add(1024 * 1024 * 1024)
}

/// A byte count in the largest binary unit that divides it evenly ("2 GiB", "1536 MiB").
pub fn bytes_in_words(bytes: u64) -> String {
    const GIB: u64 = 1024 * 1024 * 1024;
    const MIB: u64 = 1024 * 1024;
    if bytes >= GIB && bytes.is_multiple_of(GIB) {
        format!("{} GiB", bytes / GIB)
    } else if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// A duration in whole seconds, or milliseconds below one second ("60 s", "250 ms").
pub fn duration_in_words(duration: Duration) -> String {
    if duration >= Duration::from_secs(1) && duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_said_in_words() {
        let limits = ReaderLimits::default();
        assert_eq!(limits.memory_in_words(), "2 GiB");
        assert_eq!(limits.address_space_bytes(), 5 * 1024 * 1024 * 1024);
        assert_eq!(bytes_in_words(1536 * 1024 * 1024), "1536 MiB");
        assert_eq!(bytes_in_words(1000), "1000 bytes");
        assert_eq!(duration_in_words(Duration::from_secs(60)), "60 s");
        assert_eq!(duration_in_words(Duration::from_millis(250)), "250 ms");
    }
}
