//! `native-probe snapshot`: one reading of every counter, for scripts (`--json`) or people.

use engine::probe::{Snapshot, SCHEMA_VERSION};

use crate::{cli::SnapshotArgs, output, sampler, sysfs::Trees};

pub fn run(args: &SnapshotArgs) -> Result<(), Box<dyn std::error::Error>> {
    let mut trees = Trees::open(&args.trees.sysfs(), &args.trees.debugfs())?;
    let snapshot = Snapshot {
        schema_version: SCHEMA_VERSION,
        source: args.trees.source(),
        host: sampler::host_name(),
        inventory: trees.inventory(),
        reading: trees.reading(sampler::now_ms()),
    };
    if args.json {
        let text = serde_json::to_string_pretty(&snapshot)?;
        output::to_stdout(|out| writeln!(out, "{text}"))?;
        return Ok(());
    }
    let sysfs = trees.sysfs.dir();
    output::to_stdout(|out| {
        writeln!(out, "{} (read from {})", snapshot.host, sysfs.display())?;
        for (device, port) in snapshot
            .inventory
            .rdma_devices
            .iter()
            .flat_map(|d| d.ports.iter().map(move |p| (d, p)))
        {
            let counters = snapshot
                .reading
                .ports
                .iter()
                .find(|r| r.device == device.name && r.port == port.port);
            writeln!(
                out,
                "  {} port {}: {} {} {}, sent {} B, received {} B",
                device.name,
                port.port,
                port.link_layer.as_deref().unwrap_or("?"),
                port.state.as_ref().map_or("?", |s| s.name.as_str()),
                port.rate.as_deref().unwrap_or("?"),
                shown(counters.and_then(|c| c.tx_bytes)),
                shown(counters.and_then(|c| c.rx_bytes)),
            )?;
        }
        for netdev in &snapshot.reading.netdevs {
            writeln!(
                out,
                "  {}: {}, sent {} B, received {} B",
                netdev.interface,
                netdev.operstate.as_deref().unwrap_or("?"),
                shown(netdev.tx_bytes),
                shown(netdev.rx_bytes),
            )?;
        }
        if snapshot.inventory.rdma_devices.is_empty() {
            writeln!(
                out,
                "  no RDMA devices under {}/class/infiniband",
                sysfs.display()
            )?;
        }
        Ok(())
    })?;
    Ok(())
}

fn shown(value: Option<u64>) -> String {
    value.map_or_else(|| "unavailable".to_string(), |v| v.to_string())
}
