//! The theme button: labels itself for the theme the page shows (the page's inline script
//! applied a remembered pick before the first paint), switches and remembers on a press,
//! and follows the system while the learner has not picked.

use gloo::events::EventListener;
use web_sys::HtmlElement;

use super::find;
use crate::theme::Theme;

fn label(button: &HtmlElement) {
    let next = Theme::current().other();
    let _ = button.set_attribute("aria-label", &next.switch_label());
    button.set_title(&next.switch_label());
    if let Ok(Some(symbol)) = button.query_selector("[aria-hidden]") {
        symbol.set_text_content(Some(next.symbol()));
    }
    if let Ok(Some(text)) = button.query_selector(".theme-toggle-text") {
        text.set_text_content(Some(next.name()));
    }
}

pub fn start() {
    let Some(button) = find::<HtmlElement>(".theme-toggle") else {
        return;
    };
    label(&button);
    let pressed = button.clone();
    EventListener::new(&button, "click", move |_| {
        Theme::current().other().choose();
        label(&pressed);
    })
    .forget();
    if let Some(query) = Theme::system_query() {
        EventListener::new(&query, "change", move |_| label(&button)).forget();
    }
}
