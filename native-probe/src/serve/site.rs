//! Serving the built single-page app: real files with their MIME types, compression,
//! long-lived caching for fingerprinted assets, and `index.html` for every app route so a
//! deep link survives a reload.

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

/// trunk names built assets `name-<16 hex digits>[_bg].ext`; such a file never changes
/// under the same name, so browsers may keep it for a year.
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
    let files = ServeDir::new(&state.ui_dir).fallback(get(app_route).with_state(state.clone()));
    Router::new()
        .fallback_service(files)
        .layer(middleware::from_fn(cache_policy))
        .layer(CompressionLayer::new())
}

/// A path with no file behind it: an app route gets `index.html` (the app then draws the
/// route, or its own "page not found"); a missing file gets a plain 404.
async fn app_route(State(state): State<Arc<ProbeState>>, uri: Uri) -> Response {
    if names_a_file(uri.path()) {
        return (StatusCode::NOT_FOUND, format!("{} not found\n", uri.path())).into_response();
    }
    match tokio::fs::read(state.ui_dir.join("index.html")).await {
        Ok(body) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "index.html could not be read from {}: {error}; rebuild the site with `./lab run`\n",
                state.ui_dir.display()
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

fn is_fingerprinted(path: &str) -> bool {
    let name = last_segment(path);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(_, hash)| {
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
    fn routes_and_files_are_told_apart() {
        assert!(!names_a_file("/"));
        assert!(!names_a_file("/qp"));
        assert!(!names_a_file("/nccl-env"));
        assert!(names_a_file("/app.js"));
        assert!(names_a_file("/assets/missing.png"));
    }
}
