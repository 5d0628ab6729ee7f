//! `native-probe dcqcn`: runs the engine's DCQCN models headless, for scripts and
//! spreadsheets. The series goes to stdout as CSV (behind `#` lines naming the scenario,
//! the model and every parameter); the summary to stderr (or stdout as JSON).

use std::fs;

use engine::dcqcn::{
    named_scenario, run_csv, simulate_fluid, simulate_packets, Limits, Scenario, Series,
};
use serde::Serialize;

use crate::{
    cli::{DcqcnArgs, DcqcnModel},
    json_input, output,
};

const SCENARIO_HINT: &str =
    "`native-probe dcqcn --scenario two-flow --dump` prints a valid scenario to start from";

/// What `--json` prints: the run's identity, the engine's summary and whether it was cut short.
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    scenario: &'a str,
    model: &'static str,
    summary: engine::dcqcn::Summary,
    max_queue_bytes_exact: f64,
    truncated: bool,
    truncation_reason: Option<&'a str>,
}

pub fn run(args: &DcqcnArgs) -> Result<(), Box<dyn std::error::Error>> {
    let scenario = load(args)?;
    if args.dump {
        let text = serde_json::to_string_pretty(&scenario)?;
        output::to_stdout(|out| writeln!(out, "{text}"))?;
        return Ok(());
    }
    // Validate first so a bad file fails with the named parameter before any work.
    scenario.validate()?;
    let limits = Limits::default();
    let series = match args.model {
        DcqcnModel::Packet => simulate_packets(&scenario, &limits)?,
        DcqcnModel::Fluid => simulate_fluid(&scenario, &limits)?,
    };
    let report = if args.json {
        let report = JsonReport {
            scenario: &scenario.name,
            model: model_name(args.model),
            summary: series.summary(),
            max_queue_bytes_exact: series.max_queue_bytes,
            truncated: series.truncated,
            truncation_reason: series.truncation_reason.as_deref(),
        };
        Some(serde_json::to_string_pretty(&report)?)
    } else {
        None
    };
    if args.csv || report.is_some() {
        output::to_stdout(|out| {
            if args.csv {
                out.write_all(run_csv(&scenario, &series).as_bytes())?;
            }
            match &report {
                Some(report) => writeln!(out, "{report}"),
                None => Ok(()),
            }
        })?;
    }
    if report.is_none() {
        output::to_stderr(&text_summary(&scenario, args.model, &series))?;
    }
    Ok(())
}

fn load(args: &DcqcnArgs) -> Result<Scenario, Box<dyn std::error::Error>> {
    if let Some(path) = &args.file {
        let text =
            fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        return Ok(json_input::parse(path, &text, SCENARIO_HINT)?);
    }
    // clap requires one of --scenario/--file; an empty name falls through to the engine's
    // "unknown scenario" error listing the names.
    Ok(named_scenario(args.scenario.as_deref().unwrap_or(""))?)
}

fn model_name(model: DcqcnModel) -> &'static str {
    match model {
        DcqcnModel::Packet => "packet",
        DcqcnModel::Fluid => "fluid",
    }
}

fn text_summary(scenario: &Scenario, model: DcqcnModel, series: &Series) -> String {
    let s = series.summary();
    let mut out = format!(
        "scenario {} ({} model), {} flows, {:.0} µs simulated\n\
         link rate          {:.1} Gb/s\n\
         utilization        {:.1} % while flows were active ({:.0}–{:.0} µs)\n\
         Jain's fairness    {:.3}\n\
         max queue          {:.0} bytes\n\
         CNPs               {}\n\
         ECN marks          {}\n\
         PFC pause          {:.1} µs\n\
         drops              {}\n",
        scenario.name,
        model_name(model),
        scenario.flows.len(),
        series.end_us,
        s.link_gbps,
        s.active_utilization * 100.0,
        s.active_from_us,
        s.active_to_us,
        s.jain_fairness,
        series.max_queue_bytes,
        s.total_cnps,
        s.ecn_marks,
        s.pfc_pause_us,
        s.drops,
    );
    for (i, goodput) in s.mean_goodput_gbps.iter().enumerate() {
        let fct = match s.fct_us.get(i).copied().flatten() {
            Some(us) => format!("FCT {us:.1} µs"),
            None => "not finished".to_string(),
        };
        let cut = match s.first_cut.get(i).cloned().flatten() {
            Some(c) => format!(
                "first cut {:.1} → {:.1} Gb/s at {:.1} µs",
                c.rate_before_gbps, c.rate_after_gbps, c.time_us
            ),
            None => "never cut".to_string(),
        };
        out.push_str(&format!(
            "flow {i:<3}           mean goodput {goodput:.2} Gb/s, {fct}, {cut}\n"
        ));
    }
    if let Some(reason) = &series.truncation_reason {
        out.push_str(&format!("truncated: {reason}\n"));
    }
    out
}
