//! Asking an address what is there after a WebSocket handshake failed. The browser tells a
//! page nothing about why a handshake failed (a refusal and a closed port both end in close
//! code 1006), so the view asks the probe's `/probe` route, which any page may read, whether
//! this page's origin is the reason. When that gives no answer, an opaque `no-cors` request
//! still tells "something answered" from "nothing did".

use serde::Deserialize;
use wasm_bindgen::{prelude::wasm_bindgen, JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// How long to wait for an answer: loopback answers in milliseconds; a machine that drops
/// packets would otherwise hold the view for the length of a TCP connect timeout.
const ANSWER_WITHIN_MS: u32 = 3_000;

/// What `/probe` says (see `native-probe/PROTOCOL.md`); fields the view does not use are
/// left out, so a newer probe's additions do not break an older page.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Presence {
    pub probe: String,
    pub origin_allowed: bool,
    #[serde(default)]
    pub allow_with: Option<String>,
}

/// What answered at an address.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A native-probe, and what it thinks of this page.
    Probe(Presence),
    /// Something answered, but not as a native-probe that has `/probe`: another program, an
    /// older probe, or a probe that refused the name in the address (its `Host` check).
    Something,
    /// Nothing answered in time, or the browser did not let the page ask.
    Nothing,
}

impl Answer {
    /// Reads a `/probe` body; anything that is not one is just "something".
    pub fn from_body(body: &str) -> Answer {
        match serde_json::from_str::<Presence>(body) {
            Ok(presence) if presence.probe == "native-probe" => Answer::Probe(presence),
            _ => Answer::Something,
        }
    }
}

#[wasm_bindgen]
extern "C" {
    /// `fetch(url, init)`: bound here because the app's web-sys features leave out
    /// `RequestInit`, and an options object is all this needs.
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_with(url: &str, init: &js_sys::Object) -> js_sys::Promise;

    type AbortSignal;
    /// `AbortSignal.timeout(ms)`: aborts the request, not only the wait for it.
    #[wasm_bindgen(static_method_of = AbortSignal, js_name = timeout)]
    fn after(ms: u32) -> AbortSignal;
}

/// Asks `presence_url` (a probe's `/probe`) what is there.
pub async fn ask(presence_url: &str) -> Answer {
    match request(presence_url, "cors").await {
        Ok(Some(body)) => Answer::from_body(&body),
        // An answer the page may not read (a 403 from the Host check carries no CORS header):
        // unreachable and unreadable look the same to `cors`, so ask again without it.
        Ok(None) | Err(_) => match request(presence_url, "no-cors").await {
            Ok(_) => Answer::Something,
            Err(_) => Answer::Nothing,
        },
    }
}

/// One GET in `mode` (`cors` or `no-cors`): the body when the page may read it, `None` for an opaque answer, an
/// error when nothing answered (or the request was blocked or timed out).
pub async fn request(url: &str, mode: &str) -> Result<Option<String>, JsValue> {
    let init = js_sys::Object::new();
    for (key, value) in [
        ("mode", JsValue::from_str(mode)),
        ("credentials", JsValue::from_str("omit")),
        ("cache", JsValue::from_str("no-store")),
        ("signal", AbortSignal::after(ANSWER_WITHIN_MS).into()),
    ] {
        js_sys::Reflect::set(&init, &JsValue::from_str(key), &value)?;
    }
    let response: web_sys::Response = JsFuture::from(fetch_with(url, &init)).await?.dyn_into()?;
    // An opaque (no-cors) response has status 0 and an empty body.
    if response.status() == 0 {
        return Ok(None);
    }
    let text = JsFuture::from(response.text()?).await?;
    Ok(text.as_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_native_probe_body_is_a_probe() {
        let refused = Answer::from_body(
            r#"{"probe":"native-probe","version":"0.1.0","schema_version":2,"origin":"https://x.example",
                "origin_allowed":false,"allow_with":"--allow-origin https://x.example","new_field":1}"#,
        );
        assert_eq!(
            refused,
            Answer::Probe(Presence {
                probe: "native-probe".into(),
                origin_allowed: false,
                allow_with: Some("--allow-origin https://x.example".into()),
            })
        );
        assert_eq!(
            Answer::from_body("<!DOCTYPE html><title>lab</title>"),
            Answer::Something
        );
        assert_eq!(
            Answer::from_body(r#"{"probe":"other","origin_allowed":true}"#),
            Answer::Something
        );
    }
}
