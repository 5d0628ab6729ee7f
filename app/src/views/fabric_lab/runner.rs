//! Runs a case's two scenarios in the fabric simulator's worker, one after the other, and
//! reports their progress and reports to the page. Cancel stops the worker; the next run
//! starts a fresh one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use engine::netsim::lab::{check_browser_budget, LabCase};
use engine::netsim::Scenario;
use yew::prelude::*;

use super::protocol::{Message, Request, READY};
use super::{Lab, LabAction};
use crate::views::worker::WorkerLink;

/// Where trunk puts the worker's loader (relative: it resolves against the site root).
const LOADER_URL: &str = "netsim_worker_loader.js";

/// A case with the parameters the learner typed over its scenarios' own.
pub struct Plan {
    pub case: &'static LabCase,
    pub seed: Option<u64>,
    pub duration_us: Option<u64>,
}

impl Plan {
    /// Both sides' scenarios, each checked against the browser's budget; or why not, with
    /// the side it concerns.
    fn scenarios(&self) -> Result<[Scenario; 2], String> {
        let mut sides = self.case.scenarios().map_err(|e| e.to_string())?;
        for (scenario, side) in sides.iter_mut().zip(&self.case.sides) {
            if let Some(seed) = self.seed {
                scenario.seed = seed;
            }
            if let Some(us) = self.duration_us {
                scenario.duration_us = us as f64;
            }
            check_browser_budget(scenario).map_err(|e| format!("{}: {e}", side.label))?;
        }
        Ok(sides)
    }
}

/// The page's handle on the worker: run ids carry a generation, so the answers of a
/// cancelled or replaced comparison are dropped.
#[derive(Clone)]
pub struct Runner {
    link: Rc<RefCell<Option<WorkerLink>>>,
    generation: Rc<Cell<u64>>,
    dispatch: UseReducerDispatcher<Lab>,
}

#[hook]
pub fn use_runner(dispatch: UseReducerDispatcher<Lab>) -> Runner {
    let link = use_mut_ref(|| None::<WorkerLink>);
    let generation = use_memo((), |_| Rc::new(Cell::new(0u64)));
    Runner {
        link,
        generation: (*generation).clone(),
        dispatch,
    }
}

impl Runner {
    /// Starts both sides, or says why they cannot run.
    pub fn run(&self, plan: &Plan) {
        let scenarios = match plan.scenarios() {
            Ok(s) => s,
            Err(why) => return self.dispatch.dispatch(LabAction::Failed(why)),
        };
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        let mut link = self.link.borrow_mut();
        if link.is_none() {
            match WorkerLink::start(LOADER_URL, READY, self.on_text()) {
                Ok(started) => *link = Some(started),
                Err(why) => return self.dispatch.dispatch(LabAction::Failed(why)),
            }
        }
        self.dispatch.dispatch(LabAction::Started);
        for (side, scenario) in scenarios.into_iter().enumerate() {
            let run = generation << 1 | side as u64;
            let posted = serde_json::to_string(&Request { run, scenario })
                .map_err(|e| e.to_string())
                .and_then(|text| link.as_ref().map_or(Ok(()), |l| l.post(text, false)));
            if let Err(why) = posted {
                return self.dispatch.dispatch(LabAction::Failed(why));
            }
        }
    }

    /// Stops the worker, and with it the run.
    pub fn cancel(&self) {
        self.generation.set(self.generation.get() + 1);
        self.link.borrow_mut().take();
    }

    /// What the worker's messages do to the page.
    fn on_text(&self) -> Callback<Result<String, String>> {
        let (generation, dispatch) = (self.generation.clone(), self.dispatch.clone());
        Callback::from(move |text: Result<String, String>| {
            let message = text.and_then(|t| {
                serde_json::from_str::<Message>(&t)
                    .map_err(|e| format!("the worker's answer could not be read: {e}"))
            });
            let current = |run: u64| run >> 1 == generation.get();
            let action = match message {
                Err(why) => LabAction::Failed(why),
                Ok(Message::Progress { run, progress }) if current(run) => {
                    LabAction::Progress((run & 1) as usize, progress)
                }
                Ok(Message::Done {
                    run,
                    solve_ms,
                    result,
                }) if current(run) => match result {
                    Ok(report) => LabAction::Finished((run & 1) as usize, report, solve_ms),
                    Err(e) => LabAction::Failed(e.to_string()),
                },
                Ok(_) => return,
            };
            dispatch.dispatch(action);
        })
    }
}
