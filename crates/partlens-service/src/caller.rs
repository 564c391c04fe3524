//! The authenticated user of a request: who, which company, whether an admin. Made by the
//! extractor in [`crate::auth`] from the request's token; every handler and what it calls takes it.

use std::ops::Deref;

/// The authenticated user of a request, as a handler extracts it: the store's caller (who, which
/// company, whether an admin, the credential stamp), behind the token the request carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller(pub partlens_store::model::Caller);

impl Deref for Caller {
    type Target = partlens_store::model::Caller;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}
