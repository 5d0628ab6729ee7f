use yew::prelude::*;

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

    html! {
        <div class="shell">
            <a class="skip-link" href="#main">{ "Skip to content" }</a>
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
                <a class="brand" href="/">
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
