//! The image URLs of records and results: `…/api/Image?fid=<uid>&type=0|1&token=<t>` (with
//! `&page=N` for page N > 1 of a drawing), and the PDF link `…/api/Pdf?fid=<uid>&token=<t>`, each with
//! its own short-lived token, so an image or the PDF can be fetched (by an `<img>`, a browser, another
//! process) without the bearer token.
//!
//! The token is `<expiry>.<user id>.<HMAC-SHA256>` under a secret kept in the store of the data
//! directory. The HMAC covers the file and image, the expiry, and what the link is bound to: the user
//! it was made for with their credential stamp (which changes when their password is reset), their
//! company, and the file's generation (its upload time, new on every upload or overwrite). So a link
//! stops working when the password is reset, when the file is overwritten or deleted, and when its
//! UID is later used by another company's file; links stay valid across a restart until they expire.

use std::time::Duration;

use hmac::{KeyInit as _, Mac as _};

use crate::ImageKind;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The name of the secret in the store.
pub const SECRET_NAME: &str = "image_link_secret";

/// What a link opens: one image of a file (of page `page`, from 1), or its stored PDF. A token opens
/// only what it was made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linked {
    /// The thumbnail or large image of page `page` (1: the file's own pictures).
    Image {
        /// Which image.
        kind: ImageKind,
        /// The page, from 1.
        page: u32,
    },
    /// The stored PDF.
    Pdf,
}

impl Linked {
    /// Image `kind` of the file's first page (its own pictures).
    pub fn image(kind: ImageKind) -> Self {
        Self::Image { kind, page: 1 }
    }

    /// What the signature covers beside the UID: the image type (as before pages, for page 1, so
    /// links made then still hold), with the page beyond 1, or `pdf`.
    fn subject(self) -> String {
        match self {
            Self::Image { kind, page } if page <= 1 => kind.type_number().to_string(),
            Self::Image { kind, page } => format!("{}|page{page}", kind.type_number()),
            Self::Pdf => "pdf".to_owned(),
        }
    }
}

/// What a link is bound to; all of it must still hold when the image is fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkBinding<'a> {
    /// The user the link was made for.
    pub user_id: i64,
    /// That user's credential stamp (changes with the password).
    pub credential_stamp: &'a str,
    /// The company of both the user and the file.
    pub company_id: &'a str,
    /// The file's generation: its upload time.
    pub generation: &'a str,
}

/// A token as read from a URL, before it is checked against the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkToken {
    /// Unix seconds after which it is refused.
    pub expires_at: i64,
    /// The user it was made for.
    pub user_id: i64,
    signature: Vec<u8>,
}

impl LinkToken {
    /// Reads `<expiry>.<user id>.<hex signature>`; `None` when it is not of that shape.
    pub fn parse(token: &str) -> Option<Self> {
        let mut parts = token.split('.');
        let (Some(expiry), Some(user), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        Some(Self {
            expires_at: expiry.parse().ok()?,
            user_id: user.parse().ok()?,
            signature: hex::decode(signature).ok()?,
        })
    }
}

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

    fn mac(
        &self,
        uid: &str,
        linked: Linked,
        expires_at: i64,
        binding: &LinkBinding<'_>,
    ) -> HmacSha256 {
        // HMAC takes keys of any length, so this cannot fail; an empty key is still a valid key.
        let mut mac = HmacSha256::new_from_slice(&self.secret)
            .unwrap_or_else(|_| HmacSha256::new(&Default::default()));
        mac.update(
            format!(
                "{uid}|{}|{expires_at}|{}|{}|{}|{}",
                linked.subject(),
                binding.user_id,
                binding.credential_stamp,
                binding.company_id,
                binding.generation
            )
            .as_bytes(),
        );
        mac
    }

    /// A token for one image (or the PDF) of one file, valid from `now` (Unix seconds) for the
    /// lifetime.
    pub fn token(&self, uid: &str, linked: Linked, now: i64, binding: &LinkBinding<'_>) -> String {
        let expires_at = now + self.lifetime.as_secs() as i64;
        let signature = self
            .mac(uid, linked, expires_at, binding)
            .finalize()
            .into_bytes();
        format!(
            "{expires_at}.{}.{}",
            binding.user_id,
            hex::encode(signature)
        )
    }

    /// True when `token` was made by [`ImageLinks::token`] for this file, image (or PDF) and binding
    /// (as the store has them now) and has not expired.
    pub fn verify(
        &self,
        uid: &str,
        linked: Linked,
        token: &LinkToken,
        now: i64,
        binding: &LinkBinding<'_>,
    ) -> bool {
        token.expires_at > now
            && token.user_id == binding.user_id
            && self
                .mac(uid, linked, token.expires_at, binding)
                .verify_slice(&token.signature)
                .is_ok()
    }

    /// The absolute URL of an image (or the PDF) on the service's public origin
    /// (`http://host:port`).
    pub fn url(
        &self,
        origin: &str,
        uid: &str,
        linked: Linked,
        now: i64,
        binding: &LinkBinding<'_>,
    ) -> String {
        let token = self.token(uid, linked, now, binding);
        match linked {
            Linked::Image { kind, page } if page <= 1 => format!(
                "{origin}/api/Image?fid={uid}&type={}&token={token}",
                kind.type_number()
            ),
            Linked::Image { kind, page } => format!(
                "{origin}/api/Image?fid={uid}&type={}&page={page}&token={token}",
                kind.type_number()
            ),
            Linked::Pdf => format!("{origin}/api/Pdf?fid={uid}&token={token}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUND: LinkBinding<'static> = LinkBinding {
        user_id: 7,
        credential_stamp: "stamp",
        company_id: "acme",
        generation: "2026-01-01T00:00:00.000Z",
    };

    fn check(links: &ImageLinks, uid: &str, linked: Linked, token: &str, now: i64) -> bool {
        LinkToken::parse(token)
            .is_some_and(|parsed| links.verify(uid, linked, &parsed, now, &BOUND))
    }

    #[test]
    fn a_token_opens_only_its_image_until_it_expires() {
        let links = ImageLinks::new(b"k".to_vec(), Duration::from_secs(60));
        let token = links.token("a", Linked::image(ImageKind::Thumbnail), 1000, &BOUND);
        assert!(check(
            &links,
            "a",
            Linked::image(ImageKind::Thumbnail),
            &token,
            1059
        ));
        assert!(!check(
            &links,
            "a",
            Linked::image(ImageKind::Thumbnail),
            &token,
            1060
        ));
        assert!(!check(
            &links,
            "b",
            Linked::image(ImageKind::Thumbnail),
            &token,
            1000
        ));
        assert!(!check(
            &links,
            "a",
            Linked::image(ImageKind::Large),
            &token,
            1000
        ));
        let other_secret = ImageLinks::new(b"j".to_vec(), Duration::from_secs(60));
        assert!(!check(
            &other_secret,
            "a",
            Linked::image(ImageKind::Thumbnail),
            &token,
            1000
        ));
        let tampered = token.replacen("1060", "9999", 1);
        assert!(!check(
            &links,
            "a",
            Linked::image(ImageKind::Thumbnail),
            &tampered,
            1000
        ));
        assert!(!check(
            &links,
            "a",
            Linked::image(ImageKind::Thumbnail),
            "garbage",
            1000
        ));
        assert!(!check(
            &links,
            "a",
            Linked::image(ImageKind::Thumbnail),
            "1.2.3.4",
            1000
        ));
    }

    #[test]
    fn a_token_holds_only_while_its_binding_does() {
        let links = ImageLinks::new(b"k".to_vec(), Duration::from_secs(60));
        let token = LinkToken::parse(&links.token("a", Linked::image(ImageKind::Large), 0, &BOUND))
            .unwrap();
        assert_eq!(token.user_id, 7);
        assert!(links.verify("a", Linked::image(ImageKind::Large), &token, 1, &BOUND));
        for changed in [
            LinkBinding {
                credential_stamp: "after a password reset",
                ..BOUND
            },
            LinkBinding {
                company_id: "globex",
                ..BOUND
            },
            LinkBinding {
                generation: "2026-01-02T00:00:00.000Z",
                ..BOUND
            },
            LinkBinding {
                user_id: 8,
                ..BOUND
            },
        ] {
            assert!(
                !links.verify("a", Linked::image(ImageKind::Large), &token, 1, &changed),
                "{changed:?}"
            );
        }
    }

    #[test]
    fn a_pages_token_or_the_pdfs_opens_nothing_else() {
        let links = ImageLinks::new(b"k".to_vec(), Duration::from_secs(60));
        let page = |page| Linked::Image {
            kind: ImageKind::Large,
            page,
        };
        let second = links.token("a", page(2), 0, &BOUND);
        assert!(check(&links, "a", page(2), &second, 1));
        assert!(!check(&links, "a", page(3), &second, 1));
        assert!(!check(&links, "a", page(1), &second, 1));
        let pdf = links.token("a", Linked::Pdf, 0, &BOUND);
        assert!(check(&links, "a", Linked::Pdf, &pdf, 1));
        assert!(!check(&links, "a", page(1), &pdf, 1));
        // Page 1 is the file's own picture: its links are those made before pages.
        assert_eq!(
            links.token("a", page(1), 0, &BOUND),
            links.token("a", Linked::image(ImageKind::Large), 0, &BOUND)
        );
        let url = links.url("http://h", "a", page(2), 0, &BOUND);
        assert!(
            url.starts_with("http://h/api/Image?fid=a&type=1&page=2&token="),
            "{url}"
        );
        let url = links.url("http://h", "a", Linked::Pdf, 0, &BOUND);
        assert!(url.starts_with("http://h/api/Pdf?fid=a&token="), "{url}");
    }

    #[test]
    fn urls_carry_fid_type_and_token() {
        let links = ImageLinks::new(b"k".to_vec(), Duration::from_secs(60));
        let url = links.url(
            "http://127.0.0.1:9",
            "a",
            Linked::image(ImageKind::Large),
            0,
            &BOUND,
        );
        assert!(
            url.starts_with("http://127.0.0.1:9/api/Image?fid=a&type=1&token=60.7."),
            "{url}"
        );
    }
}
