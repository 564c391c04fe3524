//! What the service keeps and serves of a file's pictures, beside the bytes themselves (the
//! service's blob store): which image ([`ImageKind`]), a drawing's pages ([`pages`]: what a record
//! keeps of each, the page `lgFileNumber` selects, the page a search matched on) and the signed
//! links that open an image, a page's image or a stored PDF without the bearer token ([`links`]).
//!
//! It knows no HTTP: the service turns [`pages::PageError`] into its 400 and serves what the links
//! open.

mod kind;
pub mod links;
pub mod pages;

pub use kind::ImageKind;
