//! The fabric simulator's worker, both sides. The page posts `{"run": n, "scenario": …}`
//! requests, in order; the worker (this view's own module, see `crate::views::worker`)
//! runs `engine::netsim` on each and posts `{"run": n, "progress": …}` every 2²⁰ events,
//! then `{"run": n, "solve_ms": t, "result": {"Ok": Report}}` (or `{"Err": SimError}`). It
//! answers one request at a time, so the two sides of a case are posted together and come
//! back one after the other. There is no cancel message: dropping a [`FabricWorker`]
//! terminates its worker.

use engine::netsim::{
    simulate_with_progress, Control, Limits, Progress, Report, Scenario, SimError,
};
use serde::{Deserialize, Serialize};
use web_sys::DedicatedWorkerGlobalScope;
use yew::Callback;

use crate::views::worker::{timed, WorkerLink};

/// This view's route name: the module the worker runs.
const VIEW: &str = "fabric-lab";
/// What the worker posts once its handler is installed.
const READY: &str = "ready";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    run: u64,
    scenario: Scenario,
}

/// Every message's head: a progress report carries `progress`, a finished run does not.
#[derive(Deserialize)]
struct Head {
    run: u64,
    progress: Option<Progress>,
}

#[derive(Serialize)]
struct Update<'a> {
    run: u64,
    progress: &'a Progress,
}

#[derive(Serialize, Deserialize)]
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

/// A running worker; dropping it stops the worker.
pub struct FabricWorker(WorkerLink);

impl FabricWorker {
    /// Starts a worker whose every message goes to `on_heard`.
    pub fn start(on_heard: Callback<Heard>) -> Result<Self, String> {
        let on_text = Callback::from(move |text: Result<String, String>| {
            on_heard.emit(match text {
                Ok(text) => read(&text),
                Err(why) => Heard::Failed(why),
            })
        });
        WorkerLink::start(VIEW, READY, on_text).map(FabricWorker)
    }

    /// Asks for one run; requests made before the worker is ready wait, in order.
    pub fn post(&self, run: u64, scenario: &Scenario) -> Result<(), String> {
        let request = Request {
            run,
            scenario: scenario.clone(),
        };
        let text = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        self.0.post(text, false)
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

/// The worker's side: this module's `serve_worker` export (see `bin/view_fabric-lab.rs`).
pub fn serve() {
    crate::views::worker::serve(READY, answer);
}

fn answer(scope: &DedicatedWorkerGlobalScope, text: &str) -> String {
    let reply = match serde_json::from_str::<Request>(text) {
        Ok(request) => {
            let run = request.run;
            let (result, solve_ms) = timed(scope, || {
                simulate_with_progress(&request.scenario, &Limits::default(), |progress| {
                    if let Ok(text) = serde_json::to_string(&Update { run, progress }) {
                        let _ = scope.post_message(&text.into());
                    }
                    Control::Continue
                })
            });
            Reply {
                run,
                solve_ms,
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
