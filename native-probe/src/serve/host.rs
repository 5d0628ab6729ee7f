//! The `Host` check on every route, which closes the probe to DNS rebinding.
//!
//! A page on a name its author controls can have that name resolve first to their server and
//! then to 127.0.0.1: the browser then sends the page's requests to the probe, as the page's
//! own origin, so neither the same-origin policy nor an `Origin` check stops it. What gives it
//! away is the `Host` header, which still names the attacker's name. So, as Jupyter and Vite
//! do, the probe answers only a `Host` it knows to be itself: a loopback address or
//! `localhost`, the address it listens on when that is not loopback, and names given with
//! `--allow-host`. Anything else gets 403 and a line saying which flag would allow it.

use std::{
    fmt,
    net::{IpAddr, SocketAddr},
    str::FromStr,
    sync::Arc,
};

use axum::{
    extract::{Request, State},
    http::{header, HeaderMap, HeaderValue, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};

/// HTTP's port when a `Host` names none (RFC 9110 section 4.2.1); the probe serves no TLS.
const HTTP_PORT: u16 = 80;

/// The `Host` values the probe answers, fixed once it knows the port it is bound to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    /// The bound port, not the one asked for: `--listen 127.0.0.1:0` binds a free one.
    port: u16,
    /// Listening beyond loopback (`0.0.0.0`, `::` or a given address), the user's choice to
    /// be reached by address or by this machine's name.
    beyond_loopback: bool,
    /// This machine's host name, lowercase; answered only when listening beyond loopback.
    machine: String,
    /// The `--allow-host` names.
    allowed: Vec<AllowedHost>,
}

/// One `--allow-host` value: a name, and the port it must come with (the listening port
/// when none is given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHost {
    name: String,
    port: Option<u16>,
}

impl FromStr for AllowedHost {
    type Err = String;

    fn from_str(text: &str) -> Result<AllowedHost, String> {
        if let Some((_, rest)) = text.split_once("://") {
            return Err(format!(
                "{text:?} is a URL; give the host name alone, e.g. --allow-host {}",
                rest.split('/').next().unwrap_or(rest)
            ));
        }
        let authority = Authority::parse(text).ok_or_else(|| {
            format!("{text:?} is not a host name or NAME:PORT, e.g. --allow-host lab-node01")
        })?;
        Ok(AllowedHost {
            name: authority.host,
            port: authority.port,
        })
    }
}

impl AllowedHosts {
    /// The hosts a probe bound to `bound` answers, on a machine named `machine`.
    pub fn new(bound: SocketAddr, machine: &str, allowed: Vec<AllowedHost>) -> AllowedHosts {
        AllowedHosts {
            port: bound.port(),
            beyond_loopback: !bound.ip().to_canonical().is_loopback(),
            machine: machine.to_ascii_lowercase(),
            allowed,
        }
    }

    /// Whether a request with these headers (and, for HTTP/2, this `:authority`) may be
    /// answered.
    pub fn check_request(
        &self,
        headers: &HeaderMap,
        authority: Option<&str>,
    ) -> Result<(), HostRefused> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let given = match (hosts.next(), hosts.next()) {
            (Some(host), None) => host.to_str().map_err(|_| {
                HostRefused::Malformed(String::from_utf8_lossy(host.as_bytes()).into())
            })?,
            (Some(_), Some(_)) => return Err(HostRefused::Several),
            (None, _) => authority.ok_or(HostRefused::Missing)?,
        };
        self.check_host(given)
    }

    /// Whether `given`, a `Host` value (`name[:port]`, `[v6][:port]`), names this probe.
    pub fn check_host(&self, given: &str) -> Result<(), HostRefused> {
        let Some(Authority { host, port }) = Authority::parse(given) else {
            return Err(HostRefused::Malformed(given.to_string()));
        };
        let port = port.unwrap_or(HTTP_PORT);
        let named = self
            .allowed
            .iter()
            .any(|allowed| allowed.name == host && allowed.port.unwrap_or(self.port) == port);
        if named || (port == self.port && self.is_this_probe(&host)) {
            return Ok(());
        }
        Err(HostRefused::NotAllowed {
            given: given.to_string(),
            allow: if port == self.port {
                host
            } else {
                format!("{host}:{port}")
            },
        })
    }

    /// A rebinding attacker needs a DNS name they control: an address literal cannot be
    /// rebound, nor can `localhost` (browsers resolve it to loopback themselves), and the
    /// machine's own name is resolved by its network's DNS, not the attacker's.
    fn is_this_probe(&self, host: &str) -> bool {
        if host == "localhost" {
            return true;
        }
        let address = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if let Ok(address) = address.parse::<IpAddr>() {
            return self.beyond_loopback || address.to_canonical().is_loopback();
        }
        self.beyond_loopback && host == self.machine
    }
}

/// A `host[:port]`, lowercase, an IPv6 address kept in its brackets.
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    /// The engine's parser (the live view checks addresses with it too), on the lowercased
    /// text: names are compared without case.
    fn parse(text: &str) -> Option<Authority> {
        let text = text.to_ascii_lowercase();
        let parsed = engine::address::Authority::parse(&text).ok()?;
        Some(Authority {
            host: parsed.host.to_string(),
            port: parsed.port,
        })
    }
}

/// Why a request was refused for its `Host`; each says what would let it through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostRefused {
    /// No `Host` at all (an HTTP/1.0 client): it does not say whom it asks.
    Missing,
    Several,
    Malformed(String),
    /// A host this probe does not know as itself; `allow` is what `--allow-host` would take.
    NotAllowed {
        given: String,
        allow: String,
    },
}

impl fmt::Display for HostRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SEND: &str = "send the host and port you connected to (e.g. Host: 127.0.0.1:7878), or a name given with --allow-host";
        match self {
            HostRefused::Missing => write!(f, "native-probe: the request has no Host header; {SEND}"),
            HostRefused::Several => write!(f, "native-probe: the request has more than one Host header; {SEND}"),
            HostRefused::Malformed(given) => {
                write!(f, "native-probe: Host {given:?} is not a host[:port]; {SEND}")
            }
            HostRefused::NotAllowed { given, allow } => write!(
                f,
                "native-probe: Host {given:?} is not allowed; start the probe with --allow-host {allow} to allow it"
            ),
        }
    }
}

impl IntoResponse for HostRefused {
    fn into_response(self) -> Response {
        (
            StatusCode::FORBIDDEN,
            // The body repeats the request's Host; it must never be taken for a page.
            [(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            )],
            format!("{self}\n"),
        )
            .into_response()
    }
}

/// The layer in front of every route: the request goes on only if its `Host` names this probe.
pub async fn admit(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let authority = request.uri().authority().map(|a| a.as_str().to_string());
    match hosts.check_request(request.headers(), authority.as_deref()) {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(listen: &str, allowed: &[&str]) -> AllowedHosts {
        AllowedHosts::new(
            listen.parse().unwrap(),
            "Lab-Node01",
            allowed.iter().map(|a| a.parse().unwrap()).collect(),
        )
    }

    #[test]
    fn on_loopback_only_loopback_names_on_the_listening_port_pass() {
        let hosts = hosts("127.0.0.1:7878", &[]);
        for host in [
            "localhost:7878",
            "LOCALHOST:7878",
            "127.0.0.1:7878",
            "127.1.2.3:7878",
            "[::1]:7878",
            "[::ffff:127.0.0.1]:7878",
        ] {
            assert_eq!(hosts.check_host(host), Ok(()), "{host}");
        }
        for host in [
            "evil.example:7878",
            "localhost.evil.example:7878",
            "127.0.0.1.evil.example:7878",
            "lab-node01:7878",
            "10.0.0.5:7878",
            "localhost:7879",
            "localhost",
        ] {
            assert!(hosts.check_host(host).is_err(), "{host}");
        }
    }

    #[test]
    fn beyond_loopback_addresses_and_the_machine_name_pass_too() {
        let hosts = hosts("0.0.0.0:7878", &[]);
        for host in [
            "localhost:7878",
            "10.0.0.5:7878",
            "[fe80::1]:7878",
            "lab-node01:7878",
            "LAB-NODE01:7878",
        ] {
            assert_eq!(hosts.check_host(host), Ok(()), "{host}");
        }
        for host in [
            "evil.example:7878",
            "lab-node01.evil.example:7878",
            "10.0.0.5:80",
        ] {
            assert!(hosts.check_host(host).is_err(), "{host}");
        }
    }

    #[test]
    fn allowed_hosts_match_exactly_and_on_their_port() {
        let hosts = hosts("127.0.0.1:7878", &["Evil.Example", "proxy.example:8443"]);
        assert_eq!(hosts.check_host("evil.example:7878"), Ok(()));
        assert_eq!(hosts.check_host("proxy.example:8443"), Ok(()));
        for host in [
            "evil.example.com:7878",
            "www.evil.example:7878",
            "evil.example:7879",
            "evil.example",
            "proxy.example:7878",
        ] {
            assert!(hosts.check_host(host).is_err(), "{host}");
        }
    }

    #[test]
    fn refusals_name_the_flag_that_would_allow_them() {
        let hosts = hosts("127.0.0.1:7878", &[]);
        assert_eq!(
            hosts
                .check_host("Evil.example:7878")
                .unwrap_err()
                .to_string(),
            r#"native-probe: Host "Evil.example:7878" is not allowed; start the probe with --allow-host evil.example to allow it"#
        );
        assert!(hosts
            .check_host("localhost:9000")
            .unwrap_err()
            .to_string()
            .contains("--allow-host localhost:9000 "));
        for malformed in [
            "",
            ":7878",
            "a b:7878",
            "host:+80",
            "host:99999",
            "[::1",
            "[x]:1",
            "h:1:2",
        ] {
            assert_eq!(
                hosts.check_host(malformed),
                Err(HostRefused::Malformed(malformed.to_string())),
                "{malformed:?}"
            );
        }
        assert_eq!(
            hosts.check_request(&HeaderMap::new(), None),
            Err(HostRefused::Missing)
        );
    }

    #[test]
    fn allow_host_values_are_names_not_urls() {
        assert!("http://lab.example.org/"
            .parse::<AllowedHost>()
            .unwrap_err()
            .contains("--allow-host lab.example.org"));
        assert!("a/b".parse::<AllowedHost>().is_err());
        assert_eq!(
            "Lab:8080".parse::<AllowedHost>(),
            Ok(AllowedHost {
                name: "lab".into(),
                port: Some(8080)
            })
        );
    }
}
