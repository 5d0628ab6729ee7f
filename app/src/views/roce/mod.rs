//! The RoCE v2 packets page: a builder over the engine's `PacketSpec`, a linked
//! layer/hex dissector, the encapsulation stepper, RoCE v2 beside native InfiniBand,
//! and a capture reader with a per-QP PSN timeline.

mod builder;
mod capture;
mod compare;
mod dissector;
mod encap;
mod form;

use std::cell::RefCell;
use std::rc::Rc;

use engine::capture::exercise::EXERCISES;
use engine::capture::pcap::{write_pcap, CapturedFrame};
use engine::capture::spec::build;
use engine::capture::LinkType;
use yew::prelude::*;

use builder::Builder;
use capture::CaptureView;
use compare::Compare;
use dissector::Dissector;
use encap::Encapsulation;
use form::Form;

use super::try_this::{attempts, use_tried, TryThis};
use super::{download, page_query};

/// Offers `bytes` as a one-frame pcap download.
fn download_pcap(bytes: &[u8]) -> Result<(), String> {
    let frame = CapturedFrame {
        timestamp_ns: 0,
        orig_len: bytes.len() as u32,
        link_type: LinkType::Ethernet,
        data: bytes.to_vec(),
    };
    let file = write_pcap(&[frame]).map_err(|e| e.to_string())?;
    download::save_bytes(&file, "roce-packet.pcap", "application/vnd.tcpdump.pcap")
}

/// A link into the reference text (the shell follows it without reloading).
#[derive(Properties, PartialEq)]
struct RefLinkProps {
    href: &'static str,
    children: Html,
}

#[function_component]
fn RefLink(props: &RefLinkProps) -> Html {
    html! { <a href={crate::base::href(props.href)}>{ props.children.clone() }</a> }
}

#[function_component]
pub fn RoceView() -> Html {
    // The URL's query holds the fields that differ from their defaults.
    let form = use_state(|| Form::from_pairs(page_query::read().into_iter()));
    let edited = use_state(|| None::<Rc<Vec<u8>>>);
    // Before any packet of this form has built (a link with a bad value), the packet shown
    // is the form's own with the refused fields at their defaults, so it is the operation
    // the form names.
    let last_good = {
        let form = (*form).clone();
        use_mut_ref(move || {
            let spec = form.nearest_buildable();
            let bytes = build(&spec).unwrap_or_default();
            (spec, Rc::new(bytes))
        })
    };
    let download_error = use_state(|| None::<String>);
    let (tried, on_inspect) = use_tried(&EXERCISES);
    use_effect_with((*form).clone(), |form| {
        page_query::replace(&form.changed_pairs())
    });

    let errors = match form.to_spec() {
        Ok(spec) => match build(&spec) {
            Ok(bytes) => {
                let mut good = RefCell::borrow_mut(&last_good);
                if good.0 != spec {
                    *good = (spec, Rc::new(bytes));
                }
                Vec::new()
            }
            Err(e) => vec![form::build_error_field(&e)],
        },
        Err(errors) => errors,
    };
    let (spec, built) = RefCell::borrow(&last_good).clone();
    let bytes = (*edited).clone().unwrap_or_else(|| built.clone());

    let on_change = {
        let (form, edited) = (form.clone(), edited.clone());
        Callback::from(move |(key, value): (&'static str, String)| {
            let mut f = (*form).clone();
            f.set(key, value);
            form.set(f);
            edited.set(None);
        })
    };
    let on_edit = {
        let edited = edited.clone();
        Callback::from(move |b: Vec<u8>| edited.set(Some(Rc::new(b))))
    };
    let reset_edit = {
        let edited = edited.clone();
        Callback::from(move |_| edited.set(None))
    };
    let download = {
        let (bytes, download_error) = (bytes.clone(), download_error.clone());
        Callback::from(move |_| download_error.set(download_pcap(&bytes).err()))
    };

    html! {
        <div class="roce-view">
            <TryThis view="roce" attempts={attempts(&EXERCISES, tried)} />
            <nav class="roce-refs" aria-label="Background reading">
                { "Background: " }
                <RefLink href="/roce#roce-v2-header-by-header">{ "headers" }</RefLink>{ " · " }
                <RefLink href="/roce#a-special-packet-the-cnp">{ "the CNP" }</RefLink>{ " · " }
                <RefLink href="/roce#per-packet-overhead-of-a-typical-roce-v2-packet">{ "overhead" }</RefLink>{ " · " }
                <RefLink href="/roce#native-infiniband-framing-for-comparison">{ "native IB framing" }</RefLink>{ " · " }
                <RefLink href="/lossless">{ "lossless Ethernet" }</RefLink>{ " · " }
                <RefLink href="/lossless#cnps-the-receivers-answer">{ "CNPs and ECN" }</RefLink>{ " · " }
                <RefLink href="/dcqcn">{ "DCQCN" }</RefLink>
            </nav>

            <section class="roce-section" aria-labelledby="roce-build">
                <h2 id="roce-build">{ "Build a packet" }</h2>
                <Builder form={(*form).clone()} errors={errors.clone()} on_change={on_change} />
                <div class="roce-actions">
                    <button type="button" class="download-pcap" onclick={download}>{ "Download as pcap" }</button>
                    if edited.is_some() {
                        <button type="button" onclick={reset_edit}>{ "Discard byte edits" }</button>
                        <span class="roce-note">{ "Showing your edited bytes; changing the form rebuilds the packet." }</span>
                    }
                    if !errors.is_empty() {
                        <span class="roce-note">{ "Fix the marked fields; the last valid packet is shown." }</span>
                    }
                </div>
                if let Some(e) = download_error.as_ref() { <p class="field-error" role="alert">{ e }</p> }
            </section>

            <section class="roce-section" aria-labelledby="roce-dissect">
                <h2 id="roce-dissect">{ "The packet, layer by layer" }</h2>
                <p class="roce-help">{ "Open a layer and pick a field to see its bytes; point at a byte, or focus the bytes and use the arrow keys, to find its field." }</p>
                <Dissector bytes={bytes.clone()} link={LinkType::Ethernet} on_edit={on_edit} id="builder" {on_inspect} />
            </section>

            <section class="roce-section" aria-labelledby="roce-encap">
                <h2 id="roce-encap">{ "Encapsulation" }</h2>
                <Encapsulation bytes={bytes.clone()} />
            </section>

            <section class="roce-section" aria-labelledby="roce-vs-ib">
                <h2 id="roce-vs-ib">{ "RoCE v2 beside native InfiniBand" }</h2>
                <Compare spec={spec} />
            </section>

            <section class="roce-section" aria-labelledby="roce-capture">
                <h2 id="roce-capture">{ "Read a capture" }</h2>
                <CaptureView />
            </section>
        </div>
    }
}
