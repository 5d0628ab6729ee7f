//! A view's Web Worker (the DCQCN packet model, the fabric simulator): the view's own module
//! started a second time in a worker, so the simulator's code is downloaded once, with the
//! view. JSON text both ways, requests held until the worker says it is ready, and the
//! worker stopped when the link is dropped, which is also how a run is cancelled.
//!
//! The worker runs `view_worker.js` (copied from `assets/` to the site root): the page posts
//! it the view's compiled `WebAssembly.Module` and the URL of the module's script, and the
//! worker instantiates them and calls the module's [`WORKER_ENTRY`] export, which
//! [`serve`]s (see `view_module!`).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Object, Reflect};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

/// The worker's script, relative to the page's `<base>` (the site root).
const WORKER_SCRIPT: &str = "view_worker.js";
/// The export of a view's module that the worker calls once it has instantiated it.
pub const WORKER_ENTRY: &str = "serve_worker";

/// Whether the worker has installed its handler yet.
enum Gate {
    /// Not yet: requests wait here, in order.
    Waiting(Vec<String>),
    Open,
}

/// A running worker; dropping it stops the worker.
pub struct WorkerLink {
    worker: Worker,
    gate: Rc<RefCell<Gate>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl WorkerLink {
    /// Starts `view`'s module (`content/topics.toml`'s route name, e.g. `fabric-lab`) in a
    /// worker, which posts `ready` once listening. `on_text` gets every other message it
    /// posts, or why the worker failed.
    pub fn start(
        view: &str,
        ready: &'static str,
        on_text: Callback<Result<String, String>>,
    ) -> Result<WorkerLink, String> {
        // The page's own compiled module: the worker instantiates it without a download.
        let start = Object::new();
        for (key, value) in [
            ("script", JsValue::from(crate::browser::module_url(view)?)),
            ("module", wasm_bindgen::module()),
            ("entry", JsValue::from(WORKER_ENTRY)),
        ] {
            Reflect::set(&start, &key.into(), &value).map_err(describe)?;
        }
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(WORKER_SCRIPT, &options).map_err(describe)?;
        if let Err(e) = worker.post_message(&start) {
            worker.terminate();
            return Err(describe(e));
        }
        let on_failure = on_text.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            // A script that fails to load or a trap inside the worker.
            event.prevent_default();
            on_failure.emit(Err(
                "the simulation worker stopped with an error".to_string()
            ));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let gate = Rc::new(RefCell::new(Gate::Waiting(Vec::new())));
        let (gate_in, worker_in) = (gate.clone(), worker.clone());
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(text) = event.data().as_string() else {
                let odd = "the worker answered with something other than text".to_string();
                return on_text.emit(Err(odd));
            };
            if text != ready {
                return on_text.emit(Ok(text));
            }
            let held = match std::mem::replace(&mut *gate_in.borrow_mut(), Gate::Open) {
                Gate::Waiting(held) => held,
                Gate::Open => Vec::new(),
            };
            for request in held {
                if let Err(e) = worker_in.post_message(&JsValue::from_str(&request)) {
                    on_text.emit(Err(describe(e)));
                }
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(WorkerLink {
            worker,
            gate,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Posts `text`, or holds it until the worker is ready. `keep_newest_only` drops the
    /// requests held before it (a page that wants only its latest answer).
    pub fn post(&self, text: String, keep_newest_only: bool) -> Result<(), String> {
        if let Gate::Waiting(held) = &mut *self.gate.borrow_mut() {
            if keep_newest_only {
                held.clear();
            }
            held.push(text);
            return Ok(());
        }
        self.worker
            .post_message(&JsValue::from_str(&text))
            .map_err(describe)
    }
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.worker.terminate();
        // A reply already queued for this page must not reach the handlers dropped next.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
    }
}

/// The worker's side: installs `answer` as the handler of every request (its text in, the
/// reply's text out; `answer` may post progress itself) and posts `ready`. Called by a
/// view's [`WORKER_ENTRY`] inside its worker; does nothing anywhere else.
pub fn serve(
    ready: &'static str,
    answer: impl Fn(&DedicatedWorkerGlobalScope, &str) -> String + 'static,
) {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    console_error_panic_hook::set_once();
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
    let _ = scope.post_message(&JsValue::from_str(ready));
}

/// Runs `work` and says how long it took by the worker's clock, in milliseconds (`None`
/// where the worker has none).
pub fn timed<T>(scope: &DedicatedWorkerGlobalScope, work: impl FnOnce() -> T) -> (T, Option<f64>) {
    let clock = scope
        .dyn_ref::<web_sys::WorkerGlobalScope>()
        .and_then(|s| s.performance());
    let started = clock.as_ref().map(|c| c.now());
    let done = work();
    (done, clock.zip(started).map(|(c, s)| c.now() - s))
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
