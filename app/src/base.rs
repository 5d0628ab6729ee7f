//! Where the site lives: `/` on the probe, `/rdma-lab/` on a GitHub project page, any
//! folder of any static host. One build serves them all because every page names the site
//! root in its `<base href>` (`../` in `qp/index.html`; 404.html sets it at run time, see
//! index.html), and the app reads it back from `document.baseURI`.
//!
//! Inside the app a page is named by its route path (`/qp#anchor`, as in `content/`); an
//! href on the page is that path under the site root (`/rdma-lab/qp#anchor`). Relative
//! URLs (assets, the worker) need nothing from here: they resolve against the base.

use std::borrow::Cow;

use gloo::utils::document;

thread_local! {
    static SITE_ROOT: String = read_site_root();
}

/// The folder the base URL names, e.g. `/rdma-lab/`; `/` when there is none to read.
fn read_site_root() -> String {
    document()
        .base_uri()
        .ok()
        .flatten()
        .and_then(|base| web_sys::Url::new_with_base("./", &base).ok())
        .map(|root| root.pathname())
        .filter(|root| root.starts_with('/'))
        .unwrap_or_else(|| "/".to_string())
}

/// The site root's path, always ending in `/`.
pub fn site_root() -> String {
    SITE_ROOT.with(Clone::clone)
}

/// For yew-router's `basename`: the site root without its trailing slash, none at `/`.
pub fn basename() -> Option<String> {
    basename_of(&site_root())
}

/// The href of a route path (`/`, `/qp`, `/lossless#pfc`) on this site.
pub fn href(route_path: &str) -> String {
    href_under(&site_root(), route_path)
}

/// The route path an href on this site names (`/rdma-lab/qp#x` → `/qp#x`), `None` for one
/// that leaves the app. A bare route path (`/qp`) is taken as one too, so links drawn before
/// they knew the site root still navigate in-app.
pub fn route_path(href: &str) -> Option<String> {
    route_path_under(&site_root(), href)
}

/// `html` with its root-absolute links (`href="/qp"`, from `content/`) put under the site
/// root; untouched at a host's root.
pub fn rebase_links(html: &'static str) -> Cow<'static, str> {
    rebase_links_under(&site_root(), html)
}

fn basename_of(root: &str) -> Option<String> {
    Some(root.trim_end_matches('/').to_string()).filter(|name| !name.is_empty())
}

fn href_under(root: &str, route_path: &str) -> String {
    format!("{}{route_path}", root.trim_end_matches('/'))
}

fn route_path_under(root: &str, href: &str) -> Option<String> {
    if !href.starts_with('/') || href.starts_with("//") {
        return None;
    }
    let under_root = basename_of(root)
        .and_then(|name| href.strip_prefix(name.as_str()).map(str::to_string))
        .filter(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#']));
    Some(match under_root {
        Some(rest) if rest.starts_with('/') => rest,
        Some(rest) => format!("/{rest}"),
        None => href.to_string(),
    })
}

fn rebase_links_under(root: &str, html: &'static str) -> Cow<'static, str> {
    let Some(name) = basename_of(root) else {
        return Cow::Borrowed(html);
    };
    const LINK: &str = "href=\"/";
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest = html;
    while let Some(at) = rest.find(LINK) {
        let (before, link) = rest.split_at(at);
        out.push_str(before);
        out.push_str("href=\"");
        // `//host/…` leaves the site.
        if !link[LINK.len()..].starts_with('/') {
            out.push_str(&name);
        }
        out.push('/');
        rest = &link[LINK.len()..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_root_has_no_basename() {
        assert_eq!(basename_of("/"), None);
        assert_eq!(basename_of("/rdma-lab/"), Some("/rdma-lab".to_string()));
        assert_eq!(basename_of("/a/rdma-lab/"), Some("/a/rdma-lab".to_string()));
    }

    #[test]
    fn hrefs_are_route_paths_under_the_site_root() {
        assert_eq!(href_under("/", "/"), "/");
        assert_eq!(
            href_under("/", "/qp#the-state-machine"),
            "/qp#the-state-machine"
        );
        assert_eq!(href_under("/a/rdma-lab/", "/"), "/a/rdma-lab/");
        assert_eq!(
            href_under("/a/rdma-lab/", "/nccl-env"),
            "/a/rdma-lab/nccl-env"
        );
    }

    #[test]
    fn hrefs_read_back_as_route_paths() {
        let root = "/a/rdma-lab/";
        let read = |href| route_path_under(root, href);
        assert_eq!(read("/a/rdma-lab/qp#x").as_deref(), Some("/qp#x"));
        assert_eq!(read("/a/rdma-lab/qp/").as_deref(), Some("/qp/"));
        assert_eq!(read("/a/rdma-lab/").as_deref(), Some("/"));
        assert_eq!(read("/a/rdma-lab").as_deref(), Some("/"));
        assert_eq!(read("/a/rdma-lab#x").as_deref(), Some("/#x"));
        // A bare route path, and one that only looks like the root's name.
        assert_eq!(read("/qp").as_deref(), Some("/qp"));
        assert_eq!(
            read("/a/rdma-lab-old/qp").as_deref(),
            Some("/a/rdma-lab-old/qp")
        );
        assert_eq!(read("https://example.com/"), None);
        assert_eq!(read("//example.com/"), None);
        assert_eq!(read("#anchor"), None);
        assert_eq!(route_path_under("/", "/qp").as_deref(), Some("/qp"));
    }

    #[test]
    fn compiled_links_move_under_the_site_root() {
        let html = r##"<a href="/lossless#pfc">PFC</a> <a href="https://x.org/">x</a> <a href="#source-1">1</a> <a href="//cdn.example/">c</a> <a href="/">home</a>"##;
        assert_eq!(rebase_links_under("/", html), html);
        assert_eq!(
            rebase_links_under("/a/rdma-lab/", html),
            r##"<a href="/a/rdma-lab/lossless#pfc">PFC</a> <a href="https://x.org/">x</a> <a href="#source-1">1</a> <a href="//cdn.example/">c</a> <a href="/a/rdma-lab/">home</a>"##
        );
    }
}
