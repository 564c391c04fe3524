//! Authentication: password hashes, bearer tokens, and the [`Caller`] extractor every endpoint but
//! `POST /api/Token` (and the image links, which carry their own token) starts with.
//!
//! The client sends the lower-case hex SHA-1 of the password; the store keeps only an argon2 hash of
//! that digest, made with fixed parameters ([`PASSWORD_MEMORY_KIB`], [`PASSWORD_ITERATIONS`], one
//! lane), so every check costs the same; a stored hash asking for more is refused rather than
//! computed. Tokens are 32 random bytes in hex; the store keeps only their SHA-256.

use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use sha2::Digest as _;

use super::caller::Caller;
use super::error::ServiceError;
use super::state::AppState;
use partlens_store::unix_now;

/// Memory of one password hash, KiB (argon2id; OWASP's 19 MiB).
pub const PASSWORD_MEMORY_KIB: u32 = 19 * 1024;
/// Passes of one password hash.
pub const PASSWORD_ITERATIONS: u32 = 2;

/// The hasher with the service's fixed cost.
fn hasher() -> Argon2<'static> {
    let params =
        argon2::Params::new(PASSWORD_MEMORY_KIB, PASSWORD_ITERATIONS, 1, None).unwrap_or_default();
    Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
}

/// The argon2 hash (PHC string) of a password digest as the client sends it (hex SHA-1, compared
/// in lower case).
pub fn hash_password_digest(sha1_hex: &str) -> Result<String, ServiceError> {
    hasher()
        .hash_password(sha1_hex.trim().to_ascii_lowercase().as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|error| ServiceError::Internal(format!("cannot hash the password: {error}")))
}

/// True when the digest matches the stored hash. Slow on purpose (argon2): call it off the runtime.
/// A stored hash whose parameters cost more than the service's own is refused unchecked.
pub fn verify_password_digest(sha1_hex: &str, stored_hash: &str) -> bool {
    let Ok(parsed) = argon2::password_hash::phc::PasswordHash::new(stored_hash) else {
        return false;
    };
    let affordable = argon2::Params::try_from(&parsed).is_ok_and(|params| {
        params.m_cost() <= PASSWORD_MEMORY_KIB
            && params.t_cost() <= PASSWORD_ITERATIONS
            && params.p_cost() <= 1
    });
    if !affordable {
        tracing::warn!("a stored password hash costs more than this service computes; refused");
        return false;
    }
    hasher()
        .verify_password(sha1_hex.trim().to_ascii_lowercase().as_bytes(), &parsed)
        .is_ok()
}

/// Spends the time of one verification when the user does not exist, so a login does not reveal
/// which user names exist by answering faster.
pub fn verify_against_nothing(sha1_hex: &str) {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    if let Some(dummy) = DUMMY.get_or_init(|| hash_password_digest("0").ok()) {
        let _ = verify_password_digest(sha1_hex, dummy);
    }
}

/// A new bearer token: 32 random bytes, hex.
pub fn new_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// What the store keeps of a token.
pub fn token_hash(token: &str) -> String {
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// The bearer token of a request, if it has one (`Authorization: Bearer <token>`, scheme in any case).
pub fn bearer_token(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ServiceError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = bearer_token(parts).ok_or(ServiceError::Unauthorized)?;
        let hash = token_hash(token);
        state
            .store
            .read_tx(move |tx| tx.caller_of_token(&hash, unix_now()))
            .await?
            .map(Caller)
            .ok_or(ServiceError::Unauthorized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_verifies_in_any_case_and_a_wrong_one_does_not() {
        let digest = partlens_api::encoding::password_digest("secret");
        let hash = hash_password_digest(&digest).unwrap();
        assert!(hash.starts_with("$argon2"));
        assert!(!hash.contains(&digest));
        assert!(verify_password_digest(&digest.to_uppercase(), &hash));
        assert!(!verify_password_digest(
            &partlens_api::encoding::password_digest("other"),
            &hash
        ));
        assert!(!verify_password_digest(&digest, "not a hash"));
        // A hash asking for more memory than the service's cost is never computed.
        let costly = argon2::Argon2::new(
            argon2::Algorithm::Argon2id,
            argon2::Version::V0x13,
            argon2::Params::new(PASSWORD_MEMORY_KIB * 2, 1, 1, None).unwrap(),
        )
        .hash_password(digest.as_bytes())
        .unwrap()
        .to_string();
        assert!(!verify_password_digest(&digest, &costly));
    }

    #[test]
    fn tokens_are_random_and_stored_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert_ne!(token_hash(&a), a);
        assert_eq!(token_hash(&a), token_hash(&a));
    }

    #[test]
    fn bearer_scheme_is_read_in_any_case() {
        let request = axum::http::Request::builder()
            .header("authorization", "bearer abc")
            .body(())
            .unwrap();
        let (parts, _) = request.into_parts();
        assert_eq!(bearer_token(&parts), Some("abc"));
        let request = axum::http::Request::builder()
            .header("authorization", "Basic abc")
            .body(())
            .unwrap();
        assert_eq!(bearer_token(&request.into_parts().0), None);
    }
}
