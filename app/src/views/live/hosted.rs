//! What the live view says when it has no probe: for a copy of the lab hosted elsewhere, what
//! the probe is, how to get it and the exact command for this site; for any failed attempt,
//! what happened and what to do.

use gloo::utils::window;
use yew::prelude::*;

use super::failure::Advice;
use crate::browser::navigation::reveal_anchor;
use crate::views::page_query;

/// The section of this page's reference text (`content/topics/live.md`) on hosted copies.
pub const HOSTED_SECTION: &str = "connecting-from-a-hosted-copy-of-the-lab";

/// A command is copied whole, so it keeps its line at any width and wraps only when it must
/// (the stylesheet styles `pre` only inside the reference text).
const COMMAND_STYLE: &str = "margin: 0.4rem 0; padding: 0.5rem 0.75rem; background: var(--bg-sunken); border: 1px solid var(--border); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere;";
const COMMAND_CODE_STYLE: &str = "background: none; padding: 0;";
const WORD_STYLE: &str = "display: inline-block;";
/// Paragraphs inside a box, spaced for the box rather than for running text.
const TIGHT: &str = "margin: 0.4rem 0;";
/// A program's name is not broken at its hyphen.
const NAME_STYLE: &str = "white-space: nowrap;";

#[derive(Properties, PartialEq)]
pub struct CommandLineProps {
    pub command: String,
}

#[function_component]
pub fn CommandLine(props: &CommandLineProps) -> Html {
    // Each word is kept whole when it fits a line: a narrow screen breaks the command between
    // words, not after the hyphen of `--allow-origin`. The text copies as typed.
    let words = props.command.split(' ').enumerate().map(|(i, word)| {
        html! { <>{ if i > 0 { " " } else { "" } }<span style={WORD_STYLE}>{ word }</span></> }
    });
    html! {
        <pre class="live-command" style={COMMAND_STYLE}><code style={COMMAND_CODE_STYLE}>{ for words }</code></pre>
    }
}

#[derive(Properties, PartialEq)]
pub struct HostedIntroProps {
    /// `--allow-origin ORIGIN` for this page; `None` when no flag can allow it (a `file:` page).
    pub allow: Option<String>,
    /// The address being tried, as typed in the field.
    pub trying: String,
}

/// The first screen of a hosted copy: what the probe is, how to get it, how to start it.
#[function_component]
pub fn HostedIntro(props: &HostedIntroProps) -> Html {
    // The link stays on this page whatever path the site is served under.
    let here = window().location().pathname().unwrap_or_default();
    let href = format!("{here}#{HOSTED_SECTION}");
    let onclick = Callback::from(|event: MouseEvent| {
        event.prevent_default();
        page_query::replace_anchor(HOSTED_SECTION);
        reveal_anchor();
    });
    // What to do depends on whether any flag can let this page in (a `file:` page: none).
    let (ask, command, in_one_go) = match &props.allow {
        Some(flag) => (
            "This copy of the lab comes from a web host, which has none: start it on your machine, allowing this site:",
            Some(format!("native-probe serve {flag}")),
            html! {
                <>{ " In a checkout, " }<code>{ format!("./lab run {flag}") }</code>{ " builds it and starts it for this site." }</>
            },
        ),
        None => (
            "This copy of the lab was opened from a file, and no probe can allow such a page to connect: serve it over http(s), or open the lab a probe serves itself.",
            None,
            html! {},
        ),
    };
    html! {
        <section class="live-panel live-hosted" aria-labelledby="live-hosted-title">
            <h2 class="live-panel-title" id="live-hosted-title">{ "Connect the probe on your machine" }</h2>
            <p style={TIGHT}>
                <code style={NAME_STYLE}>{ "native-probe" }</code>
                { ", the lab's companion program, reads your machine's RDMA and network counters (from /sys, read-only) and streams them to this page alone. " }
                { ask }
            </p>
            if let Some(command) = command {
                <CommandLine {command} />
            }
            <ul>
                <li>
                    { "No probe yet? Get it from the lab's repository (it needs Rust): " }<code>{ "./lab run" }</code>
                    { " builds the site and the probe and starts it; " }<code>{ "cargo build --release -p native-probe" }</code>
                    { " builds the probe alone, into target/release/." }
                    { in_one_go }
                </li>
                <li>{ format!("This page is trying {} and connects as soon as the probe answers. For a probe on another address, change it below.", props.trying) }</li>
            </ul>
            <p style={TIGHT}><a {href} {onclick}>{ "Why the flag, and what your browser may ask" }</a></p>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct ConnectProblemProps {
    pub advice: Advice,
}

/// What went wrong with the last attempt and what to do, told as its own kind of failure.
#[function_component]
pub fn ConnectProblem(props: &ConnectProblemProps) -> Html {
    let advice = &props.advice;
    html! {
        <div class="live-error live-problem" role="alert">
            <p style={TIGHT}><strong>{ advice.headline.clone() }</strong></p>
            { for advice.before.iter().map(|text| html! { <p style={TIGHT}>{ text.clone() }</p> }) }
            if let Some(command) = &advice.command {
                <CommandLine command={command.clone()} />
            }
            { for advice.after.iter().map(|text| html! { <p style={TIGHT}>{ text.clone() }</p> }) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topics::text_of;

    #[test]
    fn the_intro_links_to_a_section_the_page_has() {
        let live = text_of("/live").expect("a /live topic");
        assert!(
            live.contains(&format!("id=\"{HOSTED_SECTION}\"")),
            "content/topics/live.md has no heading with the anchor {HOSTED_SECTION}"
        );
    }
}
