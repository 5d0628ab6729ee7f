//! The interactive views: one module each, drawn above a topic's reference text.
//! They draw what the engine computes and keep their state in hooks.

use yew::prelude::*;

use crate::topics::Topic;

/// The interactive view of a topic page, for the topics that have one built.
// One arm per view as they land; until the first one, the match has only its fallback.
#[allow(clippy::match_single_binding)]
pub fn for_topic(topic: &Topic) -> Option<Html> {
    match topic.path {
        _ => None,
    }
}
