//! The page's shareable state in the URL query: `?type=RC&state=RTS&walk=tcp&step=4`.
//! Read once on load, rewritten with `history.replaceState` as the learner changes it.

use engine::qp::{QpState, QpType, Walkthrough};
use gloo::utils::window;
use wasm_bindgen::JsValue;

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
    /// Parses a query string; unknown keys and unreadable values keep their defaults.
    pub fn parse(search: &str) -> Query {
        let mut q = Query::default();
        for pair in search.trim_start_matches('?').split('&') {
            let Some((key, value)) = pair.split_once('=') else {
                continue;
            };
            match key {
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

    pub fn to_search(self) -> String {
        format!(
            "?type={}&state={}&walk={}&step={}",
            self.qp_type.name(),
            self.state.name(),
            walk_slug(self.walk),
            self.step + 1
        )
    }

    pub fn read() -> Query {
        Query::parse(&window().location().search().unwrap_or_default())
    }

    /// Replaces the URL's query, keeping the path and any `#anchor`.
    pub fn write(&self) {
        let location = window().location();
        let search = self.to_search();
        if location.search().ok().as_deref() == Some(search.as_str()) {
            return;
        }
        let url = format!(
            "{}{}{}",
            location.pathname().unwrap_or_default(),
            search,
            location.hash().unwrap_or_default()
        );
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_round_trips_and_ignores_junk() {
        let q = Query {
            qp_type: QpType::Ud,
            state: QpState::Rts,
            walk: Walkthrough::RetryExceeded,
            step: 4,
        };
        assert_eq!(Query::parse(&q.to_search()), q);
        assert_eq!(
            Query::parse("?type=nope&state=&step=0&walk=x&y"),
            Query::default()
        );
        for w in Walkthrough::ALL {
            assert_eq!(walk_from_slug(walk_slug(w)), Some(w));
        }
    }
}
