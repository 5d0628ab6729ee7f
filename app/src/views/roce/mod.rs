//! The RoCE v2 packets page: a builder over the engine's `PacketSpec`, a linked
//! layer/hex dissector, the encapsulation stepper, RoCE v2 beside native InfiniBand,
//! and a capture reader with a per-QP PSN timeline.

mod builder;
mod capture;
mod compare;
mod dissector;
mod encap;
mod form;

use std::rc::Rc;

use engine::capture::exercise::EXERCISES;
use engine::capture::pcap::{write_pcap, CapturedFrame};
use engine::capture::spec::{build, PacketSpec};
use engine::capture::verbs::{origin, PacketOrigin};
use engine::capture::LinkType;
use yew::prelude::*;

use builder::Builder;
use capture::CaptureView;
use compare::Compare;
use dissector::Dissector;
use encap::Encapsulation;
use form::SpecTexts;

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

/// The page: the learner's form, the packet it last built, and any byte edits.
#[derive(Clone, PartialEq)]
struct Page {
    form: SpecTexts,
    /// The packet shown: the form's last one that built. Before any has (a link with a bad
    /// value), the form's own with the refused fields at their defaults, so it is the
    /// operation the form names.
    spec: PacketSpec,
    built: Rc<Vec<u8>>,
    /// Refusals, by form key.
    errors: Vec<(&'static str, String)>,
    /// Bytes the learner edited in the hex, shown instead of the built packet.
    edited: Option<Rc<Vec<u8>>>,
    download_error: Option<String>,
}

enum PageAction {
    Set(&'static str, String),
    Edit(Vec<u8>),
    DiscardEdits,
    Downloaded(Result<(), String>),
}

impl Page {
    fn new(form: SpecTexts) -> Page {
        let spec = form.nearest_buildable();
        let built = Rc::new(build(&spec).unwrap_or_default());
        let (errors, edited, download_error) = (Vec::new(), None, None);
        let mut page = Page {
            form,
            spec,
            built,
            errors,
            edited,
            download_error,
        };
        page.check();
        page
    }
    /// Builds the form's packet, or puts each refusal at its box and keeps the last one.
    fn check(&mut self) {
        self.errors = match self.form.to_spec() {
            Ok(spec) => match build(&spec) {
                Ok(bytes) if spec != self.spec => {
                    (self.spec, self.built) = (spec, Rc::new(bytes));
                    Vec::new()
                }
                Ok(_) => Vec::new(),
                Err(e) => vec![form::build_error_field(&e)],
            },
            Err(errors) => errors,
        };
    }
    fn bytes(&self) -> Rc<Vec<u8>> {
        self.edited.clone().unwrap_or_else(|| self.built.clone())
    }
}

impl Reducible for Page {
    type Action = PageAction;
    fn reduce(self: Rc<Self>, action: PageAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            PageAction::Set(key, value) => {
                next.form.set(key, value);
                next.edited = None;
                next.check();
            }
            PageAction::Edit(bytes) => next.edited = Some(Rc::new(bytes)),
            PageAction::DiscardEdits => next.edited = None,
            PageAction::Downloaded(result) => next.download_error = result.err(),
        }
        Rc::new(next)
    }
}

#[function_component]
pub fn RoceView() -> Html {
    // The URL's query holds the fields that differ from their defaults.
    let page = use_reducer(|| Page::new(SpecTexts::from_pairs(page_query::read().into_iter())));
    let (tried, on_inspect) = use_tried(&EXERCISES);
    use_effect_with(page.form.clone(), |form| {
        page_query::replace(&form.changed_pairs())
    });
    let on = page.dispatcher().to_callback();
    let bytes = page.bytes();
    let on_download = {
        let (bytes, on) = (bytes.clone(), on.clone());
        Callback::from(move |_| on.emit(PageAction::Downloaded(download_pcap(&bytes))))
    };
    html! {
        <div class="roce-view">
            <TryThis view="roce" attempts={attempts(&EXERCISES, tried)} />
            <Reading />
            <section class="roce-section" aria-labelledby="roce-build">
                <h2 id="roce-build">{ "Build a packet" }</h2>
                <Builder form={page.form.clone()} errors={page.errors.clone()}
                    on_change={on.reform(|(key, value)| PageAction::Set(key, value))} />
                <div class="roce-actions">
                    <button type="button" class="download-pcap" onclick={on_download}>{ "Download as pcap" }</button>
                    if page.edited.is_some() {
                        <button type="button" onclick={on.reform(|_| PageAction::DiscardEdits)}>{ "Discard byte edits" }</button>
                        <span class="roce-note">{ "Showing your edited bytes; changing the form rebuilds the packet." }</span>
                    }
                    if !page.errors.is_empty() {
                        <span class="roce-note">{ "Fix the marked fields; the last valid packet is shown." }</span>
                    }
                </div>
                if let Some(e) = &page.download_error { <p class="field-error" role="alert">{ e }</p> }
                <VerbsCall spec={page.spec.clone()} />
            </section>
            <section class="roce-section" aria-labelledby="roce-dissect">
                <h2 id="roce-dissect">{ "The packet, layer by layer" }</h2>
                <p class="roce-help">{ "Open a layer and pick a field to see its bytes; point at a byte, or focus the bytes and use the arrow keys, to find its field." }</p>
                <Dissector bytes={bytes.clone()} link={LinkType::Ethernet} on_edit={on.reform(PageAction::Edit)} id="builder" {on_inspect} />
            </section>
            <section class="roce-section" aria-labelledby="roce-encap">
                <h2 id="roce-encap">{ "Encapsulation" }</h2>
                <Encapsulation {bytes} />
            </section>
            <section class="roce-section" aria-labelledby="roce-vs-ib">
                <h2 id="roce-vs-ib">{ "RoCE v2 beside native InfiniBand" }</h2>
                <Compare spec={page.spec.clone()} />
            </section>
            <section class="roce-section" aria-labelledby="roce-capture">
                <h2 id="roce-capture">{ "Read a capture" }</h2>
                <CaptureView />
            </section>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct VerbsCallProps {
    spec: PacketSpec,
}

/// The `ibv_post_send()` call that sends the form's packet, or what sends it instead.
#[function_component]
fn VerbsCall(props: &VerbsCallProps) -> Html {
    html! {
        <details class="roce-verbs">
            <summary>{ "The verbs call that sends this packet" }</summary>
            { match origin(&props.spec) {
                PacketOrigin::Posted(source) => html! { <pre><code>{ source }</code></pre> },
                PacketOrigin::Nic(why) => html! { <p>{ why }</p> },
            } }
        </details>
    }
}

/// Where the page's background is explained.
#[function_component]
fn Reading() -> Html {
    html! {
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
    }
}
