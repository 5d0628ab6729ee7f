//! The packet-simulation worker, both sides: the page posts a [`Request`] as JSON, the
//! worker (this view's own module, see `crate::views::worker`) runs the engine's packet
//! model and posts the [`Reply`] (`{"Ok": Series}` or `{"Err": SimError}`), so a long run
//! never freezes the page.

use engine::dcqcn::{simulate_packets, Limits, Scenario, Series, SimError};
use web_sys::DedicatedWorkerGlobalScope;
use yew::Callback;

use super::protocol::{Reply, Request, READY};
use crate::views::worker::{timed, WorkerLink};

/// This view's route name: the module the worker runs.
const VIEW: &str = "dcqcn";

/// A running worker; dropping it stops the worker.
pub struct PacketWorker(WorkerLink);

impl PacketWorker {
    /// Starts the worker; `on_reply` gets `(run, series or the error's message)`.
    pub fn start(on_reply: Callback<(u64, Result<Series, String>)>) -> Result<Self, String> {
        let on_text = on_reply.reform(|text: Result<String, String>| {
            let reply = text.and_then(|text| {
                serde_json::from_str::<Reply>(&text)
                    .map_err(|e| format!("the worker's answer could not be read: {e}"))
            });
            match reply {
                Ok(reply) => (reply.run, reply.result.map_err(|e| e.to_string())),
                Err(message) => (0, Err(message)),
            }
        });
        WorkerLink::start(VIEW, READY, on_text).map(PacketWorker)
    }

    /// Asks for one run; only the newest request waits while the worker starts.
    pub fn post(&self, run: u64, scenario: &Scenario) -> Result<(), String> {
        let request = Request {
            run,
            scenario: scenario.clone(),
        };
        let text = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        self.0.post(text, true)
    }
}

/// The worker's side: this module's `serve_worker` export (see `bin/view_dcqcn.rs`).
pub fn serve() {
    crate::views::worker::serve(READY, answer);
}

fn answer(scope: &DedicatedWorkerGlobalScope, text: &str) -> String {
    let reply = match serde_json::from_str::<Request>(text) {
        Ok(request) => {
            let (mut result, took) = timed(scope, || {
                simulate_packets(&request.scenario, &Limits::default())
            });
            if let Ok(series) = &mut result {
                series.solve_ms = took;
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
