//! The probe's host checks (`native-probe doctor`, run when the probe started): what to fix
//! first, each with the files it rests on; the checks that passed or did not apply folded
//! away below.

use engine::probe::doctor::{Check, Report, Status};
use engine::probe::Source;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HostChecksProps {
    pub report: Report,
    pub host: String,
    pub source: Source,
}

#[function_component]
pub fn HostChecks(props: &HostChecksProps) -> Html {
    let report = &props.report;
    let needs_action = |c: &&Check| matches!(c.status, Status::Fail | Status::Warn);
    // A passed check with advice (the GID index to give NCCL) stays in view too.
    let advice = |c: &&Check| c.status == Status::Pass && c.fix.is_some();
    let problems: Vec<&Check> = report.checks.iter().filter(needs_action).collect();
    let advised: Vec<&Check> = report.checks.iter().filter(advice).collect();
    let rest: Vec<&Check> = report
        .checks
        .iter()
        .filter(|c| !needs_action(c) && !advice(c))
        .collect();
    let (failed, warned) = (report.count(Status::Fail), report.count(Status::Warn));
    let (passed, skipped) = (report.count(Status::Pass), report.count(Status::Skip));
    let verdict = match (failed, warned) {
        (0, 0) => "Nothing to fix: every check that applies passed.".to_string(),
        (0, w) => format!("{w} to look at: RDMA works, but slower or more fragile than it should."),
        (f, 0) => format!("{f} to fix before RDMA works as it should."),
        (f, w) => format!("{f} to fix before RDMA works as it should, {w} more to look at."),
    };
    html! {
        <section class="live-panel live-doctor" aria-labelledby="live-doctor-title">
            <h2 id="live-doctor-title" class="live-panel-title">{ match props.source {
                Source::Live => format!("Host checks on {}", props.host),
                // The tree is another host's (or the demo's): the probe's host name is not it.
                Source::Recorded => "Host checks of the recorded tree".to_string(),
                Source::Demo => "Host checks of the demo recording".to_string(),
            } }</h2>
            <p class="live-doctor-verdict" role="status">{ verdict }</p>
            <p class="muted">
                { format!("{passed} passed, {warned} warned, {failed} failed, {skipped} skipped; checked when the probe started. Run ") }
                <code>{ "native-probe doctor" }</code>{ " again after a change." }
            </p>
            if !problems.is_empty() {
                <ul class="live-checks">
                    { for problems.into_iter().map(|c| html! { <CheckItem check={c.clone()} /> }) }
                </ul>
            }
            if !advised.is_empty() {
                <ul class="live-checks live-checks-advice" aria-label="Settings these checks suggest">
                    { for advised.into_iter().map(|c| html! { <CheckItem check={c.clone()} /> }) }
                </ul>
            }
            if !rest.is_empty() {
                <details class="live-checks-rest">
                    <summary>{ format!("{} checks passed or did not apply", rest.len()) }</summary>
                    <ul class="live-checks">
                        { for rest.into_iter().map(|c| html! { <CheckItem check={c.clone()} /> }) }
                    </ul>
                </details>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct CheckItemProps {
    check: Check,
}

#[function_component]
fn CheckItem(props: &CheckItemProps) -> Html {
    let c = &props.check;
    let (class, word) = match c.status {
        Status::Pass => ("pass", "Passed"),
        Status::Warn => ("warn", "Warning"),
        Status::Fail => ("fail", "Problem"),
        Status::Skip => ("skip", "Skipped"),
    };
    html! {
        <li class={classes!("live-check", class)} data-check={c.id.clone()}>
            <p><strong>{ format!("{word}: ") }</strong>{ c.title.clone() }</p>
            if let Some(fix) = &c.fix {
                <p class="live-check-fix"><strong>{ if c.status == Status::Pass { "Use: " } else { "Fix: " } }</strong>{ fix.clone() }</p>
            }
            if !c.evidence.is_empty() {
                <details>
                    <summary>{ format!("Read from {} file{}", c.evidence.len(), if c.evidence.len() == 1 { "" } else { "s" }) }</summary>
                    <ul class="live-check-evidence">
                        { for c.evidence.iter().map(|e| html! {
                            <li><code>{ e.path.clone() }</code>{ ": " }<code>{ if e.value.is_empty() { "(empty)".to_string() } else { e.value.clone() } }</code></li>
                        }) }
                    </ul>
                </details>
            }
        </li>
    }
}
