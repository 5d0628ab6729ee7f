//! `GET /probe`: tells a lab page whether this probe would let it open `/ws`.
//!
//! Browsers hide why a WebSocket handshake failed (a 403 and a closed port look the same to a
//! page), so a page hosted elsewhere could not tell "the probe refused this site" from "no
//! probe here". This route answers any origin (`Access-Control-Allow-Origin: *`) with the
//! probe's name and version and whether the asking page's `Origin` passes `/ws`'s check, with
//! the flag that would admit it. That reveals only what a failed handshake's timing or an
//! opaque `fetch` already give away: that a probe listens here. It reads no counters, needs no
//! token, and sits behind the `Host` check like every route, so a DNS-rebinding page learns
//! nothing from it either.

use std::sync::Arc;

use axum::{
    extract::State,
    http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use engine::probe::SCHEMA_VERSION;
use serde::Serialize;

use super::{live::origin_allowed, ProbeState};

/// What `/probe` says; `PROTOCOL.md` documents each field.
#[derive(Debug, Serialize)]
pub struct Presence {
    /// Always `"native-probe"`: how a page knows it reached one.
    pub probe: &'static str,
    pub version: &'static str,
    /// The `/ws` schema this probe speaks.
    pub schema_version: u32,
    /// The request's `Origin` as the `/ws` check compares it (lowercase, no trailing slash);
    /// `None` for a request without one (not from a cross-origin page).
    pub origin: Option<String>,
    /// Whether a WebSocket handshake with this `Origin` passes the origin check.
    pub origin_allowed: bool,
    /// The `serve` option that would admit this origin, when it is refused and is an
    /// `http(s)` origin (a `null` origin cannot be allowed).
    pub allow_with: Option<String>,
}

/// Chromium's Private Network Access preflight header, and the answer that lets a public page
/// read this one route of a probe on the learner's machine (nothing else opts in).
const REQUEST_PRIVATE_NETWORK: &str = "access-control-request-private-network";
const ALLOW_PRIVATE_NETWORK: &str = "access-control-allow-private-network";

pub async fn probe(State(state): State<Arc<ProbeState>>, headers: HeaderMap) -> Response {
    let live = &state.live;
    let origin = headers.get(header::ORIGIN).map(|o| {
        String::from_utf8_lossy(o.as_bytes())
            .trim_end_matches('/')
            .to_ascii_lowercase()
    });
    let origin_allowed = origin_allowed(&headers, &live.allowed_origins, &state.hosts);
    let allow_with = origin
        .as_ref()
        .filter(|o| !origin_allowed && (o.starts_with("http://") || o.starts_with("https://")))
        .map(|o| format!("--allow-origin {o}"));
    let presence = Presence {
        probe: "native-probe",
        version: env!("CARGO_PKG_VERSION"),
        schema_version: SCHEMA_VERSION,
        origin,
        origin_allowed,
        allow_with,
    };
    (cors_headers(), Json(presence)).into_response()
}

/// The CORS preflight Chromium sends first when a public page fetches a local address.
pub async fn preflight(headers: HeaderMap) -> Response {
    let mut response = (StatusCode::NO_CONTENT, cors_headers()).into_response();
    let private = headers
        .get(REQUEST_PRIVATE_NETWORK)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
    let answer = response.headers_mut();
    answer.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET"),
    );
    if private {
        answer.insert(
            HeaderName::from_static(ALLOW_PRIVATE_NETWORK),
            HeaderValue::from_static("true"),
        );
    }
    response
}

/// Any page may read the answer (it carries no secret); the answer depends on `Origin`, so a
/// cache must not hand one page's answer to another, and none keeps it.
fn cors_headers() -> [(HeaderName, HeaderValue); 4] {
    [
        (
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        ),
        (header::VARY, HeaderValue::from_static("Origin")),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
    ]
}
