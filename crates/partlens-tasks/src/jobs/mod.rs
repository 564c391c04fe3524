//! Upload jobs: what a job is ([`job`]), running it through upload and indexing ([`job_runner`],
//! the backend's job commands), the job list on disk ([`job_store`]) and waiting for indexing
//! ([`poll`], shared with searches and the CLI).

pub mod job;
mod job_runner;
pub mod job_store;
pub mod poll;
