//! The fabric simulator off the main thread: a dedicated Web Worker that receives a
//! `{"run": n, "scenario": {...}}` request as JSON, runs `engine::netsim` and posts back
//! `{"run": n, "solve_ms": t, "result": {"Ok": Report}}` (or `{"Err": SimError}`), so a run of
//! millions of events never freezes a page. Long runs post `{"run": n, "progress": {...}}`
//! every 2²⁰ events first.
//!
//! trunk builds this bin with `data-type="worker"` (see index.html); a page starts it from
//! `netsim_worker_loader.js` only when it needs it, so no page downloads it up front.

use engine::netsim::{
    simulate_with_progress, Control, Limits, Progress, Report, Scenario, SimError,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, WorkerGlobalScope};

/// What the worker posts once its handler is installed; requests posted before are lost.
const READY: &str = "ready";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    run: u64,
    scenario: Scenario,
}

#[derive(Serialize)]
struct Reply {
    run: u64,
    solve_ms: Option<f64>,
    result: Result<Report, SimError>,
}

#[derive(Serialize)]
struct Update<'a> {
    run: u64,
    progress: &'a Progress,
}

fn answer(scope: &DedicatedWorkerGlobalScope, text: &str) -> String {
    let reply = match serde_json::from_str::<Request>(text) {
        Ok(request) => {
            let clock = js_sys::global()
                .dyn_into::<WorkerGlobalScope>()
                .ok()
                .and_then(|s| s.performance());
            let started = clock.as_ref().map(|c| c.now());
            let run = request.run;
            let result =
                simulate_with_progress(&request.scenario, &Limits::default(), |progress| {
                    if let Ok(text) = serde_json::to_string(&Update { run, progress }) {
                        let _ = scope.post_message(&JsValue::from_str(&text));
                    }
                    Control::Continue
                });
            Reply {
                run,
                solve_ms: clock.zip(started).map(|(c, s)| c.now() - s),
                result,
            }
        }
        Err(e) => Reply {
            run: 0,
            solve_ms: None,
            result: Err(SimError::InvalidParameter(engine::FieldError::new(
                "scenario",
                format!("the worker could not read it: {e}"),
            ))),
        },
    };
    serde_json::to_string(&reply).unwrap_or_else(|_| {
        r#"{"run":0,"solve_ms":null,"result":{"Err":{"InvalidParameter":{"field":"report","reason":"the result could not be encoded"}}}}"#.to_string()
    })
}

fn main() {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        // Not started as a worker: nothing to serve.
        return;
    };
    let reply_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let Some(text) = event.data().as_string() else {
            return;
        };
        let reply = answer(&reply_scope, &text);
        let _ = reply_scope.post_message(&JsValue::from_str(&reply));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(READY));
}
