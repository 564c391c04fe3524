//! Where a callback may go: an http(s) URL whose host resolves only to public addresses. Loopback,
//! private, link-local, unique-local, unspecified, multicast, broadcast and documentation
//! addresses (IPv4 and IPv6, IPv4 inside IPv6 too) are refused unless the operator allows private
//! callbacks (`--allow-private-callbacks`). The check runs when a URL is set and before every
//! send, and the send connects to the very addresses checked (pinned), so a DNS answer that
//! changes in between (rebinding) cannot reach another address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::error::CallbackError;

/// The longest callback URL accepted, in bytes.
pub const MAX_URL_BYTES: usize = 2048;

/// A callback URL checked for its form: http(s), a host, no user name or password, within
/// [`MAX_URL_BYTES`].
pub fn parse_url(text: &str) -> Result<url::Url, CallbackError> {
    let text = text.trim();
    if text.len() > MAX_URL_BYTES {
        return Err(CallbackError::Refused(format!(
            "the callback URL is longer than {MAX_URL_BYTES} bytes"
        )));
    }
    let url = url::Url::parse(text).map_err(|error| {
        CallbackError::Refused(format!(
            "the callback URL {text:?} is not a URL ({error}): give http(s)://host/path"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(CallbackError::Refused(format!(
            "the callback URL {text:?} is not http:// or https:// with a host"
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(CallbackError::Refused(
            "the callback URL may not carry a user name or password: the signature \
             authenticates the service to the receiver"
                .into(),
        ));
    }
    Ok(url)
}

/// The addresses `url`'s host resolves to, each checked ([`is_refused`] unless `allow_private`):
/// an error naming the first refused address (one refused address refuses the URL: a name that
/// also points inside is not sent to), or when the name does not resolve.
pub async fn resolve_checked(
    url: &url::Url,
    allow_private: bool,
) -> Result<Vec<SocketAddr>, CallbackError> {
    let port = url.port_or_known_default().unwrap_or(443);
    let addresses: Vec<SocketAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
        Some(url::Host::Ipv6(ip)) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
        Some(url::Host::Domain(name)) => tokio::net::lookup_host((name, port))
            .await
            .map_err(|error| {
                CallbackError::Refused(format!(
                    "the callback host {name} does not resolve: {error}"
                ))
            })?
            .collect(),
        None => Vec::new(),
    };
    if addresses.is_empty() {
        return Err(CallbackError::Refused(
            "the callback host resolves to no address".into(),
        ));
    }
    if !allow_private && let Some(bad) = addresses.iter().find(|address| is_refused(address.ip())) {
        return Err(CallbackError::Refused(format!(
            "the callback host resolves to {}, a loopback, private or otherwise non-public \
             address: use a public address, or run the service with --allow-private-callbacks",
            bad.ip()
        )));
    }
    Ok(addresses)
}

/// True for an address a callback may not reach unless private callbacks are allowed.
pub fn is_refused(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_refused_v4(ip),
        IpAddr::V6(ip) => is_refused_v6(ip),
    }
}

/// [`is_refused`] for IPv4: this network, loopback, private (10/8, 172.16/12, 192.168/16),
/// shared (100.64/10), link-local, the protocol assignments (192.0.0/24), the documentation
/// ranges, benchmarking (198.18/15), multicast, reserved and broadcast.
fn is_refused_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240
}

/// [`is_refused`] for IPv6: unspecified, loopback, multicast, unique-local (fc00::/7),
/// link-local (fe80::/10), site-local (fec0::/10), documentation (2001:db8::/32), and an IPv4
/// address inside (mapped, compatible, NAT64 64:ff9b::/96, 6to4 2002::/16) by the IPv4 rules.
fn is_refused_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    if let Some(inner) = embedded_v4(ip) {
        return is_refused_v4(inner);
    }
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (segments[0] & 0xfe00) == 0xfc00
        || (segments[0] & 0xffc0) == 0xfe80
        || (segments[0] & 0xffc0) == 0xfec0
        || (segments[0] == 0x2001 && segments[1] == 0x0db8)
}

/// The IPv4 address an IPv6 address carries, if it is one of the forms that do.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let segments = ip.segments();
    let tail = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    if let Some(mapped) = ip.to_ipv4_mapped() {
        return Some(mapped);
    }
    if segments[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_unspecified() && !ip.is_loopback() {
        return Some(tail(segments[6], segments[7]));
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(tail(segments[6], segments[7]));
    }
    if segments[0] == 0x2002 {
        return Some(tail(segments[1], segments[2]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        is_refused(text.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)))
    }

    #[test]
    fn inner_addresses_are_refused_and_public_ones_pass() {
        for inner in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2002:c0a8:0101::1",
        ] {
            assert!(refused(inner), "{inner} should be refused");
        }
        for public in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(!refused(public), "{public} should pass");
        }
    }

    #[test]
    fn a_url_is_http_or_https_with_a_host_and_no_credentials() {
        assert!(parse_url("https://hooks.example.com/partlens").is_ok());
        assert!(parse_url("http://127.0.0.1:9/x").is_ok());
        for bad in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "https://user:pw@example.com/",
            "not a url",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn a_loopback_host_is_refused_unless_private_callbacks_are_allowed() {
        let url = parse_url("http://127.0.0.1:8080/hook").unwrap_or_else(|_| unreachable!());
        assert!(resolve_checked(&url, false).await.is_err());
        assert_eq!(
            resolve_checked(&url, true).await.ok(),
            Some(vec![
                "127.0.0.1:8080".parse().unwrap_or_else(|_| unreachable!())
            ])
        );
    }
}
