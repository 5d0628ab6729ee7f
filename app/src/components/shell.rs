use gloo::utils::document;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::base;

use super::search_box::SearchBox;
use super::sidebar::Sidebar;
use super::theme_toggle::ThemeToggle;

#[derive(Properties, PartialEq)]
pub struct ShellProps {
    pub children: Html,
}

/// The frame around every view: header, topic sidebar and the main region.
#[function_component]
pub fn Shell(props: &ShellProps) -> Html {
    let menu_open = use_state(|| false);
    let toggle_menu = {
        let menu_open = menu_open.clone();
        Callback::from(move |_| menu_open.set(!*menu_open))
    };
    let close_menu = {
        let menu_open = menu_open.clone();
        Callback::from(move |()| menu_open.set(false))
    };

    // Under the <base> that names the site root, `#main` would resolve to the overview's
    // URL and leave the page: move focus to the content here instead.
    let skip_to_main = Callback::from(|event: MouseEvent| {
        event.prevent_default();
        if let Some(main) = document().get_element_by_id("main") {
            if let Ok(main) = main.dyn_into::<web_sys::HtmlElement>() {
                let _ = main.focus();
            }
        }
    });

    html! {
        <div class="shell">
            <a class="skip-link" href="#main" onclick={skip_to_main}>{ "Skip to content" }</a>
            <header class="site-header">
                <button
                    type="button"
                    class="menu-button"
                    aria-controls="topics"
                    aria-expanded={menu_open.to_string()}
                    onclick={toggle_menu}
                >
                    { "Topics" }
                </button>
                <a class="brand" href={base::href("/")}>
                    <span class="brand-name">{ "rdma-lab" }</span>
                    <span class="brand-tagline">{ "RDMA and AI-cluster networking, hands on" }</span>
                </a>
                <SearchBox />
                <ThemeToggle />
            </header>
            <Sidebar open={*menu_open} on_navigate={close_menu} />
            <main id="main" tabindex="-1">
                { props.children.clone() }
            </main>
        </div>
    }
}
