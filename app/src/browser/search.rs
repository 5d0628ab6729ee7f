//! The search box: the index (`search.txt`) is fetched the first time the learner focuses
//! the box or types in it; results show as you type, ↑/↓ choose, Enter or a click opens
//! the page at the heading, Escape clears, and `/` anywhere but a text field focuses it.

use std::cell::RefCell;

use engine::search::{Hit, SearchIndex};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::utils::{document, window};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, KeyboardEvent};

use super::navigation::{go, Target};
use super::{fetch_text, find};
use crate::base;
use crate::search_index;
use crate::topics::Topic;

const RESULTS_SHOWN: usize = 8;
/// User Timing names the bench reads to measure the work of one keystroke.
const KEYSTROKE_MARK: &str = "lab-search-input";
const KEYSTROKE_MEASURE: &str = "lab-search";

enum Index {
    NotAsked,
    Loading,
    /// Built once and kept for the page's life.
    Ready(&'static SearchIndex<'static>),
    Failed(String),
}

struct Search {
    index: Index,
    hits: Vec<Hit<'static>>,
    active: usize,
}

thread_local! {
    static SEARCH: RefCell<Search> = const {
        RefCell::new(Search { index: Index::NotAsked, hits: Vec::new(), active: 0 })
    };
}

fn input() -> Option<HtmlInputElement> {
    find(".search-input")
}

/// The route path (with its anchor) a result leads to.
fn target(hit: &Hit) -> String {
    match hit.section.anchor {
        "" => hit.section.path.to_string(),
        anchor => format!("{}#{anchor}", hit.section.path),
    }
}

/// The index over the published file. It lives as long as the page, so it is leaked once.
fn build(text: String) -> Result<&'static SearchIndex<'static>, String> {
    let text: &'static str = Box::leak(text.into_boxed_str());
    let sections = search_index::decode(text)?;
    Ok(Box::leak(Box::new(SearchIndex::new(Box::leak(
        sections.into_boxed_slice(),
    )))))
}

fn want_index() {
    let ask = SEARCH.with(|s| {
        let mut s = s.borrow_mut();
        let ask = matches!(s.index, Index::NotAsked);
        if ask {
            s.index = Index::Loading;
        }
        ask
    });
    if ask {
        wasm_bindgen_futures::spawn_local(async {
            let index = match fetch_text(search_index::FILE).await.and_then(build) {
                Ok(index) => Index::Ready(index),
                Err(reason) => Index::Failed(reason),
            };
            SEARCH.with(|s| s.borrow_mut().index = index);
            refresh();
        });
    }
}

fn element(tag: &str, class: Option<&str>) -> Element {
    let element = document()
        .create_element(tag)
        .expect("creating an element of a known tag");
    if let Some(class) = class {
        element.set_class_name(class);
    }
    element
}

/// The excerpt with its matched terms wrapped in `<mark>`, as text nodes (never as HTML).
fn excerpt(hit: &Hit, into: &Element) {
    let mut last = 0;
    for &(from, to) in &hit.marks {
        let _ = into.append_with_str_1(&hit.excerpt[last..from]);
        let mark = element("mark", None);
        mark.set_text_content(Some(&hit.excerpt[from..to]));
        let _ = into.append_child(&mark);
        last = to;
    }
    let _ = into.append_with_str_1(&hit.excerpt[last..]);
}

/// Runs the query in the box and draws its results.
fn refresh() {
    let Some(field) = input() else {
        return;
    };
    let query = field.value();
    SEARCH.with(|s| {
        let mut s = s.borrow_mut();
        s.hits = match s.index {
            Index::Ready(index) => index.search(&query, RESULTS_SHOWN),
            _ => Vec::new(),
        };
        s.active = s.active.min(s.hits.len().saturating_sub(1));
    });
    draw(&field, query.trim());
}

fn draw(field: &HtmlInputElement, query: &str) {
    if let Some(old) = document().get_element_by_id("search-results") {
        old.remove();
    }
    let showing = !query.is_empty();
    let _ = field.set_attribute("aria-expanded", if showing { "true" } else { "false" });
    let _ = field.remove_attribute("aria-activedescendant");
    if !showing {
        return;
    }
    let list = element("ul", Some("search-results"));
    list.set_id("search-results");
    let _ = list.set_attribute("role", "listbox");
    let _ = list.set_attribute("aria-label", "Search results");
    SEARCH.with(|s| {
        let s = s.borrow();
        for (index, hit) in s.hits.iter().enumerate() {
            let item = element("li", (index == s.active).then_some("active"));
            item.set_id(&format!("search-result-{index}"));
            let _ = item.set_attribute("role", "option");
            let _ = item.set_attribute("aria-selected", &(index == s.active).to_string());
            let link = element("a", None);
            let _ = link.set_attribute("href", &base::href(&target(hit)));
            let _ = link.set_attribute("tabindex", "-1");
            let place = element("span", Some("search-result-where"));
            let title = Topic::at_path(hit.section.path)
                .map(|t| t.title)
                .unwrap_or_default();
            place.set_text_content(Some(&match hit.section.anchor {
                "" => title.to_string(),
                _ => format!("{title} › {}", hit.section.heading),
            }));
            let text = element("span", Some("search-result-excerpt"));
            excerpt(hit, &text);
            let _ = link.append_child(&place);
            let _ = link.append_child(&text);
            let _ = item.append_child(&link);
            let _ = list.append_child(&item);
        }
        if s.hits.is_empty() {
            let empty = element("li", Some("search-empty"));
            let _ = empty.set_attribute("role", "option");
            let _ = empty.set_attribute("aria-selected", "false");
            empty.set_text_content(Some(&match &s.index {
                Index::Ready(_) => format!("Nothing matches “{query}”."),
                Index::Failed(reason) => format!("Search is unavailable: {reason}."),
                Index::NotAsked | Index::Loading => "Loading the search index…".to_string(),
            }));
            let _ = list.append_child(&empty);
        } else {
            let _ = field.set_attribute(
                "aria-activedescendant",
                &format!("search-result-{}", s.active),
            );
        }
    });
    if let Some(search) = field.parent_element() {
        let _ = search.append_child(&list);
    }
}

/// Empties the box and hides its results (after a result is opened).
pub fn close() {
    if let Some(field) = input() {
        if !field.value().is_empty() {
            field.set_value("");
            SEARCH.with(|s| s.borrow_mut().active = 0);
            refresh();
        }
    }
}

/// Opens the chosen result (Enter); the key then does nothing else.
fn open_active(event: &KeyboardEvent) {
    let chosen = SEARCH.with(|s| {
        let s = s.borrow();
        s.hits.get(s.active).map(target)
    });
    if let Some(target) = chosen.as_deref().and_then(Target::of) {
        event.prevent_default();
        go(target);
    }
}

fn typing_in_a_field(event: &KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|e| {
            matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || e.closest("[contenteditable]").ok().flatten().is_some()
        })
}

pub fn start() {
    let Some(field) = input() else {
        return;
    };
    EventListener::new(&field, "focus", |_| want_index()).forget();
    EventListener::new(&field, "input", |_| {
        if let Some(performance) = window().performance() {
            let _ = performance.mark(KEYSTROKE_MARK);
        }
        want_index();
        SEARCH.with(|s| s.borrow_mut().active = 0);
        refresh();
        // The keystroke's work ends when its results are on the page.
        if let Some(performance) = window().performance() {
            let _ = performance.measure_with_start_mark(KEYSTROKE_MEASURE, KEYSTROKE_MARK);
            performance.clear_marks_with_mark_name(KEYSTROKE_MARK);
        }
    })
    .forget();
    let options = EventListenerOptions::enable_prevent_default();
    EventListener::new_with_options(&field, "keydown", options, |event| {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        let count = SEARCH.with(|s| s.borrow().hits.len());
        let step = |active: usize| {
            SEARCH.with(|s| s.borrow_mut().active = active);
            refresh();
        };
        let active = SEARCH.with(|s| s.borrow().active);
        match event.key().as_str() {
            "ArrowDown" if count > 0 => {
                event.prevent_default();
                step((active + 1).min(count - 1));
            }
            "ArrowUp" => {
                event.prevent_default();
                step(active.saturating_sub(1));
            }
            "Enter" => open_active(event),
            "Escape" => close(),
            _ => {}
        }
    })
    .forget();
    // `/` anywhere but in a text field focuses the search box.
    EventListener::new_with_options(&document(), "keydown", options, |event| {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if event.key() == "/" && !event.ctrl_key() && !event.meta_key() && !typing_in_a_field(event)
        {
            if let Some(field) = input() {
                event.prevent_default();
                let _ = field.focus();
            }
        }
    })
    .forget();
}
