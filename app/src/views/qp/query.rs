//! The page's shareable state in the URL query: `?type=RC&state=RTS&walk=tcp&step=4`.
//! Read once on load, rewritten (`views::page_query`) as the learner changes it.

use engine::qp::{QpState, QpType, Walkthrough};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Query {
    pub qp_type: QpType,
    pub state: QpState,
    pub walk: Walkthrough,
    /// 0-based; the URL counts from 1.
    pub step: usize,
}

impl Default for Query {
    fn default() -> Query {
        Query {
            qp_type: QpType::Rc,
            state: QpState::Reset,
            walk: Walkthrough::TcpBootstrap,
            step: 0,
        }
    }
}

/// The URL name of each walkthrough.
pub fn walk_slug(walk: Walkthrough) -> &'static str {
    match walk {
        Walkthrough::TcpBootstrap => "tcp",
        Walkthrough::RdmaCm => "rdma-cm",
        Walkthrough::MissingAttribute => "missing-attribute",
        Walkthrough::SendBeforePeerRtr => "send-before-rtr",
        Walkthrough::ReceiverNotReady => "rnr",
        Walkthrough::RetryExceeded => "retry-exceeded",
    }
}

pub fn walk_from_slug(slug: &str) -> Option<Walkthrough> {
    Walkthrough::ALL.into_iter().find(|w| walk_slug(*w) == slug)
}

impl Query {
    /// Reads the query's pairs; unknown keys and unreadable values keep their defaults.
    pub fn from_pairs(pairs: &[(String, String)]) -> Query {
        let mut q = Query::default();
        for (key, value) in pairs {
            match key.as_str() {
                "type" => q.qp_type = QpType::parse(value).unwrap_or(q.qp_type),
                "state" => q.state = QpState::parse(value).unwrap_or(q.state),
                "walk" => q.walk = walk_from_slug(value).unwrap_or(q.walk),
                "step" => {
                    q.step = value
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| n.checked_sub(1))
                        .unwrap_or(q.step)
                }
                _ => {}
            }
        }
        q
    }

    /// Every value, defaults too: a copied link says what it shows.
    pub fn pairs(self) -> [(&'static str, String); 4] {
        [
            ("type", self.qp_type.name().to_string()),
            ("state", self.state.name().to_string()),
            ("walk", walk_slug(self.walk).to_string()),
            ("step", (self.step + 1).to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::page_query;

    fn parse(search: &str) -> Query {
        Query::from_pairs(&page_query::parse(search))
    }

    #[test]
    fn query_round_trips_and_ignores_junk() {
        let q = Query {
            qp_type: QpType::Ud,
            state: QpState::Rts,
            walk: Walkthrough::RetryExceeded,
            step: 4,
        };
        assert_eq!(parse(&page_query::format(&q.pairs())), q);
        assert_eq!(
            page_query::format(&q.pairs()),
            "?type=UD&state=RTS&walk=retry-exceeded&step=5"
        );
        assert_eq!(parse("?type=nope&state=&step=0&walk=x&y"), Query::default());
        for w in Walkthrough::ALL {
            assert_eq!(walk_from_slug(walk_slug(w)), Some(w));
        }
    }
}
