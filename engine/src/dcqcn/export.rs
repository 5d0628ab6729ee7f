//! What an export says about the run it holds: the scenario, the model and every parameter
//! with its unit. [`run_csv`] puts them ahead of the series as `#` comment lines (a reader
//! that skips `#` lines sees the plain [`series_to_csv`] table); the page draws the same
//! list into its PNG. Two exports can then be told apart and compared.

use std::fmt::Write as _;

use super::scenario::{FlowSpec, Scenario};
use super::series::{series_to_csv, Model, Series};

/// One parameter of a run: its path in the scenario JSON (the name the engine's errors
/// use), its value as text and its unit (empty for a count, a fraction or a flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    pub name: String,
    pub value: String,
    pub unit: &'static str,
}

impl Parameter {
    fn new(name: impl Into<String>, value: impl ToString, unit: &'static str) -> Self {
        Parameter {
            name: name.into(),
            value: value.to_string(),
            unit,
        }
    }
}

impl std::fmt::Display for Parameter {
    /// `name = value unit`, as the CSV comments write it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.name, self.value)?;
        if !self.unit.is_empty() {
            write!(f, " {}", self.unit)?;
        }
        Ok(())
    }
}

/// "DCQCN · incast-16 · fluid model": the title of an exported run.
pub fn run_title(scenario: &Scenario, model: Model) -> String {
    format!(
        "DCQCN · {} · {} model",
        one_line(&scenario.name),
        model.name()
    )
}

/// Every parameter of `scenario`, in the order of its JSON: the link and timing, the
/// switch port, the DCQCN parameters, then the flows. Consecutive identical flows share
/// one entry, `flows[0-15].link_gbps`.
pub fn parameters(s: &Scenario) -> Vec<Parameter> {
    let mut out = vec![
        Parameter::new("bottleneck_gbps", s.bottleneck_gbps, "Gb/s"),
        Parameter::new("prop_delay_us", s.prop_delay_us, "µs"),
        Parameter::new("mtu_bytes", s.mtu_bytes, "bytes"),
        Parameter::new("duration_us", s.duration_us, "µs"),
        Parameter::new("sample_interval_us", s.sample_interval_us, "µs"),
        Parameter::new("fluid_step_us", s.fluid_step_us, "µs"),
        Parameter::new("seed", s.seed, ""),
        Parameter::new("cp.buffer_bytes", s.cp.buffer_bytes, "bytes"),
        Parameter::new("cp.kmin_bytes", s.cp.kmin_bytes, "bytes"),
        Parameter::new("cp.kmax_bytes", s.cp.kmax_bytes, "bytes"),
        Parameter::new("cp.pmax", s.cp.pmax, ""),
    ];
    match &s.cp.pfc {
        Some(pfc) => {
            out.push(Parameter::new("cp.pfc.xoff_bytes", pfc.xoff_bytes, "bytes"));
            out.push(Parameter::new("cp.pfc.xon_bytes", pfc.xon_bytes, "bytes"));
        }
        None => out.push(Parameter::new("cp.pfc", "off", "")),
    }
    let d = &s.dcqcn;
    let dcqcn = [
        Parameter::new("rp_clamp_tgt_rate", d.rp_clamp_tgt_rate, ""),
        Parameter::new("rp_clamp_tgt_rate_ati", d.rp_clamp_tgt_rate_ati, ""),
        Parameter::new("rp_time_reset_us", d.rp_time_reset_us, "µs"),
        Parameter::new("rp_byte_reset_bytes", d.rp_byte_reset_bytes, "bytes"),
        Parameter::new("rp_threshold", d.rp_threshold, ""),
        Parameter::new("rp_ai_rate_mbps", d.rp_ai_rate_mbps, "Mb/s"),
        Parameter::new("rp_hai_rate_mbps", d.rp_hai_rate_mbps, "Mb/s"),
        Parameter::new("rp_max_rate_mbps", d.rp_max_rate_mbps, "Mb/s"),
        Parameter::new("rp_min_dec_fac_pct", d.rp_min_dec_fac_pct, "%"),
        Parameter::new("rp_min_rate_mbps", d.rp_min_rate_mbps, "Mb/s"),
        Parameter::new(
            "rp_rate_to_set_on_first_cnp_mbps",
            d.rp_rate_to_set_on_first_cnp_mbps,
            "Mb/s",
        ),
        Parameter::new("g", d.g, ""),
        Parameter::new("rp_dce_tcp_rtt_us", d.rp_dce_tcp_rtt_us, "µs"),
        Parameter::new(
            "rp_rate_reduce_monitor_period_us",
            d.rp_rate_reduce_monitor_period_us,
            "µs",
        ),
        Parameter::new("rp_initial_alpha", d.rp_initial_alpha, ""),
        Parameter::new("rp_gd", d.rp_gd, ""),
        Parameter::new(
            "np_min_time_between_cnps_us",
            d.np_min_time_between_cnps_us,
            "µs",
        ),
        Parameter::new("np_cnp_dscp", d.np_cnp_dscp, ""),
        Parameter::new("np_cnp_prio_mode", d.np_cnp_prio_mode, ""),
        Parameter::new("np_cnp_prio", d.np_cnp_prio, ""),
    ];
    out.extend(dcqcn.into_iter().map(|p| Parameter {
        name: format!("dcqcn.{}", p.name),
        ..p
    }));
    out.push(Parameter::new("flows", s.flows.len(), ""));
    let mut first = 0;
    while let Some(flow) = s.flows.get(first) {
        let same = s.flows[first..]
            .iter()
            .take_while(|g| same_flow(g, flow))
            .count();
        let last = first + same - 1;
        let at = if same == 1 {
            format!("flows[{first}]")
        } else {
            format!("flows[{first}-{last}]")
        };
        out.push(Parameter::new(
            format!("{at}.link_gbps"),
            flow.link_gbps,
            "Gb/s",
        ));
        out.push(Parameter::new(
            format!("{at}.start_us"),
            flow.start_us,
            "µs",
        ));
        out.push(match flow.size_bytes {
            Some(bytes) => Parameter::new(format!("{at}.size_bytes"), bytes, "bytes"),
            None => Parameter::new(format!("{at}.size_bytes"), "endless", ""),
        });
        first = last + 1;
    }
    out
}

fn same_flow(a: &FlowSpec, b: &FlowSpec) -> bool {
    a.link_gbps.to_bits() == b.link_gbps.to_bits()
        && a.start_us.to_bits() == b.start_us.to_bits()
        && a.size_bytes == b.size_bytes
}

/// Text on one line: a scenario read from a file may carry line breaks in its name or
/// description, which would end a comment line early.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The `#` comment lines that open [`run_csv`]: what ran, with which model, and every
/// parameter as `# name = value unit`.
pub fn csv_comments(scenario: &Scenario, series: &Series) -> String {
    let mut out = String::with_capacity(2048);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# rdma-lab DCQCN run");
    let _ = writeln!(out, "# scenario: {}", one_line(&scenario.name));
    let _ = writeln!(out, "# model: {}", series.model.name());
    let _ = writeln!(out, "# description: {}", one_line(&scenario.description));
    if let Some(reason) = &series.truncation_reason {
        let _ = writeln!(out, "# truncated: {}", one_line(reason));
    }
    let _ = writeln!(out, "# parameters (name = value unit):");
    for p in parameters(scenario) {
        let _ = writeln!(out, "# {p}");
    }
    out
}

/// A run as CSV: [`csv_comments`] for `scenario` (the scenario `series` ran), then the
/// [`series_to_csv`] table, header row first.
pub fn run_csv(scenario: &Scenario, series: &Series) -> String {
    let mut out = csv_comments(scenario, series);
    out.push_str(&series_to_csv(series));
    out
}

#[cfg(test)]
mod tests {
    use super::super::scenario::named_scenario;
    use super::*;

    #[test]
    fn identical_neighbouring_flows_share_an_entry() {
        let s = named_scenario("incast-16").unwrap();
        let p = parameters(&s);
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"flows[0-15].link_gbps"), "{names:?}");
        let two = parameters(&named_scenario("two-flow").unwrap());
        let starts: Vec<String> = two
            .iter()
            .filter(|p| p.name.ends_with("start_us"))
            .map(|p| p.to_string())
            .collect();
        assert_eq!(
            starts,
            ["flows[0].start_us = 0 µs", "flows[1].start_us = 2000 µs"]
        );
    }

    #[test]
    fn a_line_break_in_a_name_stays_inside_its_comment() {
        assert_eq!(one_line("a\nb\r\tc"), "a b  c");
    }
}
