//! Why a model file could not be read: a reason in words, kept apart by kind so callers can tell a
//! file over a limit from a broken one.

/// A model file that could not be read into a mesh.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeometryError {
    /// The file is larger than the reader takes.
    #[error("the mesh is larger than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The content would exceed one of the reader's count limits (vertices, triangles).
    #[error("{0}")]
    OverLimit(String),
    /// The content does not parse as its format, names things that are not there, or has no surface.
    #[error("{0}")]
    Malformed(String),
    /// Reading took longer than the reader's time budget.
    #[error("reading the model took longer than its budget of {seconds} s")]
    OutOfTime {
        /// The budget, in seconds.
        seconds: f64,
    },
    /// The format is one this build does not read, or the file uses a part of it no reader here
    /// understands.
    #[error("{0}")]
    Unsupported(String),
    /// The reader itself failed on the content (a panic inside a third-party reader, caught).
    #[error("{0}")]
    ReaderFailed(String),
    /// The extension names no format these readers understand.
    #[error("not a mesh format")]
    UnknownFormat,
}
