//! The page's side of the packet-simulation worker (see `src/bin/dcqcn_worker.rs`), over
//! the shared [`WorkerLink`].

use engine::dcqcn::{Scenario, Series};
use yew::Callback;

use super::protocol::{Reply, Request, READY};
use crate::views::worker::WorkerLink;

/// Where trunk puts the worker's loader (`data-loader-shim`: an unhashed name, since a
/// worker is started by URL at run time). Relative, so it resolves against the page's
/// `<base>`, the site root, wherever the site is served from (see `crate::base`).
const LOADER_URL: &str = "dcqcn_worker_loader.js";

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
        WorkerLink::start(LOADER_URL, READY, on_text).map(PacketWorker)
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
