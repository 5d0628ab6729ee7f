//! A short rolling history of the rates the probe sends, for the charts.

use std::collections::{BTreeMap, VecDeque};

use engine::probe::{rolling::push_newest, CounterSample, CounterStatus, Sample};

/// Samples kept per series: two minutes at the default one-second interval.
const KEPT: usize = 120;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct History {
    /// Series key → (seconds since the probe's epoch, value); keys are `port/tx`,
    /// `port/<counter>`, `netdev:<if>/rx` and so on.
    series: BTreeMap<String, VecDeque<(f64, f64)>>,
    /// Why a series has no rate at its latest sample, where the counter says (a saturated
    /// or reset counter); absent while it has one or is only waiting for a second reading.
    no_rate: BTreeMap<String, &'static str>,
}

/// Why a counter in this state gives no rate, for a chart's legend.
fn no_rate_reason(counter: Option<&CounterSample>) -> Option<&'static str> {
    match counter?.status {
        CounterStatus::Saturated => Some(
            "no rate: the counter is stuck at its maximum (4294967295 for a 32-bit one) and \
             counts no more; only a reset clears it",
        ),
        CounterStatus::Reset => Some("counter reset: this interval has no rate"),
        CounterStatus::Unavailable => Some("the counter could not be read"),
        CounterStatus::Ok | CounterStatus::First => None,
    }
}

impl History {
    pub fn record(&mut self, sample: &Sample) {
        let t = sample.timestamp_ms as f64 / 1000.0;
        for port in &sample.ports {
            let key = format!("{}:{}", port.device, port.port);
            let why = |name: &str| no_rate_reason(port.counters.get(name));
            self.push(
                format!("{key}/tx"),
                t,
                port.tx_bytes_per_second,
                why("port_xmit_data"),
            );
            self.push(
                format!("{key}/rx"),
                t,
                port.rx_bytes_per_second,
                why("port_rcv_data"),
            );
            for (name, counter) in &port.hw_counters {
                let why = no_rate_reason(Some(counter));
                self.push(format!("{key}/{name}"), t, counter.per_second, why);
            }
        }
        for dev in &sample.netdevs {
            let key = format!("netdev:{}", dev.interface);
            self.push(format!("{key}/tx"), t, dev.tx_bytes_per_second, None);
            self.push(format!("{key}/rx"), t, dev.rx_bytes_per_second, None);
        }
    }

    /// A rate the probe could not compute (first sample, wrap, reset) leaves a gap.
    fn push(&mut self, key: String, t: f64, value: Option<f64>, why: Option<&'static str>) {
        let Some(value) = value.filter(|v| v.is_finite()) else {
            match why {
                Some(why) => self.no_rate.insert(key, why),
                None => self.no_rate.remove(&key),
            };
            return;
        };
        self.no_rate.remove(&key);
        push_newest(self.series.entry(key).or_default(), (t, value), KEPT);
    }

    /// Why the series has no rate now, if its counter says.
    pub fn no_rate(&self, key: &str) -> Option<&'static str> {
        self.no_rate.get(key).copied()
    }

    pub fn points(&self, key: &str) -> Vec<(f64, f64)> {
        self.series
            .get(key)
            .map(|p| p.iter().copied().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::probe::PortSample;

    fn sample(t_ms: u64, value: u64, per_second: Option<f64>, status: CounterStatus) -> Sample {
        let data = CounterSample {
            value: Some(value),
            per_second,
            status,
        };
        Sample {
            timestamp_ms: t_ms,
            elapsed_ms: 1000,
            ports: vec![PortSample {
                device: "mlx5_1".into(),
                port: 1,
                state: None,
                counters: [("port_xmit_data".to_string(), data)].into(),
                counters_ext: BTreeMap::new(),
                hw_counters: BTreeMap::new(),
                tx_bytes_per_second: per_second.map(|r| r * 4.0),
                rx_bytes_per_second: None,
            }],
            netdevs: Vec::new(),
        }
    }

    /// UX check 2026-12: a 32-bit counter at 4294967295 left the chart "waiting for a
    /// second sample" for ever.
    #[test]
    fn a_saturated_counter_says_why_its_chart_has_no_rate() {
        let mut h = History::default();
        h.record(&sample(1000, 10, None, CounterStatus::First));
        assert_eq!(h.no_rate("mlx5_1:1/tx"), None, "a first reading only waits");
        h.record(&sample(2000, 20, Some(10.0), CounterStatus::Ok));
        assert_eq!(h.points("mlx5_1:1/tx"), vec![(2.0, 40.0)]);
        let top = u64::from(u32::MAX);
        h.record(&sample(3000, top, None, CounterStatus::Saturated));
        assert!(h
            .no_rate("mlx5_1:1/tx")
            .is_some_and(|why| why.contains("4294967295")));
        h.record(&sample(4000, 5, None, CounterStatus::Reset));
        assert!(h
            .no_rate("mlx5_1:1/tx")
            .is_some_and(|why| why.contains("reset")));
        h.record(&sample(5000, 15, Some(10.0), CounterStatus::Ok));
        assert_eq!(h.no_rate("mlx5_1:1/tx"), None);
    }
}
