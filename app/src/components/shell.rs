use yew::prelude::*;

use crate::base;

use super::search_box::SearchBox;
use super::sidebar::Sidebar;
use super::theme_toggle::ThemeToggle;

#[derive(Properties, PartialEq)]
pub struct ShellProps {
    /// The route path of the page, for the sidebar's current link; none on the 404 page.
    pub current: Option<&'static str>,
    pub children: Html,
}

/// The frame around every page: header, topic sidebar and the main region.
#[function_component]
pub fn Shell(props: &ShellProps) -> Html {
    html! {
        <div class="shell">
            <a class="skip-link" href="#main">{ "Skip to content" }</a>
            <header class="site-header">
                <button type="button" class="menu-button" aria-controls="topics" aria-expanded="false">
                    { "Topics" }
                </button>
                <a class="brand" href={base::href("/")}>
                    <span class="brand-name">{ "rdma-lab" }</span>
                    <span class="brand-tagline">{ "RDMA and AI-cluster networking, hands on" }</span>
                </a>
                <SearchBox />
                <ThemeToggle />
            </header>
            <Sidebar current={props.current} />
            <main id="main" tabindex="-1">
                { props.children.clone() }
            </main>
        </div>
    }
}
