//! The lab's topics, compiled in from `content/topics.toml` by `build.rs`.

use crate::route::Route;
use yew_router::Routable;

/// One topic of the reference: a route with its title and one-line summary.
#[derive(Debug, PartialEq, Eq)]
pub struct Topic {
    pub path: &'static str,
    pub title: &'static str,
    pub group: &'static str,
    pub summary: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/topics.rs"));

impl Topic {
    /// The route this topic lives at.
    pub fn route(&self) -> Route {
        Route::recognize(self.path).unwrap_or(Route::NotFound)
    }

    /// The topic shown at `route`, if it is a topic page.
    pub fn at(route: &Route) -> Option<&'static Topic> {
        let path = route.to_path();
        TOPICS.iter().find(|t| t.path == path)
    }
}

/// Topics grouped for the sidebar, in the order the content file lists them.
pub fn groups() -> Vec<(&'static str, Vec<&'static Topic>)> {
    let mut groups: Vec<(&'static str, Vec<&'static Topic>)> = Vec::new();
    for topic in TOPICS {
        match groups.iter_mut().find(|(name, _)| *name == topic.group) {
            Some((_, members)) => members.push(topic),
            None => groups.push((topic.group, vec![topic])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topic_has_its_own_route() {
        for topic in TOPICS {
            let route = topic.route();
            assert_ne!(route, Route::NotFound, "{} has no route", topic.path);
            assert_eq!(route.to_path(), topic.path);
        }
    }

    #[test]
    fn every_route_but_not_found_is_a_topic() {
        for path in Route::routes() {
            let route = Route::recognize(path).expect("a declared route is recognised");
            if route != Route::NotFound {
                assert!(
                    Topic::at(&route).is_some(),
                    "route {path} has no topic in content/topics.toml"
                );
            }
        }
    }

    #[test]
    fn topic_paths_are_unique_and_grouped_contiguously() {
        let mut seen = std::collections::HashSet::new();
        for topic in TOPICS {
            assert!(seen.insert(topic.path), "{} listed twice", topic.path);
        }
        // A group split in two would show twice in the sidebar.
        let order: Vec<_> = groups().into_iter().map(|(name, _)| name).collect();
        let mut appearances: Vec<&str> = TOPICS.iter().map(|t| t.group).collect();
        appearances.dedup();
        assert_eq!(order, appearances);
    }
}
