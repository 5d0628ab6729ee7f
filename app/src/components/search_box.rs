use engine::search::{Hit, SearchIndex};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::utils::{document, window};
use wasm_bindgen::JsCast;
use yew::prelude::*;
use yew_router::prelude::*;

use crate::base;
use crate::navigation::{go_to, internal_target};
use crate::topics::{Topic, SEARCH_SECTIONS};

const RESULTS_SHOWN: usize = 8;
/// User Timing names the bench reads to measure the work of one keystroke.
const KEYSTROKE_MARK: &str = "lab-search-input";
const KEYSTROKE_MEASURE: &str = "lab-search";

thread_local! {
    // Lowercasing the corpus once costs a few milliseconds; do it on first use, not at start-up.
    static INDEX: SearchIndex<'static> = SearchIndex::new(SEARCH_SECTIONS);
}

fn search(query: &str) -> Vec<Hit<'static>> {
    INDEX.with(|index| index.search(query, RESULTS_SHOWN))
}

fn href(hit: &Hit) -> String {
    base::href(&match hit.section.anchor {
        "" => hit.section.path.to_string(),
        anchor => format!("{}#{anchor}", hit.section.path),
    })
}

/// The excerpt with its matched terms wrapped in `<mark>`.
fn excerpt(hit: &Hit) -> Html {
    let mut parts = Vec::new();
    let mut last = 0;
    for &(from, to) in &hit.marks {
        parts.push(html! { { &hit.excerpt[last..from] } });
        parts.push(html! { <mark>{ &hit.excerpt[from..to] }</mark> });
        last = to;
    }
    parts.push(html! { { &hit.excerpt[last..] } });
    parts.into_iter().collect()
}

fn typing_in_a_field(event: &KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| {
            matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || e.closest("[contenteditable]").ok().flatten().is_some()
        })
}

/// Search over every topic: results as you type, `/` to focus, Enter or a click to jump.
#[function_component]
pub fn SearchBox() -> Html {
    let query = use_state(String::new);
    let active = use_state(|| 0usize);
    let input = use_node_ref();
    let navigator = use_navigator();
    let hits = use_memo((*query).clone(), |q| search(q));

    // `/` anywhere but in a text field focuses the search box.
    {
        let input = input.clone();
        use_effect_with((), move |_| {
            let options = EventListenerOptions::enable_prevent_default();
            let listener =
                EventListener::new_with_options(&document(), "keydown", options, move |event| {
                    let Some(event) = event.dyn_ref::<KeyboardEvent>() else {
                        return;
                    };
                    if event.key() == "/"
                        && !event.ctrl_key()
                        && !event.meta_key()
                        && !typing_in_a_field(event)
                    {
                        if let Some(field) = input.cast::<web_sys::HtmlInputElement>() {
                            event.prevent_default();
                            let _ = field.focus();
                        }
                    }
                });
            move || drop(listener)
        });
    }

    // The keystroke's work ends when its results are on the page.
    use_effect_with(hits.clone(), |_| {
        if let Some(performance) = window().performance() {
            if performance.get_entries_by_name(KEYSTROKE_MARK).length() > 0 {
                let _ = performance.measure_with_start_mark(KEYSTROKE_MEASURE, KEYSTROKE_MARK);
                performance.clear_marks_with_mark_name(KEYSTROKE_MARK);
            }
        }
    });

    let open = move |hit: &Hit| {
        if let (Some(navigator), Some((route, anchor))) =
            (navigator.as_ref(), internal_target(&href(hit)))
        {
            go_to(navigator, &route, anchor.as_deref());
        }
    };

    let oninput = {
        let query = query.clone();
        let active = active.clone();
        Callback::from(move |event: InputEvent| {
            if let Some(performance) = window().performance() {
                let _ = performance.mark(KEYSTROKE_MARK);
            }
            let field: web_sys::HtmlInputElement = event.target_unchecked_into();
            active.set(0);
            query.set(field.value());
        })
    };

    let onkeydown = {
        let query = query.clone();
        let active = active.clone();
        let hits = hits.clone();
        let open = open.clone();
        Callback::from(move |event: KeyboardEvent| match event.key().as_str() {
            "ArrowDown" if !hits.is_empty() => {
                event.prevent_default();
                active.set((*active + 1).min(hits.len() - 1));
            }
            "ArrowUp" => {
                event.prevent_default();
                active.set(active.saturating_sub(1));
            }
            "Enter" => {
                if let Some(hit) = hits.get(*active) {
                    event.prevent_default();
                    open(hit);
                    query.set(String::new());
                }
            }
            "Escape" => query.set(String::new()),
            _ => {}
        })
    };

    let showing = !query.trim().is_empty();
    let results = hits.iter().enumerate().map(|(index, hit)| {
        let topic_title = Topic::at_path(hit.section.path).map(|t| t.title).unwrap_or_default();
        let onclick = {
            let query = query.clone();
            let open = open.clone();
            let hit = hit.clone();
            Callback::from(move |event: MouseEvent| {
                if event.button() == 0 && !(event.ctrl_key() || event.meta_key() || event.shift_key()) {
                    event.prevent_default();
                    open(&hit);
                    query.set(String::new());
                }
            })
        };
        let selected = index == *active;
        html! {
            <li id={format!("search-result-{index}")} role="option" aria-selected={selected.to_string()} class={classes!(selected.then_some("active"))}>
                <a href={href(hit)} tabindex="-1" {onclick}>
                    <span class="search-result-where">
                        { topic_title }
                        if !hit.section.anchor.is_empty() { { " › " }{ hit.section.heading } }
                    </span>
                    <span class="search-result-excerpt">{ excerpt(hit) }</span>
                </a>
            </li>
        }
    });

    html! {
        <div class="search" role="search">
            <input
                ref={input}
                type="search"
                class="search-input"
                placeholder="Search  ( / )"
                aria-label="Search the lab"
                role="combobox"
                aria-autocomplete="list"
                aria-controls="search-results"
                aria-expanded={showing.to_string()}
                aria-activedescendant={(showing && !hits.is_empty()).then(|| format!("search-result-{}", *active))}
                autocomplete="off"
                spellcheck="false"
                value={(*query).clone()}
                {oninput}
                {onkeydown}
            />
            if showing {
                <ul id="search-results" class="search-results" role="listbox" aria-label="Search results">
                    { for results }
                    if hits.is_empty() {
                        <li class="search-empty" role="option" aria-selected="false">{ format!("Nothing matches “{}”.", query.trim()) }</li>
                    }
                </ul>
            }
        </div>
    }
}
