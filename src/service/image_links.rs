//! The image URLs of records and results: `…/api/Image?fid=<uid>&type=0|1&token=<t>`, each with its
//! own short-lived token, so an image can be fetched (by an `<img>`, a browser, another process)
//! without the bearer token.
//!
//! The token is `<expiry>.<HMAC-SHA256(fid|type|expiry)>` under a secret kept in the store of the data
//! directory: nothing to look up per image, and links stay valid across a restart until they expire.

use std::time::Duration;

use hmac::{KeyInit as _, Mac as _};

use super::disk::ImageKind;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The name of the secret in the store.
pub const SECRET_NAME: &str = "image_link_secret";

/// Signs and checks image tokens.
#[derive(Clone)]
pub struct ImageLinks {
    secret: Vec<u8>,
    lifetime: Duration,
}

impl std::fmt::Debug for ImageLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageLinks")
            .field("lifetime", &self.lifetime)
            .finish_non_exhaustive()
    }
}

impl ImageLinks {
    /// Links signed with `secret`, valid for `lifetime`.
    pub fn new(secret: Vec<u8>, lifetime: Duration) -> Self {
        Self { secret, lifetime }
    }

    /// A fresh random secret.
    pub fn fresh_secret() -> Vec<u8> {
        rand::random::<[u8; 32]>().to_vec()
    }

    fn mac(&self, uid: &str, kind: ImageKind, expires_at: i64) -> HmacSha256 {
        // HMAC takes keys of any length, so this cannot fail; an empty key is still a valid key.
        let mut mac = HmacSha256::new_from_slice(&self.secret)
            .unwrap_or_else(|_| HmacSha256::new(&Default::default()));
        mac.update(format!("{uid}|{}|{expires_at}", kind.type_number()).as_bytes());
        mac
    }

    /// A token for one image of one file, valid from `now` (Unix seconds) for the lifetime.
    pub fn token(&self, uid: &str, kind: ImageKind, now: i64) -> String {
        let expires_at = now + self.lifetime.as_secs() as i64;
        let signature = self.mac(uid, kind, expires_at).finalize().into_bytes();
        format!("{expires_at}.{}", hex::encode(signature))
    }

    /// True when `token` was made by [`ImageLinks::token`] for this file and image and has not expired.
    pub fn verify(&self, uid: &str, kind: ImageKind, token: &str, now: i64) -> bool {
        let Some((expiry, signature)) = token.split_once('.') else {
            return false;
        };
        let (Ok(expires_at), Ok(signature)) = (expiry.parse::<i64>(), hex::decode(signature))
        else {
            return false;
        };
        expires_at > now
            && self
                .mac(uid, kind, expires_at)
                .verify_slice(&signature)
                .is_ok()
    }

    /// The absolute URL of an image, on the origin the client used (`base` = `http://host:port`).
    pub fn url(&self, base: &str, uid: &str, kind: ImageKind, now: i64) -> String {
        format!(
            "{base}/api/Image?fid={uid}&type={}&token={}",
            kind.type_number(),
            self.token(uid, kind, now)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_opens_only_its_image_until_it_expires() {
        let links = ImageLinks::new(b"k".to_vec(), Duration::from_secs(60));
        let token = links.token("a", ImageKind::Thumbnail, 1000);
        assert!(links.verify("a", ImageKind::Thumbnail, &token, 1059));
        assert!(!links.verify("a", ImageKind::Thumbnail, &token, 1060));
        assert!(!links.verify("b", ImageKind::Thumbnail, &token, 1000));
        assert!(!links.verify("a", ImageKind::Large, &token, 1000));
        let other_secret = ImageLinks::new(b"j".to_vec(), Duration::from_secs(60));
        assert!(!other_secret.verify("a", ImageKind::Thumbnail, &token, 1000));
        let tampered = token.replacen("1060", "9999", 1);
        assert!(!links.verify("a", ImageKind::Thumbnail, &tampered, 1000));
        assert!(!links.verify("a", ImageKind::Thumbnail, "garbage", 1000));
    }

    #[test]
    fn urls_carry_fid_type_and_token() {
        let links = ImageLinks::new(b"k".to_vec(), Duration::from_secs(60));
        let url = links.url("http://127.0.0.1:9", "a", ImageKind::Large, 0);
        assert!(
            url.starts_with("http://127.0.0.1:9/api/Image?fid=a&type=1&token=60."),
            "{url}"
        );
    }
}
