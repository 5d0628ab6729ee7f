//! Where the site lives: `/` on the probe, `/rdma-lab/` on a GitHub project page, any
//! folder of any static host. One build serves them all because every page names the site
//! root in its `<base href>` (`../` in `qp/index.html`; 404.html sets it at run time, see
//! index.html).
//!
//! Inside the app a page is named by its route path (`/qp#anchor`, as in `content/`). On the
//! page every link is relative to the site root (`qp/#anchor`, `./`), so the same markup is
//! right wherever the site is served, prerendered or drawn in the browser, and with
//! JavaScript off. Only the router needs the root's own path, read from `document.baseURI`.

use std::borrow::Cow;

/// The folder the base URL names, e.g. `/rdma-lab/`; `/` when there is none to read.
#[cfg(target_arch = "wasm32")]
fn read_site_root() -> String {
    gloo::utils::document()
        .base_uri()
        .ok()
        .flatten()
        .and_then(|base| web_sys::Url::new_with_base("./", &base).ok())
        .map(|root| root.pathname())
        .filter(|root| root.starts_with('/'))
        .unwrap_or_else(|| "/".to_string())
}

/// Prerendering knows no host: its pages only use relative links.
#[cfg(not(target_arch = "wasm32"))]
fn read_site_root() -> String {
    "/".to_string()
}

thread_local! {
    static SITE_ROOT: String = read_site_root();
}

/// The site root's path, always ending in `/`.
pub fn site_root() -> String {
    SITE_ROOT.with(Clone::clone)
}

/// For yew-router's `basename`: the site root without its trailing slash, none at `/`.
pub fn basename() -> Option<String> {
    basename_of(&site_root())
}

/// The href of a route path (`/`, `/qp`, `/lossless#pfc`, `/flows?scenario=go-back-n`) on
/// this site, relative to the site root: `./`, `qp/`, `lossless/#pfc`,
/// `flows/?scenario=go-back-n`. The trailing slash names the folder a static host serves the
/// page from, so following the link needs no redirect; a query (a view's state) follows it.
pub fn href(route_path: &str) -> String {
    let (path, anchor) = match route_path.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (route_path, None),
    };
    let (path, query) = match path.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (path, None),
    };
    let folder = path.trim_matches('/');
    let mut href = if folder.is_empty() {
        "./".to_string()
    } else {
        format!("{folder}/")
    };
    if let Some(query) = query {
        href.push('?');
        href.push_str(query);
    }
    if let Some(anchor) = anchor {
        href.push('#');
        href.push_str(anchor);
    }
    href
}

/// The route path an absolute path on this site names (`/rdma-lab/qp/` → `/qp/`), `None` for
/// one outside the site root.
pub fn route_path(path: &str) -> Option<String> {
    route_path_under(&site_root(), path)
}

/// A page's compiled text with its links made relative to the site root: `href="/qp"` (as
/// `content/` writes links) becomes `href="qp/"`, and an in-page `href="#source-1"` names its
/// page (`href="verbs/#source-1"`), which under a `<base>` naming the root it must.
pub fn relative_links<'a>(html: &'a str, page: &str) -> Cow<'a, str> {
    const HREF: &str = "href=\"";
    if !html.contains(HREF) {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    while let Some(at) = rest.find(HREF) {
        let (before, from_href) = rest.split_at(at + HREF.len());
        out.push_str(before);
        let end = from_href.find('"').unwrap_or(from_href.len());
        let target = &from_href[..end];
        if target.starts_with('/') && !target.starts_with("//") {
            out.push_str(&href(target));
        } else if let Some(anchor) = target.strip_prefix('#') {
            out.push_str(&href(&format!("{page}#{anchor}")));
        } else {
            out.push_str(target);
        }
        rest = &from_href[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The file a topic's main region is published in, relative to the site root:
/// `text/qp.html`, `text/index.html` for the overview (see `src/bin/prerender.rs`).
pub fn text_file(route_path: &str) -> String {
    match route_path.trim_matches('/') {
        "" => "text/index.html".to_string(),
        slug => format!("text/{slug}.html"),
    }
}

fn basename_of(root: &str) -> Option<String> {
    Some(root.trim_end_matches('/').to_string()).filter(|name| !name.is_empty())
}

fn route_path_under(root: &str, path: &str) -> Option<String> {
    if !path.starts_with('/') || path.starts_with("//") {
        return None;
    }
    let Some(name) = basename_of(root) else {
        return Some(path.to_string());
    };
    let rest = path.strip_prefix(name.as_str())?;
    match rest {
        "" => Some("/".to_string()),
        rest if rest.starts_with('/') => Some(rest.to_string()),
        rest if rest.starts_with(['?', '#']) => Some(format!("/{rest}")),
        _ => None,
    }
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
    fn hrefs_are_relative_to_the_site_root() {
        assert_eq!(href("/"), "./");
        assert_eq!(href("/#why"), "./#why");
        assert_eq!(href("/qp"), "qp/");
        assert_eq!(href("/qp/"), "qp/");
        assert_eq!(href("/qp#the-state-machine"), "qp/#the-state-machine");
        assert_eq!(href("/nccl-env"), "nccl-env/");
        // A view's state in the query stays with the page it names.
        assert_eq!(
            href("/flows?scenario=go-back-n"),
            "flows/?scenario=go-back-n"
        );
        assert_eq!(href("/?a=1#why"), "./?a=1#why");
    }

    #[test]
    fn paths_read_back_as_route_paths() {
        let root = "/a/rdma-lab/";
        let read = |path| route_path_under(root, path);
        assert_eq!(read("/a/rdma-lab/qp").as_deref(), Some("/qp"));
        assert_eq!(read("/a/rdma-lab/qp/").as_deref(), Some("/qp/"));
        assert_eq!(read("/a/rdma-lab/").as_deref(), Some("/"));
        assert_eq!(read("/a/rdma-lab").as_deref(), Some("/"));
        // Outside the site root, or only looking like its name.
        assert_eq!(read("/qp"), None);
        assert_eq!(read("/a/rdma-lab-old/qp"), None);
        assert_eq!(read("//example.com/"), None);
        assert_eq!(read("qp/"), None);
        assert_eq!(route_path_under("/", "/qp").as_deref(), Some("/qp"));
    }

    #[test]
    fn compiled_links_become_relative() {
        let html = r##"<a href="/lossless#pfc">PFC</a> <a href="https://x.org/">x</a> <a href="#source-1">1</a> <a href="//cdn.example/">c</a> <a href="/">home</a>"##;
        assert_eq!(
            relative_links(html, "/verbs"),
            r##"<a href="lossless/#pfc">PFC</a> <a href="https://x.org/">x</a> <a href="verbs/#source-1">1</a> <a href="//cdn.example/">c</a> <a href="./">home</a>"##
        );
        assert_eq!(relative_links("<p>no links</p>", "/"), "<p>no links</p>");
    }
}
