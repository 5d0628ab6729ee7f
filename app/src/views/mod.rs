//! The interactive views: one module each, drawn above a topic's reference text.
//! They draw what the engine computes and keep their state in hooks.

mod dcqcn;
mod flows;
mod live;
mod qp;
mod roce;

use yew::prelude::*;

use crate::topics::Topic;

/// The interactive view of a topic page, for the topics that have one built.
pub fn for_topic(topic: &Topic) -> Option<Html> {
    match topic.path {
        "/dcqcn" => Some(html! { <dcqcn::DcqcnView /> }),
        "/flows" => Some(html! { <flows::FlowsView /> }),
        "/live" => Some(html! { <live::LiveView /> }),
        "/qp" => Some(html! { <qp::QpView /> }),
        "/roce" => Some(html! { <roce::RoceView /> }),
        _ => None,
    }
}
