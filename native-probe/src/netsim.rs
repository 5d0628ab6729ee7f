//! `native-probe netsim`: runs the engine's fabric simulator headless. A summary for people
//! on stdout by default; `--json` the whole report; `--csv` the links' series (behind `#`
//! lines naming the run and every link) with the summary on stderr, as `dcqcn --csv` does.

use std::{
    fmt::Write as _,
    fs,
    io::{self, IsTerminal, Write},
    time::Instant,
};

use engine::{
    dcqcn::one_line,
    netsim::{
        named_scenario, simulate_with_progress, Control, FlowReport, LinkReport, Progress, Report,
        Scenario, SimError, Stop,
    },
};

use crate::{cli::NetsimArgs, json_input, output};

const SCENARIO_HINT: &str = "native-probe/NETSIM.md describes every field; \
    `native-probe netsim --scenario two-flow --dump` prints a valid scenario to start from";

/// How many links and flows the summary lists.
const LISTED: usize = 10;

pub fn run(args: &NetsimArgs) -> Result<(), Box<dyn std::error::Error>> {
    let (scenario, origin) = load(args)?;
    if args.dump {
        let text = serde_json::to_string_pretty(&scenario)?;
        output::to_stdout(|out| writeln!(out, "{text}"))?;
        return Ok(());
    }
    let limits = engine::netsim::Limits {
        max_events: args.max_events,
    };
    // Every check runs before the first event, so a bad scenario fails at once.
    let report = run_with_progress(&scenario, &limits)
        .map_err(|e| format!("{origin}: {e}\nhint: {SCENARIO_HINT}"))?;
    if args.json {
        // One line: the series make a pretty-printed report thousands of lines long.
        output::to_stdout(|out| {
            serde_json::to_writer(&mut *out, &report)?;
            writeln!(out)
        })?;
    } else if args.csv {
        output::to_stdout(|out| write_link_series(out, &scenario, &report))?;
        output::to_stderr(&summary(&scenario, &report))?;
    } else {
        let text = summary(&scenario, &report);
        output::to_stdout(|out| out.write_all(text.as_bytes()))?;
    }
    Ok(())
}

/// The scenario, and what to call it in an error: the file, or the scenario's name.
fn load(args: &NetsimArgs) -> Result<(Scenario, String), Box<dyn std::error::Error>> {
    if let Some(path) = &args.file {
        let text =
            fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let scenario = json_input::parse(path, &text, SCENARIO_HINT)?;
        return Ok((scenario, path.display().to_string()));
    }
    // clap requires one of --scenario/--file and checks the name against the engine's list.
    let name = args.scenario.as_deref().unwrap_or("");
    Ok((named_scenario(name)?, format!("scenario {name}")))
}

/// The run, with a progress line on stderr when a person is watching it there.
fn run_with_progress(
    scenario: &Scenario,
    limits: &engine::netsim::Limits,
) -> Result<Report, SimError> {
    let mut stderr = io::stderr();
    let watched = stderr.is_terminal();
    let started = Instant::now();
    let mut shown = false;
    let report = simulate_with_progress(scenario, limits, |p| {
        if watched {
            // A terminal that fails to show progress is no reason to stop the run.
            let _ = write!(stderr, "\r\x1b[2K{}", progress_line(p, started));
            shown = true;
        }
        Control::Continue
    });
    if shown {
        let _ = write!(stderr, "\r\x1b[2K");
    }
    report
}

fn progress_line(p: &Progress, started: Instant) -> String {
    let wall = started.elapsed().as_secs_f64();
    format!(
        "netsim: {:.0} of {:.0} µs simulated, {:.1} M events ({:.1} M/s)",
        p.simulated_us,
        p.duration_us,
        p.events as f64 / 1e6,
        p.events as f64 / wall.max(1e-9) / 1e6
    )
}

/// Why the run stopped, in a sentence.
fn stop_reason(stop: &Stop, scenario: &Scenario) -> String {
    let reason = stop.reason(scenario.duration_us);
    match stop {
        Stop::EventCap { .. } => format!("{reason}; raise --max-events to go further"),
        _ => reason,
    }
}

/// Bytes with their binary multiple, as NCCL and nccl-tests size messages.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = "";
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    if unit.is_empty() {
        format!("{n} B")
    } else {
        format!("{n} B ({value:.1} {unit})")
    }
}

/// A link's share of its rate over the whole run.
fn mean_utilisation(link: &LinkReport, end_us: f64) -> f64 {
    let capacity_bytes = link.gbps * 1e3 / 8.0 * end_us;
    if capacity_bytes > 0.0 {
        link.tx_bytes as f64 / capacity_bytes
    } else {
        0.0
    }
}

/// What a person reads first: why the run stopped, what it cost, the collectives, the totals,
/// then the busiest links and the slowest flows.
fn summary(scenario: &Scenario, r: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "scenario      {}", one_line(&r.name));
    if !scenario.description.is_empty() {
        let _ = writeln!(out, "              {}", one_line(&scenario.description));
    }
    let _ = writeln!(out, "stopped       {}", stop_reason(&r.stop, scenario));
    let _ = writeln!(
        out,
        "events        {} in {:.1} µs simulated",
        r.events, r.end_us
    );
    for c in &r.collectives {
        let result = match (c.time_us, c.algbw_gbs, c.busbw_gbs) {
            (Some(t), Some(alg), Some(bus)) => {
                format!("{t:.1} µs, algbw {alg:.2} GB/s, busbw {bus:.2} GB/s")
            }
            _ => "not finished when the run stopped".into(),
        };
        let _ = writeln!(
            out,
            "collective    traffic[{}]: {} ranks × {}: {result}",
            c.traffic,
            c.ranks,
            bytes(c.bytes_per_gpu)
        );
    }
    let t = &r.totals;
    let _ = writeln!(out, "sent          {}", bytes(t.sent_bytes));
    let _ = writeln!(out, "received      {}", bytes(t.received_bytes));
    let _ = writeln!(
        out,
        "dropped       {} in {} packets",
        bytes(t.dropped_bytes),
        t.drops
    );
    let _ = writeln!(out, "in flight     {}", bytes(t.in_flight_bytes));
    let _ = writeln!(out, "ECN marks     {}", t.ecn_marks);
    let _ = writeln!(out, "CNPs sent     {}", t.cnps_sent);
    let _ = writeln!(
        out,
        "PAUSE frames  {}, {:.1} µs paused summed over ports",
        t.pause_frames, t.paused_us
    );
    if t.headroom_overruns > 0 {
        let _ = writeln!(
            out,
            "headroom      {} packets arrived with the buffer full (PFC's headroom too small)",
            t.headroom_overruns
        );
    }
    if t.unroutable_packets > 0 {
        let _ = writeln!(out, "unroutable    {} packets", t.unroutable_packets);
    }
    if let Some(note) = &r.series_note {
        let _ = writeln!(out, "series        {note}");
    }
    busiest_links(&mut out, r);
    slowest_flows(&mut out, r);
    out
}

/// The [`LISTED`] links with the highest utilisation over the run.
fn busiest_links(out: &mut String, r: &Report) {
    let mut links: Vec<(usize, &LinkReport, f64)> = r
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l, mean_utilisation(l, r.end_us)))
        .collect();
    // Stable: equal links stay in the report's order.
    links.sort_by(|a, b| b.2.total_cmp(&a.2));
    let _ = writeln!(
        out,
        "\nbusiest links ({} of {}; utilisation over the whole run):",
        links.len().min(LISTED),
        links.len()
    );
    let rows: Vec<(usize, String, &LinkReport, f64)> = links
        .into_iter()
        .take(LISTED)
        .map(|(i, l, util)| (i, format!("{} → {}", l.from, l.to), l, util))
        .collect();
    // Fabric labels are long (`gpu 0 (server 0, rail 0)`): the column fits the longest.
    let width = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .max("from → to".chars().count());
    let _ = writeln!(
        out,
        "{:>6}  {:<width$}  {:>8} {:>7} {:>12} {:>7} {:>11}",
        "link", "from → to", "Gb/s", "util", "max queue B", "PAUSEs", "paused µs"
    );
    for (i, hops, l, util) in rows {
        let _ = writeln!(
            out,
            "{i:>6}  {hops:<width$}  {:>8} {:>6.1}% {:>12} {:>7} {:>11.1}",
            l.gbps,
            util * 100.0,
            l.max_queue_bytes,
            l.pause_frames,
            l.paused_us
        );
    }
}

/// The [`LISTED`] flows that finished last, those that never finished first.
fn slowest_flows(out: &mut String, r: &Report) {
    let mut flows: Vec<(usize, &FlowReport)> = r.flows.iter().enumerate().collect();
    // Unfinished first (the least delivered first), then the longest FCT.
    let delivered = |f: &FlowReport| match f.bytes {
        Some(total) if total > 0 => f.received_bytes as f64 / total as f64,
        _ => 0.0,
    };
    flows.sort_by(|(_, a), (_, b)| match (a.fct_us, b.fct_us) {
        (None, None) => delivered(a).total_cmp(&delivered(b)),
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(x), Some(y)) => y.total_cmp(&x),
    });
    let _ = writeln!(
        out,
        "\nslowest flows ({} of {}):",
        flows.len().min(LISTED),
        flows.len()
    );
    let _ = writeln!(
        out,
        "{:>6} {:>8} {:>13} {:>9}  {:<24} FCT",
        "flow", "traffic", "host → host", "UDP sport", "size"
    );
    for (i, f) in flows.into_iter().take(LISTED) {
        let size = f.bytes.map_or_else(|| "endless".into(), bytes);
        let fct = match (f.fct_us, f.bytes) {
            (Some(us), _) => format!("{us:.1} µs"),
            (None, Some(_)) => format!("not finished, {} received", bytes(f.received_bytes)),
            (None, None) => format!("runs to the end, {} received", bytes(f.received_bytes)),
        };
        let _ = writeln!(
            out,
            "{i:>6} {:>8} {:>13} {:>9}  {size:<24} {fct}",
            format!("[{}]", f.traffic),
            format!("{} → {}", f.src, f.dst),
            f.udp_sport
        );
    }
}

/// The links' series in long format, one row per link per sample, behind `#` lines naming
/// the run and each link: a reader that skips `#` lines (pandas' `comment="#"`) sees a plain
/// table, and `link` indexes the report's `links` as flows' `path` does.
fn write_link_series(out: &mut dyn Write, scenario: &Scenario, r: &Report) -> io::Result<()> {
    writeln!(out, "# rdma-lab netsim run")?;
    writeln!(out, "# scenario: {}", one_line(&scenario.name))?;
    writeln!(out, "# description: {}", one_line(&scenario.description))?;
    writeln!(
        out,
        "# stopped: {}",
        one_line(&stop_reason(&r.stop, scenario))
    )?;
    writeln!(
        out,
        "# sample_interval_us = {} µs",
        scenario.sample_interval_us
    )?;
    writeln!(
        out,
        "# utilisation: share of the link's rate used in the interval ending at time_us; \
         queue_bytes: its data queue at time_us"
    )?;
    if let Some(note) = &r.series_note {
        writeln!(out, "# left out: {}", one_line(note))?;
    }
    for (i, l) in r.links.iter().enumerate() {
        writeln!(out, "# link {i}: {} → {}, {} Gb/s", l.from, l.to, l.gbps)?;
    }
    writeln!(out, "time_us,link,utilisation,queue_bytes")?;
    for (s, time) in r.time_us.iter().enumerate() {
        for (i, l) in r.links.iter().enumerate() {
            // A report that left the link series out has none to write.
            if let (Some(u), Some(q)) = (l.utilisation.get(s), l.queue_bytes.get(s)) {
                writeln!(out, "{time},{i},{u},{q}")?;
            }
        }
    }
    Ok(())
}
