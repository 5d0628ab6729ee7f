//! The page's side of the packet-simulation worker (see `src/bin/dcqcn_worker.rs`).

use engine::dcqcn::{Scenario, Series};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::{MessageEvent, Worker};
use yew::Callback;

use std::cell::RefCell;
use std::rc::Rc;

use super::protocol::{Reply, Request, READY};

/// Where trunk puts the worker's loader (`data-loader-shim`: an unhashed name, since a
/// worker is started by URL at run time). Relative, so it resolves against the page's
/// `<base>`, the site root, wherever the site is served from (see `crate::base`).
const LOADER_URL: &str = "dcqcn_worker_loader.js";

/// Whether the worker has installed its handler yet.
enum Gate {
    /// Not yet: the newest request waits here.
    Waiting(Option<String>),
    Open,
}

/// A running worker; dropping it stops the worker.
pub struct PacketWorker {
    worker: Worker,
    gate: Rc<RefCell<Gate>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl PacketWorker {
    /// Starts the worker; `on_reply` gets `(run, series or the error's message)`.
    pub fn start(on_reply: Callback<(u64, Result<Series, String>)>) -> Result<Self, String> {
        let worker = Worker::new(LOADER_URL).map_err(describe)?;
        let on_failure = on_reply.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            // A script that fails to load or a trap inside the worker.
            event.prevent_default();
            on_failure.emit((
                0,
                Err("the simulation worker stopped with an error".to_string()),
            ));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let gate = Rc::new(RefCell::new(Gate::Waiting(None)));
        let gate_in = gate.clone();
        let worker_in = worker.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let text = event.data().as_string();
            if text.as_deref() == Some(READY) {
                let waiting = match std::mem::replace(&mut *gate_in.borrow_mut(), Gate::Open) {
                    Gate::Waiting(request) => request,
                    Gate::Open => None,
                };
                if let Some(request) = waiting {
                    if let Err(e) = worker_in.post_message(&JsValue::from_str(&request)) {
                        on_reply.emit((0, Err(describe(e))));
                    }
                }
                return;
            }
            let reply = text
                .ok_or_else(|| "the worker answered with something other than text".to_string())
                .and_then(|text| {
                    serde_json::from_str::<Reply>(&text)
                        .map_err(|e| format!("the worker's answer could not be read: {e}"))
                });
            match reply {
                Ok(reply) => on_reply.emit((reply.run, reply.result.map_err(|e| e.to_string()))),
                Err(message) => on_reply.emit((0, Err(message))),
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(PacketWorker {
            worker,
            gate,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    pub fn post(&self, run: u64, scenario: &Scenario) -> Result<(), String> {
        let request = Request {
            run,
            scenario: scenario.clone(),
        };
        let text = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        if let Gate::Waiting(waiting) = &mut *self.gate.borrow_mut() {
            // Not ready yet: keep only the newest request.
            *waiting = Some(text);
            return Ok(());
        }
        self.worker
            .post_message(&JsValue::from_str(&text))
            .map_err(describe)
    }
}

impl Drop for PacketWorker {
    fn drop(&mut self) {
        self.worker.terminate();
        // A reply already queued for this page must not reach the handlers dropped next.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
    }
}

fn describe(error: JsValue) -> String {
    error
        .as_string()
        .or_else(|| {
            error
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "the browser refused to start the worker".to_string())
}
