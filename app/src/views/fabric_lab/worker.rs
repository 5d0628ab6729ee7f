//! The page's side of the fabric simulator's worker (`src/bin/netsim_worker.rs`): it posts
//! `{"run": n, "scenario": …}` requests, in order, and hands back each progress report and
//! each finished run. The worker answers one request at a time, so the two sides of a case
//! are posted together and come back one after the other. There is no cancel message:
//! dropping a [`FabricWorker`] terminates its worker.

use engine::netsim::{Progress, Report, Scenario, SimError};
use serde::{Deserialize, Serialize};
use yew::Callback;

use crate::views::worker::WorkerLink;

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
        WorkerLink::start(LOADER_URL, READY, on_text).map(FabricWorker)
    }

    /// Asks for one run; requests made before the worker is ready wait, in order.
    pub fn post(&self, run: u64, scenario: &Scenario) -> Result<(), String> {
        let text = serde_json::to_string(&Request { run, scenario }).map_err(|e| e.to_string())?;
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
