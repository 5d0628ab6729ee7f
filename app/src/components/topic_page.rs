use gloo::utils::document;
use yew::prelude::*;

use crate::topics::Topic;

#[derive(Properties, PartialEq)]
pub struct TopicPageProps {
    pub topic: &'static Topic,
}

/// A topic's page: its heading and summary. Topics whose material and interactive views
/// have not been written yet show exactly this and nothing more.
#[function_component]
pub fn TopicPage(props: &TopicPageProps) -> Html {
    let topic = props.topic;
    use_effect_with(topic.title, |title| {
        document().set_title(&format!("{title} · rdma-lab"));
    });
    html! {
        <article class="topic" aria-labelledby="topic-title">
            <h1 id="topic-title">{ topic.title }</h1>
            <p class="topic-summary">{ topic.summary }</p>
        </article>
    }
}
