//! Who calls: the authenticated user of a request, and the stamp that ties image links to the
//! password they were made under.

/// The authenticated user of a request: who, which company, whether an admin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The user's row id.
    pub user_id: i64,
    /// The company's GUID (the VizSpaceID of its files).
    pub company_id: String,
    /// Admins may delete company-database files.
    pub admin: bool,
    /// A digest of the user's password hash: it changes when the password is reset, and image
    /// links are bound to it (see the service's `image_links`).
    pub credential_stamp: String,
}

/// The credential stamp of a stored password hash (see [`Caller::credential_stamp`]).
pub fn credential_stamp(password_hash: &str) -> String {
    use sha2::Digest as _;
    hex::encode(&sha2::Sha256::digest(password_hash.as_bytes())[..16])
}
