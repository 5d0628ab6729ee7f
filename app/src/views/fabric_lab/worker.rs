//! The page's side of the fabric simulator's worker (`src/bin/netsim_worker.rs`): it posts
//! `{"run": n, "scenario": …}` requests, in order, and hands back each progress report and
//! each finished run. The worker answers one request at a time, so the two sides of a case
//! are posted together and come back one after the other. There is no cancel message:
//! dropping a [`FabricWorker`] terminates its worker.

use std::cell::RefCell;
use std::rc::Rc;

use engine::netsim::{Progress, Report, Scenario, SimError};
use serde::{Deserialize, Serialize};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::{MessageEvent, Worker};
use yew::Callback;

/// Where trunk puts the worker's loader (an unhashed name, relative to the page's `<base>`).
const LOADER_URL: &str = "netsim_worker_loader.js";
/// What the worker posts once its handler is installed.
const READY: &str = "ready";

#[derive(Serialize)]
struct Request<'a> {
    run: u64,
    scenario: &'a Scenario,
}

/// Every message's head: a progress report carries `progress`, a finished run does not.
#[derive(Deserialize)]
struct Head {
    run: u64,
    progress: Option<Progress>,
}

#[derive(Deserialize)]
struct Reply {
    run: u64,
    solve_ms: Option<f64>,
    result: Result<Report, SimError>,
}

/// What the worker said.
pub enum Heard {
    Progress {
        run: u64,
        progress: Progress,
    },
    Finished {
        run: u64,
        solve_ms: Option<f64>,
        result: Result<Box<Report>, String>,
    },
    /// The worker failed, or answered something unreadable.
    Failed(String),
}

/// Whether the worker has installed its handler yet; until then requests wait here.
enum Gate {
    Waiting(Vec<String>),
    Open,
}

/// A running worker; dropping it stops the worker.
pub struct FabricWorker {
    worker: Worker,
    gate: Rc<RefCell<Gate>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl FabricWorker {
    /// Starts a worker whose every message goes to `on_heard`.
    pub fn start(on_heard: Callback<Heard>) -> Result<Self, String> {
        let worker = Worker::new(LOADER_URL).map_err(describe)?;
        let on_failure = on_heard.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            event.prevent_default();
            on_failure.emit(Heard::Failed(
                "the simulation worker stopped with an error".into(),
            ));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let gate = Rc::new(RefCell::new(Gate::Waiting(Vec::new())));
        let (gate_in, worker_in) = (gate.clone(), worker.clone());
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let text = event.data().as_string();
            if text.as_deref() == Some(READY) {
                open_gate(&gate_in, &worker_in, &on_heard);
                return;
            }
            on_heard.emit(match text {
                Some(text) => read(&text),
                None => Heard::Failed("the worker answered with something other than text".into()),
            });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(FabricWorker {
            worker,
            gate,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Asks for one run; requests made before the worker is ready wait, in order.
    pub fn post(&self, run: u64, scenario: &Scenario) -> Result<(), String> {
        let text = serde_json::to_string(&Request { run, scenario }).map_err(|e| e.to_string())?;
        if let Gate::Waiting(waiting) = &mut *self.gate.borrow_mut() {
            waiting.push(text);
            return Ok(());
        }
        self.worker
            .post_message(&JsValue::from_str(&text))
            .map_err(describe)
    }
}

fn open_gate(gate: &RefCell<Gate>, worker: &Worker, on_heard: &Callback<Heard>) {
    let waiting = match std::mem::replace(&mut *gate.borrow_mut(), Gate::Open) {
        Gate::Waiting(requests) => requests,
        Gate::Open => Vec::new(),
    };
    for request in waiting {
        if let Err(e) = worker.post_message(&JsValue::from_str(&request)) {
            on_heard.emit(Heard::Failed(describe(e)));
        }
    }
}

/// One message: its head first (cheap: the report is skipped), then the whole reply.
fn read(text: &str) -> Heard {
    let unreadable =
        |e: serde_json::Error| Heard::Failed(format!("the worker's answer could not be read: {e}"));
    match serde_json::from_str::<Head>(text) {
        Ok(Head {
            run,
            progress: Some(progress),
        }) => Heard::Progress { run, progress },
        Ok(_) => match serde_json::from_str::<Reply>(text) {
            Ok(reply) => Heard::Finished {
                run: reply.run,
                solve_ms: reply.solve_ms,
                result: reply.result.map(Box::new).map_err(|e| e.to_string()),
            },
            Err(e) => unreadable(e),
        },
        Err(e) => unreadable(e),
    }
}

impl Drop for FabricWorker {
    fn drop(&mut self) {
        self.worker.terminate();
        // A message already queued for this page must not reach the handlers dropped next.
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
