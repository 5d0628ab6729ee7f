//! The one sampler every client shares: reads the trees each interval and turns consecutive
//! readings into `sample` and `change` messages.

use std::{
    collections::BTreeSet,
    sync::Arc,
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use engine::probe::{Change, Component, Inventory, ProbeError, ProbeMessage, Reading, Sample};

use crate::{demo::Demo, sysfs::Trees};

pub struct Sampler {
    trees: Trees,
    demo: Option<Demo>,
    components: BTreeSet<Component>,
    inventory: Arc<Inventory>,
    previous: Arc<Reading>,
    last_tick: Instant,
}

/// What one tick produced: the messages for every client, in order (a `change` before its `sample`).
pub struct Tick {
    pub messages: Vec<ProbeMessage>,
}

impl Sampler {
    /// Takes the first reading, so the first tick already has rates.
    pub fn new(mut trees: Trees, demo: Option<Demo>) -> Sampler {
        let (previous, components) = trees.reading_and_components(now_ms());
        let inventory = Arc::new(trees.inventory());
        Sampler {
            trees,
            demo,
            components,
            inventory,
            previous: Arc::new(previous),
            last_tick: Instant::now(),
        }
    }

    pub fn inventory(&self) -> &Arc<Inventory> {
        &self.inventory
    }

    pub fn latest(&self) -> &Arc<Reading> {
        &self.previous
    }

    /// Reads everything once more. Blocking file I/O: run it off the async workers.
    pub fn tick(&mut self) -> Tick {
        let mut messages = Vec::new();
        let elapsed = self.last_tick.elapsed();
        self.last_tick = Instant::now();
        if let Some(demo) = &mut self.demo {
            if let Err(error) = demo.advance(elapsed) {
                messages.push(ProbeMessage::Error(ProbeError {
                    message: format!("the demo could not advance its recorded counters: {error}"),
                }));
            }
        }
        // The inventory (GIDs, firmware, cc_params…) is read again only when a device, port
        // or interface came or went; the components come with the reading's own listing.
        let (reading, components) = self.trees.reading_and_components(now_ms());
        if components != self.components {
            let inventory = self.trees.inventory();
            messages.push(ProbeMessage::Change(Change {
                added: components.difference(&self.components).cloned().collect(),
                removed: self.components.difference(&components).cloned().collect(),
                inventory: inventory.clone(),
            }));
            self.inventory = Arc::new(inventory);
            self.components = components;
        }
        messages.push(ProbeMessage::Sample(Sample::between(
            &self.previous,
            &reading,
        )));
        self.previous = Arc::new(reading);
        Tick { messages }
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub fn host_name() -> String {
    hostname::get()
        .ok()
        .and_then(|name| name.into_string().ok())
        .unwrap_or_else(|| "unknown-host".to_string())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use engine::probe::CounterStatus;

    use super::*;
    use lab_tests::probe::copy_tree;

    fn copied_fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        copy_tree(&fixture, dir.path()).unwrap();
        dir
    }

    fn sampler(dir: &Path) -> Sampler {
        Sampler::new(
            Trees::open(&dir.join("sysfs"), &dir.join("debugfs")).unwrap(),
            None,
        )
    }

    fn sample_of(tick: &Tick) -> &Sample {
        tick.messages
            .iter()
            .find_map(|m| match m {
                ProbeMessage::Sample(s) => Some(s),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn a_counter_reset_is_reported_without_a_rate() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        let file = dir
            .path()
            .join("sysfs/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
        std::fs::write(&file, "12\n").unwrap();
        let tick = sampler.tick();
        let xmit = &sample_of(&tick).ports[0].counters["port_xmit_data"];
        assert_eq!(xmit.status, CounterStatus::Reset);
        assert_eq!(xmit.per_second, None);
        assert_eq!(xmit.value, Some(12));
    }

    #[test]
    fn a_counter_written_in_place_or_unreadable_shows_in_the_next_sample() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        let file = dir
            .path()
            .join("sysfs/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
        let xmit = |tick: &Tick| {
            sample_of(tick).ports[0]
                .counters
                .get("port_xmit_data")
                .map(|c| c.value)
        };
        // Written in place, as the kernel and the demo change counters.
        for step in 1..=4u64 {
            let value = 1_000_000_000_000 + step;
            std::fs::write(&file, format!("{value}\n")).unwrap();
            assert_eq!(xmit(&sampler.tick()), Some(Some(value)));
        }
        // Unreadable (here: not text) is unavailable, not gone, and the rest still reads.
        std::fs::write(&file, [0xff, 0xfe, b'\n']).unwrap();
        let tick = sampler.tick();
        assert_eq!(xmit(&tick), Some(None));
        assert_eq!(sample_of(&tick).ports[0].tx_bytes_per_second, None);
        assert!(sample_of(&tick).ports[0].counters["port_rcv_data"]
            .value
            .is_some());
        std::fs::write(&file, "78\n").unwrap();
        assert_eq!(xmit(&sampler.tick()), Some(Some(78)));
    }

    #[test]
    fn a_32_bit_counter_that_falls_is_reset_and_one_pinned_at_its_top_saturated() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        let file = dir
            .path()
            .join("sysfs/class/infiniband/mlx5_1/ports/1/counters/port_rcv_packets");
        let top = u64::from(u32::MAX);
        let mut status_after = |value: u64| {
            // So a sample spans at least a millisecond, the unit of its timestamps.
            std::thread::sleep(std::time::Duration::from_millis(5));
            std::fs::write(&file, format!("{value}\n")).unwrap();
            let tick = sampler.tick();
            let packets = &sample_of(&tick).ports[1].counters["port_rcv_packets"];
            (packets.status, packets.per_second)
        };
        status_after(top - 10);
        // IB port counters cap rather than wrap: a fall is a clear, with no rate made up.
        assert_eq!(status_after(5), (CounterStatus::Reset, None));
        assert!(matches!(status_after(top), (CounterStatus::Ok, Some(r)) if r > 0.0));
        assert_eq!(status_after(top), (CounterStatus::Saturated, None));
    }

    #[test]
    fn devices_and_ports_coming_and_going_are_changes() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        assert!(sampler.tick().messages.len() == 1, "nothing changed yet");

        std::fs::remove_file(dir.path().join("sysfs/class/infiniband/mlx5_2")).unwrap();
        std::fs::remove_file(dir.path().join("sysfs/class/net/lo")).unwrap();
        let tick = sampler.tick();
        let ProbeMessage::Change(change) = &tick.messages[0] else {
            panic!("expected a change first, got {:?}", tick.messages[0]);
        };
        assert!(change.added.is_empty());
        assert!(change.removed.contains(&Component::RdmaDevice {
            device: "mlx5_2".into()
        }));
        assert!(change.removed.contains(&Component::RdmaPort {
            device: "mlx5_2".into(),
            port: 1
        }));
        assert!(change.removed.contains(&Component::Netdev {
            interface: "lo".into()
        }));
        assert_eq!(change.inventory.rdma_devices.len(), 2);
        assert_eq!(sample_of(&tick).ports.len(), 2);

        std::os::unix::fs::symlink(
            "../../devices/virtual/net/lo",
            dir.path().join("sysfs/class/net/lo"),
        )
        .unwrap();
        let tick = sampler.tick();
        let ProbeMessage::Change(change) = &tick.messages[0] else {
            panic!("expected a change, got {:?}", tick.messages[0]);
        };
        assert_eq!(
            change.added,
            [Component::Netdev {
                interface: "lo".into()
            }]
        );
        // A component that reappears starts over: no rate from before it vanished.
        let lo = sample_of(&tick)
            .netdevs
            .iter()
            .find(|d| d.interface == "lo")
            .unwrap();
        assert_eq!(lo.statistics["rx_bytes"].status, CounterStatus::First);
    }
}
