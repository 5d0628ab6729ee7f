//! The tables of the live view: devices and ports as `ibv_devinfo` shows them, the GID table
//! as `show_gids` prints it, interfaces, and every counter with what it means.
//!
//! Each table is wider than a phone, so each scrolls sideways in its own box (which takes
//! keyboard focus, so it can be scrolled without a mouse) with its first column held in view;
//! its title sits above the box, so the title is never scrolled away with the columns.

use std::collections::BTreeMap;

use engine::probe::{CounterSample, CounterStatus, Inventory};
use yew::prelude::*;

use crate::views::figures;

use crate::base;
use crate::topics::CounterNote;

#[derive(Properties, PartialEq)]
pub struct InventoryProps {
    pub inventory: Inventory,
}

fn or_dash(value: Option<impl ToString>) -> String {
    value.map(|v| v.to_string()).unwrap_or_else(|| "—".into())
}

#[derive(Properties, PartialEq)]
struct ScrollingTableProps {
    /// The id of the title, which names both the scrolling box and the table.
    id: AttrValue,
    title: Html,
    children: Html,
}

/// A table under its title, in a box of its own that scrolls sideways.
#[function_component]
fn ScrollingTable(props: &ScrollingTableProps) -> Html {
    html! {
        <div class="live-table">
            <p class="live-table-title" id={props.id.clone()}>{ props.title.clone() }</p>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby={props.id.clone()}>
                { props.children.clone() }
            </div>
        </div>
    }
}

/// `text` with a line break allowed after each `at`, so a narrow column can hold a long name
/// on two lines rather than widen the table: `np_ecn_marked_roce_packets` after its
/// underscores, a GID after its colons.
fn breakable(text: &str, at: char) -> Html {
    let mut parts = text.split_inclusive(at).peekable();
    let mut out = Vec::new();
    while let Some(part) = parts.next() {
        out.push(html! { { part.to_string() } });
        if parts.peek().is_some() {
            out.push(html! { <wbr /> });
        }
    }
    out.into_iter().collect()
}

#[function_component]
pub fn DeviceTables(props: &InventoryProps) -> Html {
    let devices = &props.inventory.rdma_devices;
    if devices.is_empty() {
        return html! {
            <p class="live-empty">{ "No RDMA devices: /sys/class/infiniband is empty or absent on this machine. The interfaces below still show live traffic." }</p>
        };
    }
    html! {
        <ScrollingTable id="live-devices-title" title={html! { "RDMA devices and ports (as ibv_devinfo shows them)" }}>
            <table class="data-table live-devices" aria-labelledby="live-devices-title">
                <thead><tr>
                    <th scope="col">{ "Device" }</th><th scope="col">{ "Port" }</th><th scope="col">{ "State" }</th>
                    <th scope="col">{ "Physical state" }</th><th scope="col">{ "Rate" }</th><th scope="col">{ "Link layer" }</th>
                    <th scope="col">{ "LID / SM LID" }</th><th scope="col">{ "Firmware" }</th><th scope="col">{ "Node GUID" }</th>
                    <th scope="col">{ "NUMA node" }</th>
                </tr></thead>
                <tbody>
                { for devices.iter().flat_map(|dev| dev.ports.iter().map(move |port| html! {
                    <tr>
                        <th scope="row">{ dev.name.clone() }</th>
                        <td>{ port.port }</td>
                        <td>{ or_dash(port.state.as_ref().map(|s| s.name.clone())) }</td>
                        <td>{ or_dash(port.phys_state.as_ref().map(|s| s.name.clone())) }</td>
                        <td>{ or_dash(port.rate.clone()) }</td>
                        <td>{ or_dash(port.link_layer.clone()) }</td>
                        <td>{ format!("{} / {}", or_dash(port.lid), or_dash(port.sm_lid)) }</td>
                        <td>{ or_dash(dev.fw_ver.clone()) }</td>
                        <td><code>{ or_dash(dev.node_guid.clone()) }</code></td>
                        <td>{ or_dash(dev.numa_node) }</td>
                    </tr>
                })) }
                </tbody>
            </table>
        </ScrollingTable>
    }
}

#[function_component]
pub fn GidTable(props: &InventoryProps) -> Html {
    let rows: Vec<Html> = props
        .inventory
        .rdma_devices
        .iter()
        .flat_map(|dev| {
            dev.ports.iter().flat_map(move |port| {
                port.gids.iter().map(move |gid| html! {
                    <tr>
                        <th scope="row">{ dev.name.clone() }</th><td>{ port.port }</td><td>{ gid.index }</td>
                        <td>{ or_dash(gid.gid_type.clone()) }</td><td>{ or_dash(gid.ipv4.clone()) }</td>
                        <td class="breakable"><code>{ breakable(&gid.gid, ':') }</code></td><td>{ or_dash(gid.ndev.clone()) }</td>
                    </tr>
                })
            })
        })
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    let title = html! {
        <>
            { "GID table (as show_gids prints it). RoCE v2 entries are what NCCL_IB_GID_INDEX picks from; see " }
            <a href={base::href("/troubleshooting#roce-gid-index-wrong")}>{ "GID index wrong" }</a>{ "." }
        </>
    };
    html! {
        <ScrollingTable id="live-gids-title" {title}>
            <table class="data-table live-gids" aria-labelledby="live-gids-title">
                <thead><tr>
                    // What picks the index (the type, RoCE v2, and the address) before the long
                    // GID, so a phone shows them before the table scrolls.
                    <th scope="col">{ "Device" }</th><th scope="col">{ "Port" }</th><th scope="col">{ "Index" }</th>
                    <th scope="col">{ "Type" }</th><th scope="col">{ "IPv4" }</th><th scope="col">{ "GID" }</th><th scope="col">{ "Netdev" }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </ScrollingTable>
    }
}

#[function_component]
pub fn NetdevTable(props: &InventoryProps) -> Html {
    html! {
        <ScrollingTable id="live-netdevs-title" title={html! { "Network interfaces (/sys/class/net)" }}>
            <table class="data-table live-netdevs" aria-labelledby="live-netdevs-title">
                <thead><tr>
                    <th scope="col">{ "Interface" }</th><th scope="col">{ "State" }</th><th scope="col">{ "Speed" }</th>
                    <th scope="col">{ "MTU" }</th><th scope="col">{ "Address" }</th>
                </tr></thead>
                <tbody>
                { for props.inventory.netdevs.iter().map(|dev| html! {
                    <tr>
                        <th scope="row">{ dev.name.clone() }</th>
                        <td>{ or_dash(dev.operstate.clone()) }</td>
                        <td>{ or_dash(dev.speed_mbps.map(|m| format!("{m} Mb/s"))) }</td>
                        <td>{ or_dash(dev.mtu) }</td>
                        <td><code>{ or_dash(dev.address.clone()) }</code></td>
                    </tr>
                }) }
                </tbody>
            </table>
        </ScrollingTable>
    }
}

#[derive(Properties, PartialEq)]
pub struct CounterTableProps {
    /// `port`, `port_ext`, `hw` or `netdev`, as in `content/data/counters.toml`.
    pub group: AttrValue,
    /// The port (`mlx5_0:1`) or interface the counters belong to, which tells this table's
    /// title from the next panel's.
    pub owner: AttrValue,
    pub counters: BTreeMap<String, CounterSample>,
    /// Whether the values are current; otherwise they are the probe's last.
    pub live: bool,
}

fn status_text(counter: &CounterSample) -> String {
    match (counter.status, counter.per_second) {
        (CounterStatus::Ok, Some(rate)) => figures::rate(rate, ""),
        (CounterStatus::First, _) => "first reading".into(),
        (CounterStatus::Reset, _) => "reset: interval skipped".into(),
        (CounterStatus::Saturated, _) => "saturated".into(),
        (CounterStatus::Unavailable, _) => "unavailable".into(),
        (_, None) => "—".into(),
    }
}

/// Every counter of one group with its value, rate and what it means.
#[function_component]
pub fn CounterTable(props: &CounterTableProps) -> Html {
    if props.counters.is_empty() {
        return html! {};
    }
    let title = match props.group.as_str() {
        "port" => "Port counters (ports/<n>/counters)",
        "port_ext" => "64-bit port counters (ports/<n>/counters_ext)",
        "hw" => "Driver counters (ports/<n>/hw_counters)",
        _ => "Interface statistics (statistics/)",
    };
    let id = format!("live-counters-{}-{}", props.group, props.owner);
    let (value, rate) = if props.live {
        ("Value", "Rate")
    } else {
        ("Last value", "Last rate")
    };
    html! {
        <ScrollingTable id={id.clone()} title={html! { title }}>
            <table class="data-table live-counters" aria-labelledby={id}>
                <thead><tr>
                    <th scope="col">{ "Counter" }</th><th scope="col">{ value }</th><th scope="col">{ rate }</th>
                    <th scope="col">{ "What it counts" }</th>
                </tr></thead>
                <tbody>
                { for props.counters.iter().map(|(name, counter)| {
                    let note = CounterNote::find(&props.group, name);
                    let explain = match note {
                        Some(note) => html! {
                            <>{ note.meaning }{ " " }<a href={base::href(note.topic)}>{ "Why" }</a></>
                        },
                        None => html! { <span class="muted">{ "Not explained in the lab yet." }</span> },
                    };
                    html! {
                        <tr data-counter={name.clone()}>
                            <th scope="row"><code>{ breakable(name, '_') }</code></th>
                            <td class="num">{ or_dash(counter.value) }</td>
                            <td class="num rate">{ status_text(counter) }</td>
                            <td>{ explain }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
        </ScrollingTable>
    }
}
