use yew::prelude::*;

use crate::base;
use crate::topics::groups;

#[derive(Properties, PartialEq)]
pub struct SidebarProps {
    /// The route path of the page shown.
    pub current: Option<&'static str>,
}

/// The list of topics, one plain link (and one URL) each; on narrow screens it opens from
/// the header's Topics button.
#[function_component]
pub fn Sidebar(props: &SidebarProps) -> Html {
    html! {
        <nav id="topics" class="sidebar" aria-label="Topics">
            // Group names are labels, not headings: the page's own h1 stays its first heading.
            { for groups().into_iter().enumerate().map(|(index, (group, topics))| html! {
                <div class="topic-group">
                    <p class="topic-group-title" id={format!("topic-group-{index}")}>{ group }</p>
                    <ul aria-labelledby={format!("topic-group-{index}")}>
                        { for topics.into_iter().map(|topic| {
                            let current = props.current == Some(topic.path);
                            html! {
                                <li>
                                    <a
                                        href={base::href(topic.path)}
                                        data-topic={topic.path}
                                        aria-current={current.then_some("page")}
                                        class={classes!(current.then_some("current"))}
                                    >
                                        { topic.title }
                                    </a>
                                </li>
                            }
                        }) }
                    </ul>
                </div>
            }) }
        </nav>
    }
}
