//! Addresses as people, browsers and HTTP headers write them: a `host[:port]` authority and
//! the `scheme://authority/path` URLs the live view, the probe and the tests pass around.
//!
//! One parser, so the page refuses exactly the addresses the probe would not answer to and
//! the two never disagree on where a host ends and its port begins. Plain string work: no
//! name is resolved and no socket opened.

use std::fmt;
use std::net::Ipv6Addr;

/// `host[:port]`: a name, an IPv4 address or a bracketed IPv6 address, and a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Authority<'a> {
    /// As written (case kept), an IPv6 address with its brackets.
    pub host: &'a str,
    /// From 1 to 65535, when one is given.
    pub port: Option<u16>,
}

/// Why a text is not a `host[:port]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorityError {
    Empty,
    /// `user@host`: a WebSocket or `Host` never carries a user name.
    UserInfo,
    /// `[::1` with no `]`.
    UnclosedBracket,
    /// What stands between the brackets, which is not an IPv6 address.
    NotIpv6(String),
    /// What follows `]` when it is not `:port`.
    AfterBracket {
        v6: String,
        after: String,
    },
    /// A bracket outside an IPv6 literal.
    StrayBracket,
    /// An unbracketed IPv6 address, or `h:1:2`.
    ManyColons,
    /// `:7878`.
    NoHost,
    /// A character no host name has.
    NotAHostName {
        host: String,
        bad: char,
    },
    /// `host:` with nothing after the colon.
    NoPort,
    /// A port that is not digits from 1 to 65535 (`+80`, `0`, `70000`).
    BadPort(String),
}

impl fmt::Display for AuthorityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthorityError::Empty => write!(f, "no host is named"),
            AuthorityError::UserInfo => write!(f, "an address has no user name"),
            AuthorityError::UnclosedBracket => write!(f, "[ is never closed with ]"),
            AuthorityError::NotIpv6(v6) => write!(f, "[{v6}] is not an IPv6 address"),
            AuthorityError::AfterBracket { after, .. } => {
                write!(f, "after ] comes :port or nothing, not {after}")
            }
            AuthorityError::StrayBracket => write!(f, "a bracket is out of place"),
            AuthorityError::ManyColons => write!(f, "more than one colon"),
            AuthorityError::NoHost => write!(f, "no host before the port"),
            AuthorityError::NotAHostName { host, bad } => {
                write!(f, "{host} is not a host name: {bad} cannot be part of one")
            }
            AuthorityError::NoPort => write!(f, "a colon without a port"),
            AuthorityError::BadPort(port) => {
                write!(f, "the port must be a number from 1 to 65535, not {port}")
            }
        }
    }
}

impl std::error::Error for AuthorityError {}

impl<'a> Authority<'a> {
    pub fn parse(text: &'a str) -> Result<Authority<'a>, AuthorityError> {
        if text.is_empty() {
            return Err(AuthorityError::Empty);
        }
        if text.contains('@') {
            return Err(AuthorityError::UserInfo);
        }
        let (host, port) = if let Some(inside) = text.strip_prefix('[') {
            let Some((v6, after)) = inside.split_once(']') else {
                return Err(AuthorityError::UnclosedBracket);
            };
            // A zone (`%eth0`) parses nowhere a browser or `Host` would send it.
            if v6.parse::<Ipv6Addr>().is_err() {
                return Err(AuthorityError::NotIpv6(v6.to_string()));
            }
            let port =
                match after {
                    "" => None,
                    after => Some(after.strip_prefix(':').ok_or_else(|| {
                        AuthorityError::AfterBracket {
                            v6: v6.to_string(),
                            after: after.to_string(),
                        }
                    })?),
                };
            (&text[..v6.len() + 2], port)
        } else {
            if text.contains(['[', ']']) {
                return Err(AuthorityError::StrayBracket);
            }
            let (host, port) = match text.split_once(':') {
                Some((_, port)) if port.contains(':') => return Err(AuthorityError::ManyColons),
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            };
            if host.is_empty() {
                return Err(AuthorityError::NoHost);
            }
            // Letters beyond ASCII pass: a browser turns such a name into its punycode.
            if let Some(bad) = host
                .chars()
                .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '.' | '_')))
            {
                return Err(AuthorityError::NotAHostName {
                    host: host.to_string(),
                    bad,
                });
            }
            (host, port)
        };
        let port = match port {
            None => None,
            Some("") => return Err(AuthorityError::NoPort),
            // Digits only: `u16::from_str` would also take a leading `+`.
            Some(digits) => match digits.parse::<u16>() {
                Ok(port @ 1..) if digits.bytes().all(|b| b.is_ascii_digit()) => Some(port),
                _ => return Err(AuthorityError::BadPort(digits.to_string())),
            },
        };
        Ok(Authority { host, port })
    }
}

/// The host of `host[:port]`, keeping an IPv6 literal's brackets; no checks.
pub fn host_of(authority: &str) -> &str {
    match authority.find(']') {
        Some(end) if authority.starts_with('[') => &authority[..=end],
        _ => authority.split(':').next().unwrap_or(authority),
    }
}

/// `localhost` (and names under it), `127.0.0.0/8` and `[::1]`: the names browsers treat as
/// this machine.
pub fn is_loopback_name(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "[::1]"
        || host.strip_prefix("127.").is_some_and(|rest| {
            rest.split('.').count() == 3 && rest.split('.').all(|p| p.parse::<u8>().is_ok())
        })
}

/// A URL cut at its authority: `scheme://authority` then `rest`, which is empty or starts
/// with `/`, `?` or `#`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Url<'a> {
    pub scheme: &'a str,
    pub authority: &'a str,
    pub rest: &'a str,
}

impl<'a> Url<'a> {
    /// `None` without `://`; the authority is not checked (see [`Authority::parse`]).
    pub fn split(text: &'a str) -> Option<Url<'a>> {
        let (scheme, after) = text.split_once("://")?;
        let (authority, rest) = split_authority(after);
        Some(Url {
            scheme,
            authority,
            rest,
        })
    }

    /// The path, `/` when none is written, without query or fragment.
    pub fn path(&self) -> &'a str {
        match self.rest.split(['?', '#']).next().unwrap_or_default() {
            "" => "/",
            path => path,
        }
    }
}

/// `authority` and what follows it (the path, query or fragment) in the text after `://`.
pub fn split_authority(text: &str) -> (&str, &str) {
    text.split_at(text.find(['/', '?', '#']).unwrap_or(text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorities_split_into_host_and_port() {
        let ok = |s| Authority::parse(s).unwrap();
        assert_eq!(ok("127.0.0.1:7878").host, "127.0.0.1");
        assert_eq!(ok("127.0.0.1:7878").port, Some(7878));
        assert_eq!(ok("Lab-node01").port, None);
        assert_eq!(ok("[::1]:7878").host, "[::1]");
        assert_eq!(ok("[::ffff:127.0.0.1]").port, None);
        let err = |s| Authority::parse(s).unwrap_err();
        assert_eq!(err(""), AuthorityError::Empty);
        assert_eq!(err("user@box"), AuthorityError::UserInfo);
        assert_eq!(err("[::1"), AuthorityError::UnclosedBracket);
        assert_eq!(err("[x]:1"), AuthorityError::NotIpv6("x".into()));
        assert_eq!(
            err("[fe80::1%eth0]:1"),
            AuthorityError::NotIpv6("fe80::1%eth0".into())
        );
        assert!(matches!(
            err("[::1]7878"),
            AuthorityError::AfterBracket { .. }
        ));
        assert_eq!(err("box]:1"), AuthorityError::StrayBracket);
        assert_eq!(err("h:1:2"), AuthorityError::ManyColons);
        assert_eq!(err(":7878"), AuthorityError::NoHost);
        assert!(matches!(
            err("a b:1"),
            AuthorityError::NotAHostName { bad: ' ', .. }
        ));
        assert_eq!(err("h:"), AuthorityError::NoPort);
        for port in ["+80", "0", "70000", "x"] {
            assert_eq!(
                Authority::parse(&format!("h:{port}")),
                Err(AuthorityError::BadPort(port.into()))
            );
        }
    }

    #[test]
    fn hosts_and_loopback_names() {
        assert_eq!(host_of("[::1]:7878"), "[::1]");
        assert_eq!(host_of("box:1"), "box");
        assert_eq!(host_of("box"), "box");
        assert!(is_loopback_name("127.0.0.1") && is_loopback_name("LOCALHOST"));
        assert!(is_loopback_name("a.localhost") && is_loopback_name("[::1]"));
        assert!(!is_loopback_name("127.0.0.1.evil.example") && !is_loopback_name("box"));
    }

    #[test]
    fn urls_cut_at_their_authority() {
        let url = Url::split("ws://h:1/ws?token=x").unwrap();
        assert_eq!(
            (url.scheme, url.authority, url.rest),
            ("ws", "h:1", "/ws?token=x")
        );
        assert_eq!(url.path(), "/ws");
        let bare = Url::split("http://h:1?x=a/b").unwrap();
        assert_eq!(
            (bare.authority, bare.rest, bare.path()),
            ("h:1", "?x=a/b", "/")
        );
        assert_eq!(Url::split("h:1/ws"), None);
        assert_eq!(split_authority("h:1#f"), ("h:1", "#f"));
    }
}
