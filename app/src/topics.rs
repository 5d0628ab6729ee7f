//! The lab's topics, compiled in from `content/topics.toml` by `build.rs`.

use crate::route::Route;
use yew_router::Routable;

/// One topic of the reference: a route with its title, one-line summary and the page's text.
#[derive(Debug, PartialEq, Eq)]
pub struct Topic {
    pub path: &'static str,
    pub title: &'static str,
    pub group: &'static str,
    pub summary: &'static str,
    /// The interactive view this page has above its text, if any (see `crate::views`).
    pub view: Option<&'static str>,
    /// `content/topics/<slug>.md` as HTML, with numbered citations and its sources list.
    pub body_html: &'static str,
}

/// What the live view says about one counter, from `content/data/counters.toml`.
#[derive(Debug, PartialEq, Eq)]
pub struct CounterNote {
    /// The sysfs file name.
    pub file: &'static str,
    /// `port`, `hw` or `netdev`.
    pub group: &'static str,
    pub meaning: &'static str,
    /// The page (and heading) that explains the mechanism behind it.
    pub topic: &'static str,
}

impl CounterNote {
    pub fn find(group: &str, file: &str) -> Option<&'static CounterNote> {
        COUNTER_NOTES
            .iter()
            .find(|n| n.group == group && n.file == file)
    }
}

include!(concat!(env!("OUT_DIR"), "/topics.rs"));

impl Topic {
    /// The route this topic lives at.
    pub fn route(&self) -> Route {
        Route::recognize(self.path).unwrap_or(Route::NotFound)
    }

    /// The topic shown at `route`, if it is a topic page.
    pub fn at(route: &Route) -> Option<&'static Topic> {
        Topic::at_path(&route.to_path())
    }

    pub fn at_path(path: &str) -> Option<&'static Topic> {
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
    fn search_lands_on_the_heading_about_the_term() {
        let index = engine::search::SearchIndex::new(SEARCH_SECTIONS);
        let first = |query: &str| {
            let hit = &index.search(query, 1)[0];
            (hit.section.path, hit.section.anchor)
        };
        assert_eq!(first("DCQCN"), ("/dcqcn", ""), "the DCQCN page itself");
        assert_eq!(first("GID"), ("/troubleshooting", "roce-gid-index-wrong"));
        assert_eq!(first("PXN"), ("/nccl", "pxn-pci-nvlink"));
        assert_eq!(first("NCCL_IB_TIMEOUT").0, "/nccl-env");
    }

    #[test]
    fn every_page_is_searchable_by_its_title() {
        let index = engine::search::SearchIndex::new(SEARCH_SECTIONS);
        for topic in TOPICS {
            let hits = index.search(topic.title, 20);
            assert!(
                hits.iter()
                    .any(|h| h.section.path == topic.path && h.section.anchor.is_empty()),
                "searching {:?} does not find its page",
                topic.title
            );
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
