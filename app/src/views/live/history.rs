//! A short rolling history of the rates the probe sends, for the charts.

use std::collections::{BTreeMap, VecDeque};

use engine::probe::Sample;

/// Samples kept per series: two minutes at the default one-second interval.
const KEPT: usize = 120;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct History {
    /// Series key → (seconds since the probe's epoch, value); keys are `port/tx`,
    /// `port/<counter>`, `netdev:<if>/rx` and so on.
    series: BTreeMap<String, VecDeque<(f64, f64)>>,
}

impl History {
    pub fn record(&mut self, sample: &Sample) {
        let t = sample.timestamp_ms as f64 / 1000.0;
        for port in &sample.ports {
            let key = format!("{}:{}", port.device, port.port);
            self.push(format!("{key}/tx"), t, port.tx_bytes_per_second);
            self.push(format!("{key}/rx"), t, port.rx_bytes_per_second);
            for (name, counter) in &port.hw_counters {
                self.push(format!("{key}/{name}"), t, counter.per_second);
            }
        }
        for dev in &sample.netdevs {
            let key = format!("netdev:{}", dev.interface);
            self.push(format!("{key}/tx"), t, dev.tx_bytes_per_second);
            self.push(format!("{key}/rx"), t, dev.rx_bytes_per_second);
        }
    }

    /// A rate the probe could not compute (first sample, wrap, reset) leaves a gap.
    fn push(&mut self, key: String, t: f64, value: Option<f64>) {
        let Some(value) = value.filter(|v| v.is_finite()) else {
            return;
        };
        let points = self.series.entry(key).or_default();
        points.push_back((t, value));
        while points.len() > KEPT {
            points.pop_front();
        }
    }

    pub fn points(&self, key: &str) -> Vec<(f64, f64)> {
        self.series
            .get(key)
            .map(|p| p.iter().copied().collect())
            .unwrap_or_default()
    }
}
