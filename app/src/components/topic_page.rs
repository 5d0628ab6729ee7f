use yew::prelude::*;

use crate::base;
use crate::topics::{Topic, TOPICS};
use crate::views::ViewSlot;

#[derive(Properties, PartialEq)]
pub struct TopicPageProps {
    pub topic: &'static Topic,
    /// `content/topics/<slug>.md` as HTML, its links relative to the site root.
    pub text: AttrValue,
}

impl Topic {
    /// The topic after this one in the sidebar's order, for the link at the end of a page.
    pub fn next(&self) -> Option<&'static Topic> {
        let at = TOPICS.iter().position(|t| t.path == self.path)?;
        TOPICS.get(at + 1)
    }

    /// The topic before this one in the sidebar's order, for the way back at the end of a page.
    pub fn previous(&self) -> Option<&'static Topic> {
        let at = TOPICS.iter().position(|t| t.path == self.path)?;
        TOPICS.get(at.checked_sub(1)?)
    }
}

/// A topic's page: heading, summary, its view's place if it has one, and the reference text.
#[function_component]
pub fn TopicPage(props: &TopicPageProps) -> Html {
    let topic = props.topic;
    html! {
        <article class="topic" aria-labelledby="topic-title" data-topic={topic.path}>
            <h1 id="topic-title">{ topic.title }</h1>
            <p class="topic-summary">{ topic.summary }</p>
            if let Some(view) = topic.view {
                <ViewSlot path={topic.path} name={view} />
            }
            <div class="prose">
                { Html::from_html_unchecked(props.text.clone()) }
            </div>
            if topic.next().is_some() || topic.previous().is_some() {
                <footer class="next-topic">
                    if let Some(next) = topic.next() {
                        <a href={base::href(next.path)} rel="next">
                            <span class="next-topic-label">{ "Next: " }</span>{ next.title }
                        </a>
                        <p>{ next.summary }</p>
                    }
                    if let Some(previous) = topic.previous() {
                        <p class="previous-topic">
                            <a href={base::href(previous.path)} rel="prev">{ format!("Previous: {}", previous.title) }</a>
                        </p>
                    }
                </footer>
            }
        </article>
    }
}
