//! The tables of the live view: devices and ports as `ibv_devinfo` shows them, the GID table
//! as `show_gids` prints it, interfaces, and every counter with what it means.

use std::collections::BTreeMap;

use engine::probe::{CounterSample, CounterStatus, Inventory};
use yew::prelude::*;

use super::chart::human;
use crate::base;
use crate::topics::CounterNote;

#[derive(Properties, PartialEq)]
pub struct InventoryProps {
    pub inventory: Inventory,
}

fn or_dash(value: Option<impl ToString>) -> String {
    value.map(|v| v.to_string()).unwrap_or_else(|| "—".into())
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
        <div class="table-scroll">
            <table class="data-table live-devices">
                <caption>{ "RDMA devices and ports (as ibv_devinfo shows them)" }</caption>
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
        </div>
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
                        <td>{ dev.name.clone() }</td><td>{ port.port }</td><td>{ gid.index }</td>
                        <td><code>{ gid.gid.clone() }</code></td><td>{ or_dash(gid.ipv4.clone()) }</td>
                        <td>{ or_dash(gid.gid_type.clone()) }</td><td>{ or_dash(gid.ndev.clone()) }</td>
                    </tr>
                })
            })
        })
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    html! {
        <div class="table-scroll">
            <table class="data-table live-gids">
                <caption>
                    { "GID table (as show_gids prints it). RoCE v2 entries are what NCCL_IB_GID_INDEX picks from; see " }
                    <a href={base::href("/troubleshooting#roce-gid-index-wrong")}>{ "GID index wrong" }</a>{ "." }
                </caption>
                <thead><tr>
                    <th scope="col">{ "Device" }</th><th scope="col">{ "Port" }</th><th scope="col">{ "Index" }</th>
                    <th scope="col">{ "GID" }</th><th scope="col">{ "IPv4" }</th><th scope="col">{ "Type" }</th><th scope="col">{ "Netdev" }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    }
}

#[function_component]
pub fn NetdevTable(props: &InventoryProps) -> Html {
    html! {
        <div class="table-scroll">
            <table class="data-table live-netdevs">
                <caption>{ "Network interfaces (/sys/class/net)" }</caption>
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
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct CounterTableProps {
    /// `port`, `hw` or `netdev`, as in `content/data/counters.toml`.
    pub group: AttrValue,
    pub counters: BTreeMap<String, CounterSample>,
}

fn status_text(counter: &CounterSample) -> String {
    match (counter.status, counter.per_second) {
        (CounterStatus::Ok, Some(rate)) => format!("{}/s", human(rate)),
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
    let caption = match props.group.as_str() {
        "port" => "Port counters (ports/<n>/counters)",
        "hw" => "Driver counters (ports/<n>/hw_counters)",
        _ => "Interface statistics (statistics/)",
    };
    html! {
        <div class="table-scroll">
            <table class="data-table live-counters">
                <caption>{ caption }</caption>
                <thead><tr>
                    <th scope="col">{ "Counter" }</th><th scope="col">{ "Value" }</th><th scope="col">{ "Rate" }</th>
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
                            <th scope="row"><code>{ name.clone() }</code></th>
                            <td class="num">{ or_dash(counter.value) }</td>
                            <td class="num rate">{ status_text(counter) }</td>
                            <td>{ explain }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
        </div>
    }
}
