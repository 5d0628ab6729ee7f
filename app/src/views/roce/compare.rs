//! The same message as RoCE v2 and as native InfiniBand: headers, bytes per packet, and
//! goodput at two path MTUs for a chosen message size and link rate.

use engine::capture::segment::{message_cost, Framing, MessageKind};
use engine::capture::spec::{build, build_ib, wire_costs, PacketSpec};
use engine::capture::{dissect, LinkType};
use engine::wire::Transport;
use yew::prelude::*;

use crate::views::form::{whole, FieldDef, Form, Reads, Refusal, TextField};

/// The goodput table's two boxes.
static FIELDS: [FieldDef; 2] = [
    FieldDef {
        key: "msg-size",
        label: "Message size (bytes)",
        unit: "",
        help: "",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "link-rate",
        label: "Link rate (Gb/s)",
        unit: "",
        help: "",
        reads: Reads::Decimal,
    },
];

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub spec: PacketSpec,
}

fn layer_list(frame: &[u8], link: LinkType) -> Html {
    let d = dissect(frame, link);
    html! {
        <ol class="compare-layers">
            { for d.layers.iter().map(|l| html! { <li>{ format!("{} — {} B", l.title, l.len) }</li> }) }
        </ol>
    }
}

#[function_component]
pub fn Compare(props: &CompareProps) -> Html {
    let form = use_state(|| {
        Form::new([
            (FIELDS[0].key, "1048576".to_string()),
            (FIELDS[1].key, "100".to_string()),
        ])
    });
    let on_type = {
        let form = form.clone();
        Callback::from(move |(key, text): (&'static str, String)| {
            let mut next = (*form).clone();
            next.set(key, text);
            form.set(next);
        })
    };
    let spec = &props.spec;
    let roce = build(spec).unwrap_or_default();
    let ib = build_ib(spec, false);
    let size = whole(form.text(FIELDS[0].key), 1 << 31);
    let rate = (form.text(FIELDS[1].key))
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r > 0.0 && *r <= 10_000.0)
        .ok_or_else(|| "a rate in Gb/s between 0 and 10000".to_string());
    let goodput = match (spec.operation.message(), &size, &rate) {
        (None, _, _) => {
            html! { <p>{ "This operation is a single control packet, not a data message; pick SEND, WRITE or READ to compare goodput." }</p> }
        }
        (Some(message), Ok(len), Ok(rate)) => goodput_table(spec, message, *len, *rate),
        _ => html! {},
    };
    html! {
        <div class="compare">
            <div class="compare-columns">
                <section aria-label="RoCE v2 framing">
                    <h4>{ format!("RoCE v2: {} bytes", roce.len()) }</h4>
                    { layer_list(&roce, LinkType::Ethernet) }
                </section>
                <section aria-label="Native InfiniBand framing">
                    { match &ib {
                        Ok(ib) => html! { <>
                            <h4>{ format!("Native InfiniBand: {} bytes", ib.len()) }</h4>
                            { layer_list(ib, LinkType::Infiniband) }
                        </> },
                        Err(e) => html! { <><h4>{ "Native InfiniBand" }</h4><p>{ e.to_string() }</p></> },
                    } }
                </section>
            </div>
            if let Ok(c) = wire_costs(spec) {
                <table class="compare-table" tabindex="0">
                    <caption>{ "This packet on the wire" }</caption>
                    <thead><tr><th scope="col">{ "Fabric" }</th><th scope="col">{ "Frame" }</th><th scope="col">{ "Link bytes" }</th><th scope="col">{ "Overhead" }</th></tr></thead>
                    <tbody>
                        <tr><th scope="row">{ "RoCE v2 (with FCS, preamble, gap)" }</th><td>{ c.roce.frame }</td><td>{ c.roce.wire }</td><td>{ c.roce.overhead() }</td></tr>
                        if let Some(ib) = c.ib {
                            <tr><th scope="row">{ "InfiniBand (LRH … VCRC)" }</th><td>{ ib.frame }</td><td>{ ib.wire }</td><td>{ ib.overhead() }</td></tr>
                        }
                    </tbody>
                </table>
            }
            <div class="compare-inputs">
                { for FIELDS.iter().zip([size.err(), rate.err()]).map(|(def, error)| html! {
                    <TextField {def} id={format!("roce-{}", def.key)} text={form.text(def.key).to_string()}
                        refusal={error.map(Refusal::plain)} on_type={on_type.clone()} />
                }) }
            </div>
            { goodput }
        </div>
    }
}

/// Packets, wire bytes, efficiency and goodput of a `len`-byte message at two path MTUs,
/// over RoCE v2 and over InfiniBand.
fn goodput_table(
    spec: &PacketSpec,
    (transport, kind): (Transport, MessageKind),
    len: u64,
    rate: f64,
) -> Html {
    let (ipv6, vlan) = (spec.src_ip.is_ipv6(), spec.vlan.is_some());
    let fabrics = [
        ("RoCE v2", Framing::RoceV2 { ipv6, vlan }),
        ("InfiniBand", Framing::Infiniband { grh: false }),
    ];
    let rows = [1024u32, 4096].into_iter().flat_map(|mtu| {
        fabrics.map(|(name, framing)| {
            (
                mtu,
                name,
                message_cost(framing, transport, kind, len, mtu, rate),
            )
        })
    });
    html! {
        <table class="compare-table" tabindex="0">
            <caption>{ format!("A {len}-byte message at {rate} Gb/s") }</caption>
            <thead><tr><th scope="col">{ "MTU" }</th><th scope="col">{ "Fabric" }</th><th scope="col">{ "Packets" }</th><th scope="col">{ "Bytes on the wire" }</th><th scope="col">{ "Efficiency" }</th><th scope="col">{ "Goodput" }</th></tr></thead>
            <tbody>
                { for rows.map(|(mtu, name, cost)| match cost {
                    Ok(c) => html! { <tr><td>{ mtu }</td><td>{ name }</td><td>{ c.packets }</td><td>{ c.wire_bytes }</td><td>{ format!("{:.1} %", c.efficiency * 100.0) }</td><td>{ format!("{:.2} Gb/s", c.goodput_gbps) }</td></tr> },
                    Err(e) => html! { <tr><td>{ mtu }</td><td>{ name }</td><td colspan="4">{ e.to_string() }</td></tr> },
                }) }
            </tbody>
        </table>
    }
}
