//! Serving the built single-page app: real files with their MIME types, compression,
//! long-lived caching for fingerprinted assets, each route's page (`qp/index.html`) at
//! `/qp` and `/qp/` so a deep link survives a reload, and `404.html` for other paths.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use axum::{
    extract::{Request, State},
    http::{header, HeaderValue, StatusCode, Uri},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::get,
    Router,
};
use tower_http::{compression::CompressionLayer, services::ServeDir};

use super::{ProbeState, ServeError};

/// trunk names built assets `name-<16 hex digits>[_bg].ext`, and `./lab` puts each view
/// module's files in a folder `views/name-<16 hex digits>/`; such a file never changes under
/// the same path, so browsers may keep it for a year.
const FINGERPRINT_HEX_DIGITS: usize = 16;
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else (index.html above all) must be revalidated, so a rebuilt site is seen.
const REVALIDATE: &str = "no-cache";

/// The site folder, checked to hold a site before the server starts.
pub fn check_site(dir: &Path) -> Result<PathBuf, ServeError> {
    if !dir.is_dir() {
        return Err(ServeError::SiteMissing {
            dir: dir.to_path_buf(),
        });
    }
    if !dir.join("index.html").is_file() {
        return Err(ServeError::SiteIncomplete {
            dir: dir.to_path_buf(),
        });
    }
    Ok(dir.to_path_buf())
}

pub fn service(state: Arc<ProbeState>) -> Router {
    // Folders are pages, answered by `app_route` (ServeDir would redirect `/qp` to `/qp/`).
    let files = ServeDir::new(&state.ui_dir)
        .append_index_html_on_directories(false)
        .fallback(get(app_route).with_state(state.clone()));
    Router::new()
        .fallback_service(files)
        .layer(middleware::from_fn(cache_policy))
        .layer(CompressionLayer::new())
}

/// A path with no file behind it. A page of the site (`/`, `/qp`, `/qp/`: a folder with an
/// `index.html`) is served as it is, without a static host's redirect; any other route
/// gets `404.html`, where the app draws its "page not found" (an older site without one,
/// `index.html`); a missing file gets a plain 404. The not-found page comes with status
/// 200, as it always has here: Chromium reports a 404 document as a console error.
async fn app_route(State(state): State<Arc<ProbeState>>, uri: Uri) -> Response {
    if let Some(page) = site_page(&state.ui_dir, uri.path()) {
        return send_page(&page).await;
    }
    if names_a_file(uri.path()) {
        return (StatusCode::NOT_FOUND, format!("{} not found\n", uri.path())).into_response();
    }
    let not_found = state.ui_dir.join("404.html");
    if not_found.is_file() {
        return send_page(&not_found).await;
    }
    send_page(&state.ui_dir.join("index.html")).await
}

/// The `index.html` of the folder `path` names inside `dir`, if there is one.
fn site_page(dir: &Path, path: &str) -> Option<PathBuf> {
    let mut page = dir.to_path_buf();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if segment == "." || segment == ".." || segment.contains('\\') {
            return None;
        }
        page.push(segment);
    }
    page.push("index.html");
    page.is_file().then_some(page)
}

async fn send_page(page: &Path) -> Response {
    match tokio::fs::read(page).await {
        Ok(body) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "{} could not be read: {error}; rebuild the site with `./lab run`\n",
                page.display()
            ),
        )
            .into_response(),
    }
}

async fn cache_policy(request: Request, next: Next) -> Response {
    let immutable = is_fingerprinted(request.uri().path());
    let mut response = next.run(request).await;
    if response.status().is_success() {
        let policy = if immutable { IMMUTABLE } else { REVALIDATE };
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    response
}

fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `/app-1a2b….wasm` names a file; `/qp` or `/nccl-env` names an app route.
fn names_a_file(path: &str) -> bool {
    last_segment(path).contains('.')
}

/// A file whose own name carries the hash (`app-<hash>_bg.wasm`), or one directly inside a
/// folder that does (`views/dcqcn-<hash>/dcqcn_bg.wasm`).
fn is_fingerprinted(path: &str) -> bool {
    if !names_a_file(path) {
        return false;
    }
    let mut segments = path.rsplit('/');
    let name = segments.next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    ends_in_fingerprint(stem) || segments.next().is_some_and(ends_in_fingerprint)
}

fn ends_in_fingerprint(name: &str) -> bool {
    name.rsplit_once('-').is_some_and(|(_, hash)| {
        hash.len() == FINGERPRINT_HEX_DIGITS && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunk_asset_names_are_fingerprinted() {
        assert!(is_fingerprinted("/app-3f2a9c1d0b4e5f67_bg.wasm"));
        assert!(is_fingerprinted("/app-3f2a9c1d0b4e5f67.js"));
        assert!(is_fingerprinted("/style-00112233aabbccdd.css"));
        assert!(!is_fingerprinted("/index.html"));
        assert!(!is_fingerprinted("/nccl-env"));
        assert!(!is_fingerprinted("/favicon-1234.svg"));
        assert!(!is_fingerprinted("/app-3f2a9c1d0b4e5fzz.js"));
    }

    #[test]
    fn view_modules_in_hashed_folders_are_fingerprinted() {
        assert!(is_fingerprinted("/views/dcqcn-3f2a9c1d0b4e5f67/dcqcn.js"));
        assert!(is_fingerprinted(
            "/views/nccl-log-3f2a9c1d0b4e5f67/nccl-log_bg.wasm"
        ));
        // The folder itself is not a file, and only the file's own folder counts.
        assert!(!is_fingerprinted("/views/dcqcn-3f2a9c1d0b4e5f67"));
        assert!(!is_fingerprinted("/views/dcqcn-3f2a9c1d0b4e5f67/"));
        assert!(!is_fingerprinted("/a-3f2a9c1d0b4e5f67/b/dcqcn.js"));
        assert!(!is_fingerprinted("/views/dcqcn/dcqcn.js"));
    }

    #[test]
    fn folders_with_an_index_are_pages() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir(dir.path().join("qp")).expect("a route folder");
        std::fs::write(dir.path().join("index.html"), "root").expect("a page");
        std::fs::write(dir.path().join("qp/index.html"), "qp").expect("a page");
        let page = |path| site_page(dir.path(), path);
        assert_eq!(page("/"), Some(dir.path().join("index.html")));
        assert_eq!(page("/qp"), Some(dir.path().join("qp/index.html")));
        assert_eq!(page("/qp/"), Some(dir.path().join("qp/index.html")));
        assert_eq!(page("/nccl"), None);
        assert_eq!(page("/qp/../qp"), None);
    }

    #[test]
    fn routes_and_files_are_told_apart() {
        assert!(!names_a_file("/"));
        assert!(!names_a_file("/qp"));
        assert!(!names_a_file("/nccl-env"));
        assert!(names_a_file("/app.js"));
        assert!(names_a_file("/assets/missing.png"));
    }
}
