//! Where this page is and where a probe may be: the page's origin, the probe a page served by
//! `native-probe serve` has beside it, and the addresses derived from a probe's WebSocket URL.
//! Plain string work, so it is tested natively; only [`Page::of_window`] asks the browser.

use engine::address::{host_of, is_loopback_name, Url};
use gloo::utils::{document, window};

/// Where a probe listens unless told otherwise (`native-probe serve`'s default `--listen`):
/// what a lab page hosted elsewhere tries once its own origin has no probe.
pub const LOCAL_PROBE: &str = "ws://127.0.0.1:7878/ws";

/// What the live view needs to know about the page it runs in.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// `window.location.origin`, e.g. `https://name.github.io`; `null` for a `file:` page.
    pub origin: String,
    /// The probe that served this page, if one did: `ws` beside the page's base URL, so a
    /// copy of the site under a sub-path looks under that path too.
    pub own_probe: String,
    /// Served over https: the browser then opens `ws://` only to this machine.
    pub secure: bool,
    /// The page comes from this machine (localhost or a loopback address), as `./lab run`
    /// serves it; a page from anywhere else may need the browser's leave to reach it.
    pub local: bool,
}

impl Page {
    pub fn of_window() -> Page {
        let location = window().location();
        let origin = location.origin().unwrap_or_else(|_| "null".into());
        let base = document()
            .base_uri()
            .ok()
            .flatten()
            .or_else(|| location.href().ok())
            .unwrap_or_default();
        Page::at(&origin, &base)
    }

    /// The page whose origin is `origin` and whose base URL (`document.baseURI`) is `base`.
    pub fn at(origin: &str, base: &str) -> Page {
        let secure = origin.starts_with("https://");
        let local = Url::split(origin).is_some_and(|url| is_loopback_name(host_of(url.authority)));
        Page {
            origin: origin.to_string(),
            own_probe: own_probe_url(base).unwrap_or_else(|| LOCAL_PROBE.to_string()),
            secure,
            local,
        }
    }

    /// The `serve` option that lets this page connect, or `None` when no flag can allow it
    /// (a `file:` or sandboxed page, whose origin is `null`).
    pub fn allow_flag(&self) -> Option<String> {
        let web = self.origin.starts_with("http://") || self.origin.starts_with("https://");
        web.then(|| format!("--allow-origin {}", self.origin))
    }

    /// The command that starts a probe this page may connect to.
    pub fn allow_command(&self) -> Option<String> {
        self.allow_flag()
            .map(|flag| format!("native-probe serve {flag}"))
    }
}

/// `ws` resolved against a page's base URL, as a WebSocket URL:
/// `https://name.github.io/rdma-lab/` → `wss://name.github.io/rdma-lab/ws`.
pub fn own_probe_url(base: &str) -> Option<String> {
    let url = Url::split(base)?;
    let scheme = match url.scheme {
        "http" => "ws",
        "https" => "wss",
        _ => return None,
    };
    if url.authority.is_empty() {
        return None;
    }
    Some(format!(
        "{scheme}://{}{}ws",
        url.authority,
        directory(url.path())
    ))
}

/// The part of a path up to and including its last `/`.
fn directory(path: &str) -> &str {
    path.rfind('/').map_or("/", |end| &path[..=end])
}

/// The pieces of a probe's WebSocket URL the view talks about.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeAddress {
    /// `host:port`, as the learner would type it.
    pub authority: String,
    /// Just the host, brackets kept for IPv6.
    pub host: String,
    /// The probe's `/probe` route, which says whether this page may connect.
    pub presence: String,
    /// The lab the probe serves itself.
    pub site: String,
    /// Plain `ws://`, not `wss://`.
    pub plain: bool,
    /// The path asked for, e.g. `/ws`; a probe's stream is at `/ws` (under a proxy's prefix).
    pub path: String,
}

impl ProbeAddress {
    /// `ws://h:p/ws?token=x` → `h:p`, `http://h:p/probe`, `http://h:p/`.
    pub fn of(url: &str) -> Option<ProbeAddress> {
        let url = Url::split(url)?;
        let http = match url.scheme {
            "ws" => "http",
            "wss" => "https",
            _ => return None,
        };
        let authority = url.authority;
        if authority.is_empty() {
            return None;
        }
        let dir = directory(url.path());
        Some(ProbeAddress {
            authority: authority.to_string(),
            host: host_of(authority).to_string(),
            presence: format!("{http}://{authority}{dir}probe"),
            site: format!("{http}://{authority}{dir}"),
            plain: url.scheme == "ws",
            path: url.path().to_string(),
        })
    }

    /// Whether the address asks for a probe's stream (`/ws`, or `PREFIX/ws` behind a proxy).
    pub fn names_the_stream(&self) -> bool {
        self.path.ends_with("/ws")
    }

    /// On this machine: browsers let any page, https ones included, open `ws://` to it.
    pub fn is_loopback(&self) -> bool {
        is_loopback_name(&self.host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_own_probe_sits_beside_the_base_url() {
        assert_eq!(
            own_probe_url("http://127.0.0.1:7878/live").as_deref(),
            Some("ws://127.0.0.1:7878/ws")
        );
        assert_eq!(
            own_probe_url("http://127.0.0.1:7878/").as_deref(),
            Some("ws://127.0.0.1:7878/ws")
        );
        assert_eq!(
            own_probe_url("https://name.github.io/rdma-lab/").as_deref(),
            Some("wss://name.github.io/rdma-lab/ws")
        );
        assert_eq!(
            own_probe_url("https://name.github.io/rdma-lab/live?x=a/b#c/d").as_deref(),
            Some("wss://name.github.io/rdma-lab/ws")
        );
        assert_eq!(
            own_probe_url("http://box:9000").as_deref(),
            Some("ws://box:9000/ws")
        );
        assert_eq!(own_probe_url("file:///home/me/dist/index.html"), None);
        assert_eq!(own_probe_url("not a url"), None);
    }

    #[test]
    fn a_page_knows_its_command_and_whether_it_is_local() {
        let hosted = Page::at(
            "https://name.github.io",
            "https://name.github.io/rdma-lab/live",
        );
        assert_eq!(
            hosted.allow_command().as_deref(),
            Some("native-probe serve --allow-origin https://name.github.io")
        );
        assert!(hosted.secure && !hosted.local);
        assert_eq!(hosted.own_probe, "wss://name.github.io/rdma-lab/ws");
        let local = Page::at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        assert!(local.local && !local.secure);
        assert!(Page::at("http://localhost:8080", "http://localhost:8080/").local);
        assert!(Page::at("http://[::1]:8080", "http://[::1]:8080/").local);
        assert!(!Page::at("http://lab-node01:7878", "http://lab-node01:7878/").local);
        let file = Page::at("null", "file:///dist/index.html");
        assert_eq!(file.allow_command(), None);
        assert_eq!(file.own_probe, LOCAL_PROBE);
    }

    #[test]
    fn a_probe_url_names_its_presence_route_and_site() {
        let address = ProbeAddress::of("ws://127.0.0.1:7878/ws?token=s3cret").unwrap();
        assert_eq!(address.authority, "127.0.0.1:7878");
        assert_eq!(address.presence, "http://127.0.0.1:7878/probe");
        assert_eq!(address.site, "http://127.0.0.1:7878/");
        assert!(address.plain && address.is_loopback() && address.names_the_stream());
        assert!(!ProbeAddress::of("ws://h:1/ws127.0.0.1:9")
            .unwrap()
            .names_the_stream());
        let proxied = ProbeAddress::of("wss://lab.example.org/probe-a/ws").unwrap();
        assert_eq!(proxied.presence, "https://lab.example.org/probe-a/probe");
        assert!(!proxied.plain && !proxied.is_loopback());
        let v6 = ProbeAddress::of("ws://[::1]:7878/ws").unwrap();
        assert_eq!(v6.host, "[::1]");
        assert!(v6.is_loopback());
        assert!(!ProbeAddress::of("ws://box:7878/ws").unwrap().is_loopback());
        assert!(!ProbeAddress::of("ws://127.0.0.1.evil.example/ws")
            .unwrap()
            .is_loopback());
        assert_eq!(ProbeAddress::of("http://h/ws"), None);
    }
}
