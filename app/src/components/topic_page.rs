use yew::prelude::*;

use crate::topics::Topic;
use crate::views::ViewSlot;

#[derive(Properties, PartialEq)]
pub struct TopicPageProps {
    pub topic: &'static Topic,
    /// `content/topics/<slug>.md` as HTML, its links relative to the site root.
    pub text: AttrValue,
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
        </article>
    }
}
