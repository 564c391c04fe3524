//! The Standard Webhooks signature: `webhook-signature: v1,<base64 of HMAC-SHA256>` of
//! `"{webhook-id}.{webhook-timestamp}.{body}"`, keyed by the bytes of the secret (`whsec_` and
//! base64 of them), and the secrets themselves: made, read, shown masked.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{KeyInit as _, Mac as _};

use crate::error::CallbackError;

/// The prefix of a secret in the Standard Webhooks form.
pub const SECRET_PREFIX: &str = "whsec_";

/// How many random bytes a made secret has.
const SECRET_BYTES: usize = 24;

/// The fewest and most bytes a given secret may have.
const SECRET_BYTES_RANGE: std::ops::RangeInclusive<usize> = 16..=64;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// A new secret: `whsec_` and base64 of 24 random bytes.
pub fn new_secret() -> String {
    format!(
        "{SECRET_PREFIX}{}",
        STANDARD.encode(rand::random::<[u8; SECRET_BYTES]>())
    )
}

/// The key bytes of `secret` (`whsec_` and base64); an error saying what a secret looks like when
/// it is not one, or its key is shorter than 16 bytes or longer than 64.
pub fn secret_key(secret: &str) -> Result<Vec<u8>, CallbackError> {
    let refused = |why: &str| {
        CallbackError::Refused(format!(
            "the secret {why}: give whsec_ and the base64 of 16 to 64 random bytes, or leave \
             --secret out to have one made"
        ))
    };
    let encoded = secret
        .trim()
        .strip_prefix(SECRET_PREFIX)
        .ok_or_else(|| refused("does not start with whsec_"))?;
    let key = STANDARD
        .decode(encoded)
        .map_err(|_| refused("is not base64 after whsec_"))?;
    if !SECRET_BYTES_RANGE.contains(&key.len()) {
        return Err(refused("has a key of the wrong length"));
    }
    Ok(key)
}

/// The `webhook-signature` header of `body` sent as message `id` at `timestamp` (Unix seconds).
pub fn signature(key: &[u8], id: &str, timestamp: i64, body: &str) -> String {
    let mut mac =
        HmacSha256::new_from_slice(key).unwrap_or_else(|_| HmacSha256::new(&Default::default()));
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body.as_bytes());
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// A secret as `callback show` prints it: its prefix and last four characters.
pub fn masked(secret: &str) -> String {
    let tail: String = secret
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{SECRET_PREFIX}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_secret_reads_back_and_a_malformed_one_is_refused() {
        let secret = new_secret();
        assert_eq!(secret_key(&secret).ok().map(|key| key.len()), Some(24));
        assert!(secret_key("whsec_!!!").is_err());
        assert!(secret_key("c2VjcmV0c2VjcmV0c2VjcmV0").is_err());
        assert!(secret_key("whsec_c2hvcnQ=").is_err());
        assert!(masked(&secret).starts_with("whsec_…"));
        assert!(!masked(&secret).contains(&secret[6..20]));
    }

    #[test]
    fn the_signature_is_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification (and its libraries' tests).
        let key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap_or_default();
        let signed = signature(
            &key,
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(signed, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }
}
