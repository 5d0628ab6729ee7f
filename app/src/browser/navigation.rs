//! Moving between pages without reloading. Every link to a topic, wherever it is drawn (the
//! sidebar, the text, a view's own module, a search result), is followed by one listener on
//! the document: the topic's main region is fetched (`text/<slug>.html`, which `prerender`
//! rendered from the same component as the page) and put in place of the current one, and
//! the URL is the topic's own page, which a reload serves. Back and forward do the same.
//! The narrow-screen menu and the skip link live here too: both are about where you go.

use std::cell::{Cell, RefCell};

use gloo::events::{EventListener, EventListenerOptions};
use gloo::utils::{document, window};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement, KeyboardEvent, MouseEvent, ScrollIntoViewOptions};

use super::{fetch_text, find, search, views};
use crate::base;
use crate::topics::Topic;

thread_local! {
    /// Counts page changes, so a slow fetch cannot replace a page the learner has left.
    static SHOWING: Cell<u32> = const { Cell::new(0) };
    /// Where the page was just scrolled to, kept until the page's view has its size: a view
    /// that grows above an anchor pushes it down, so the place is taken again then, unless
    /// the learner has moved meanwhile ([`LEARNER_MOVED`]).
    static PENDING: RefCell<Option<Place>> = const { RefCell::new(None) };
    /// The learner scrolled by wheel, touch or key since the last reveal. Offsets cannot
    /// tell: the view's own growth moves them too.
    static LEARNER_MOVED: Cell<bool> = const { Cell::new(false) };
}

/// Where a page is shown from.
#[derive(Debug, Clone, PartialEq)]
enum Place {
    /// The element the URL's `#anchor` names, or the top when it names none.
    Anchor,
    /// A scroll offset kept in the history entry: where the learner was when they left.
    Offset(f64),
}

/// The history state key holding the scroll offset of the page an entry shows.
const SCROLL_KEY: &str = "scrollY";

/// A topic and, optionally, a heading on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub topic: &'static Topic,
    pub anchor: Option<String>,
}

impl Target {
    /// The topic a route path names (`/qp`, `/qp/`, `/lossless#pfc`); `None` for one the lab
    /// has no page for.
    pub fn of(route_path: &str) -> Option<Target> {
        let (path, anchor) = match route_path.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor.to_string()).filter(|a| !a.is_empty())),
            None => (route_path, None),
        };
        let path = path.trim_end_matches('/');
        let topic = Topic::at_path(if path.is_empty() { "/" } else { path })?;
        Some(Target { topic, anchor })
    }

    fn href(&self) -> String {
        match &self.anchor {
            Some(anchor) => base::href(&format!("{}#{anchor}", self.topic.path)),
            None => base::href(self.topic.path),
        }
    }
}

/// The topic the address bar shows.
fn here() -> Option<Target> {
    let location = window().location();
    let path = base::route_path(&location.pathname().ok()?)?;
    Target::of(&format!("{path}{}", location.hash().unwrap_or_default()))
}

/// The in-app target of a plain click on a link to a page of this site. `None` for a click
/// the browser should handle: another button or a modifier key, a link that opens elsewhere
/// or downloads, one with its own query (a view's state: loaded as the page it names), or
/// one that leaves the site.
fn clicked(event: &MouseEvent) -> Option<Target> {
    let plain = event.button() == 0
        && !(event.ctrl_key() || event.meta_key() || event.shift_key() || event.alt_key());
    if !plain || event.default_prevented() {
        return None;
    }
    let link = event
        .target()?
        .dyn_into::<Element>()
        .ok()?
        .closest("a[href]")
        .ok()??
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .ok()?;
    if !link.target().is_empty() || link.has_attribute("download") {
        return None;
    }
    let url = web_sys::Url::new(&link.href()).ok()?;
    if url.origin() != window().location().origin().ok()? || !url.search().is_empty() {
        return None;
    }
    let path = base::route_path(&url.pathname())?;
    Target::of(&format!("{path}{}", url.hash()))
}

/// Shows `target`: on this page, brings its heading into view; on another, swaps the main
/// region and adds a history entry.
pub fn go(target: Target) {
    search::close();
    close_menu();
    remember_scroll();
    if shown(target.topic) {
        // Also cancels a page still being fetched.
        SHOWING.with(|showing| showing.set(showing.get() + 1));
        // A link within the page keeps the page's query (a view's state).
        let location = window().location();
        let url = format!(
            "{}{}{}",
            location.pathname().unwrap_or_default(),
            location.search().unwrap_or_default(),
            target
                .anchor
                .as_ref()
                .map(|a| format!("#{a}"))
                .unwrap_or_default()
        );
        if let Ok(history) = window().history() {
            let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&url));
        }
        reveal(Place::Anchor);
        return;
    }
    if let Ok(history) = window().history() {
        let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&target.href()));
    }
    show(target, Place::Anchor);
}

/// Keeps the scroll offset in the current history entry, so Back comes to the same place.
fn remember_scroll() {
    let (Ok(history), Ok(y)) = (window().history(), window().scroll_y()) else {
        return;
    };
    let state = js_sys::Object::new();
    if js_sys::Reflect::set(&state, &SCROLL_KEY.into(), &y.into()).is_ok() {
        let _ = history.replace_state(&state, "");
    }
}

/// The scroll offset a history entry kept, if any.
fn kept_offset(state: &JsValue) -> Option<f64> {
    js_sys::Reflect::get(state, &SCROLL_KEY.into())
        .ok()?
        .as_f64()
}

/// Puts `target`'s page in the main region. If its text cannot be fetched, the browser loads
/// the page itself, which says what went wrong if the host is unreachable.
fn show(target: Target, place: Place) {
    let turn = SHOWING.with(|showing| {
        showing.set(showing.get() + 1);
        showing.get()
    });
    wasm_bindgen_futures::spawn_local(async move {
        let fetched = fetch_text(&base::text_file(target.topic.path)).await;
        if SHOWING.with(Cell::get) != turn {
            return;
        }
        let (Ok(html), Some(main)) = (fetched, find::<HtmlElement>("#main")) else {
            let _ = window().location().reload();
            return;
        };
        views::unmount();
        main.set_inner_html(&html);
        document().set_title(&format!("{} · rdma-lab", target.topic.title));
        mark_current(target.topic);
        reveal(place);
        views::mount_in_page();
    });
}

/// Whether the main region shows `topic` now.
fn shown(topic: &Topic) -> bool {
    find::<Element>("#main article[data-topic]")
        .and_then(|article| article.get_attribute("data-topic"))
        .as_deref()
        == Some(topic.path)
}

/// Marks the sidebar's link to `topic` as the current page.
fn mark_current(topic: &Topic) {
    let Ok(links) = document().query_selector_all("#topics a[data-topic]") else {
        return;
    };
    for index in 0..links.length() {
        let Some(link) = links.item(index).and_then(|l| l.dyn_into::<Element>().ok()) else {
            continue;
        };
        let current = link.get_attribute("data-topic").as_deref() == Some(topic.path);
        if current {
            let _ = link.set_attribute("aria-current", "page");
            let _ = link.class_list().add_1("current");
        } else {
            let _ = link.remove_attribute("aria-current");
            let _ = link.class_list().remove_1("current");
        }
    }
}

/// Scrolls to `place` now, and again once the page's view has its size
/// ([`view_settled`]).
fn reveal(place: Place) {
    scroll_to(&place);
    LEARNER_MOVED.with(|moved| moved.set(false));
    PENDING.with(|pending| *pending.borrow_mut() = Some(place));
}

/// Scrolls to the element the URL's `#anchor` names, or to the top when there is none.
pub fn reveal_anchor() {
    reveal(Place::Anchor);
}

fn scroll_to(place: &Place) {
    match place {
        Place::Offset(y) => window().scroll_to_with_x_and_y(0.0, *y),
        Place::Anchor => {
            let hash = window().location().hash().unwrap_or_default();
            let anchor = hash.trim_start_matches('#');
            let element = (!anchor.is_empty())
                .then(|| document().get_element_by_id(anchor))
                .flatten();
            match element {
                Some(element) => {
                    let options = ScrollIntoViewOptions::new();
                    element.scroll_into_view_with_scroll_into_view_options(&options);
                }
                None => window().scroll_to_with_x_and_y(0.0, 0.0),
            }
        }
    }
}

/// The page's view has taken its size: the place last revealed moved with the text below
/// the view, so it is taken again, unless the learner scrolled in the meantime. A page
/// opened from its URL starts with the place its anchor names.
pub fn view_settled() {
    let Some(place) = PENDING.with(|pending| pending.borrow_mut().take()) else {
        return;
    };
    if !LEARNER_MOVED.with(Cell::get) {
        scroll_to(&place);
    }
}

fn set_menu(open: bool) {
    if let (Some(button), Some(menu)) =
        (find::<Element>(".menu-button"), find::<Element>("#topics"))
    {
        let _ = button.set_attribute("aria-expanded", if open { "true" } else { "false" });
        let _ = menu.class_list().toggle_with_force("open", open);
    }
}

fn menu_open() -> bool {
    find::<Element>(".menu-button")
        .and_then(|b| b.get_attribute("aria-expanded"))
        .as_deref()
        == Some("true")
}

fn close_menu() {
    set_menu(false);
}

pub fn start() {
    EventListener::new_with_options(
        &document(),
        "click",
        EventListenerOptions::enable_prevent_default(),
        |event| {
            let Some(event) = event.dyn_ref::<MouseEvent>() else {
                return;
            };
            if let Some(target) = clicked(event) {
                event.prevent_default();
                go(target);
            }
        },
    )
    .forget();
    EventListener::new(&window(), "popstate", |event| {
        let place = event
            .dyn_ref::<web_sys::PopStateEvent>()
            .and_then(|e| kept_offset(&e.state()))
            .map_or(Place::Anchor, Place::Offset);
        match here() {
            Some(target) if shown(target.topic) => reveal(place),
            Some(target) => show(target, place),
            None => {
                let _ = window().location().reload();
            }
        }
    })
    .forget();
    // The browser's own restoring stays on: it serves reloads and full loads, and on Back
    // between pages of the shell the offset the entry kept is applied after it, once the
    // page is in place. A page reopened from an entry that kept an offset starts there.
    let kept = window()
        .history()
        .ok()
        .and_then(|h| h.state().ok())
        .and_then(|state| kept_offset(&state));
    if let Some(y) = kept {
        reveal(Place::Offset(y));
    } else if window().location().hash().is_ok_and(|h| h.len() > 1) {
        // A page opened from a link with an anchor: the browser scrolled to it before the
        // view grew above it.
        PENDING.with(|pending| *pending.borrow_mut() = Some(Place::Anchor));
    }
    for moves in ["wheel", "touchstart", "keydown"] {
        EventListener::new(&window(), moves, |_| LEARNER_MOVED.with(|m| m.set(true))).forget();
    }

    if let Some(button) = find::<Element>(".menu-button") {
        EventListener::new(&button, "click", |_| set_menu(!menu_open())).forget();
    }
    // Escape closes the open menu and gives focus back to its button.
    EventListener::new(&document(), "keydown", |event| {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if event.key() == "Escape" && menu_open() {
            close_menu();
            if let Some(button) = find::<HtmlElement>(".menu-button") {
                let _ = button.focus();
            }
        }
    })
    .forget();

    // Under the <base> that names the site root, `#main` would resolve to the overview's
    // URL and leave the page: move focus to the content here instead.
    if let Some(skip) = find::<Element>(".skip-link") {
        EventListener::new_with_options(
            &skip,
            "click",
            EventListenerOptions::enable_prevent_default(),
            |event| {
                event.prevent_default();
                if let Some(main) = find::<HtmlElement>("#main") {
                    let _ = main.focus();
                }
            },
        )
        .forget();
    }
}
