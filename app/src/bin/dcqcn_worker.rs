//! The DCQCN page's packet simulation, off the main thread: a dedicated Web Worker that
//! receives a scenario as JSON, runs the engine's packet model and posts the result back
//! as JSON (`{"Ok": Series}` or `{"Err": SimError}`), so a long run never freezes the page.
//!
//! trunk builds this bin with `data-type="worker"` (see index.html).

#[path = "../views/dcqcn/protocol.rs"]
mod protocol;

use engine::dcqcn::{simulate_packets, Limits, SimError};
use protocol::{Reply, Request};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, WorkerGlobalScope};

fn answer(text: &str) -> String {
    let reply = match serde_json::from_str::<Request>(text) {
        Ok(request) => {
            let clock = js_sys::global()
                .dyn_into::<WorkerGlobalScope>()
                .ok()
                .and_then(|scope| scope.performance());
            let started = clock.as_ref().map(|c| c.now());
            let mut result = simulate_packets(&request.scenario, &Limits::default());
            if let (Ok(series), Some(clock), Some(started)) = (&mut result, &clock, started) {
                series.solve_ms = Some(clock.now() - started);
            }
            Reply {
                run: request.run,
                result,
            }
        }
        Err(e) => Reply {
            run: 0,
            result: Err(SimError::InvalidParameter(engine::FieldError::new(
                "scenario",
                format!("the worker could not read it: {e}"),
            ))),
        },
    };
    serde_json::to_string(&reply).unwrap_or_else(|_| {
        r#"{"run":0,"result":{"Err":{"InvalidParameter":{"field":"series","reason":"the result could not be encoded"}}}}"#.to_string()
    })
}

fn main() {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        // Not started as a worker (e.g. loaded by mistake in a page): nothing to serve.
        return;
    };
    let reply_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let Some(text) = event.data().as_string() else {
            return;
        };
        let _ = reply_scope.post_message(&JsValue::from_str(&answer(&text)));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(protocol::READY));
}
