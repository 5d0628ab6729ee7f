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
    /// The reading before `previous`: its counter maps are refilled by the next reading
    /// once nobody else holds it (the clients' `/metrics` and `hello` let go of it soon).
    retired: Option<Arc<Reading>>,
    /// The last tick's sample once it was sent: the next one is written over it.
    spare_sample: Option<Sample>,
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
            retired: None,
            spare_sample: None,
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
        let spare = self.retired.take().and_then(|r| Arc::try_unwrap(r).ok());
        let (reading, components) = self.trees.reading_and_components_reusing(now_ms(), spare);
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
        messages.push(ProbeMessage::Sample(Sample::between_reusing(
            &self.previous,
            &reading,
            self.spare_sample.take(),
        )));
        self.retired = Some(std::mem::replace(&mut self.previous, Arc::new(reading)));
        Tick { messages }
    }

    /// Takes back a tick's messages once they are sent, so the next sample reuses its maps.
    pub fn recycle(&mut self, tick: Tick) {
        self.spare_sample = tick.messages.into_iter().find_map(|m| match m {
            ProbeMessage::Sample(sample) => Some(sample),
            _ => None,
        });
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
    use crate::demo::copy_tree;

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
    fn readings_and_samples_share_the_names_the_listing_found() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        // From the third tick on, both readings and the sample are refilled, not rebuilt.
        for _ in 0..3 {
            let tick = sampler.tick();
            sampler.recycle(tick);
        }
        let tick = sampler.tick();
        let reading = &sampler.latest().ports[0].hw_counters;
        let sample = &sample_of(&tick).ports[0].hw_counters;
        assert!(reading.len() > 10);
        for (in_reading, in_sample) in reading.keys().zip(sample.keys()) {
            assert!(Arc::ptr_eq(in_reading, in_sample), "{in_reading} is copied");
        }
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
    fn a_counter_replaced_by_rename_removed_or_restored_shows_in_the_next_sample() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        let counters = dir
            .path()
            .join("sysfs/class/infiniband/mlx5_0/ports/1/counters");
        let file = counters.join("port_xmit_data");
        let aside = dir.path().join("aside");
        let xmit = |tick: &Tick| {
            sample_of(tick).ports[0]
                .counters
                .get("port_xmit_data")
                .map(|c| c.value)
        };
        // As the bench changes it, several times within a second; the readings' counter
        // maps are reused from the second tick on.
        for step in 1..=4u64 {
            let value = 1_000_000_000_000 + step;
            std::fs::write(&aside, format!("{value}\n")).unwrap();
            std::fs::rename(&aside, &file).unwrap();
            assert_eq!(xmit(&sampler.tick()), Some(Some(value)));
        }
        std::fs::remove_file(&file).unwrap();
        let tick = sampler.tick();
        assert_eq!(
            xmit(&tick),
            None,
            "a counter no longer there is not reported"
        );
        assert_eq!(sample_of(&tick).ports[0].tx_bytes_per_second, None);
        assert!(sample_of(&tick).ports[0]
            .counters
            .contains_key("port_rcv_data"));
        std::fs::write(&file, "77\n").unwrap();
        assert_eq!(xmit(&sampler.tick()), Some(Some(77)));
        // Unreadable (here: a directory in its place) is unavailable, not gone.
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        assert_eq!(xmit(&sampler.tick()), Some(None));
        std::fs::remove_dir(&file).unwrap();
        std::fs::write(&file, "78\n").unwrap();
        assert_eq!(xmit(&sampler.tick()), Some(Some(78)));
    }

    #[test]
    fn devices_and_ports_coming_and_going_are_changes() {
        let dir = copied_fixture();
        let mut sampler = sampler(dir.path());
        assert!(sampler.tick().messages.len() == 1, "nothing changed yet");
        assert_eq!(
            sampler.components,
            sampler.trees.components(),
            "the reading's listing finds every component"
        );

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
