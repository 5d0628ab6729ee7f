//! Why the view is not connected, and what the learner can do about it: each failure named
//! as what it is (a refusal is never "nothing there"), with the command or setting that
//! fixes it. Pure text from plain data, so every message is tested natively.

use super::address::{Page, ProbeAddress};
use super::presence::Answer;

/// Why the last attempt to reach a probe failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// An open connection ended: the probe's own reason, or what its close code means.
    Closed(String),
    /// Nothing answered at the address, or the browser did not let the page reach it.
    NoAnswer,
    /// A native-probe answered and does not let pages from this origin open its stream;
    /// `allow_with` is the option it says would.
    Refused { allow_with: Option<String> },
    /// A native-probe answered and allows this origin, yet refused the stream: it wants a
    /// token, or serves as many pages as it will.
    Declined,
    /// Something answered that is not a native-probe with `/probe`.
    NotAProbe,
    /// This https page may not open `ws://` to another machine (mixed content).
    MixedContent,
    /// The browser would not open the URL at all; its message.
    Unopenable(String),
}

impl Failure {
    /// What `/probe` (or its absence) says about a handshake that failed.
    pub fn from_answer(answer: Answer) -> Failure {
        match answer {
            Answer::Probe(presence) if !presence.origin_allowed => Failure::Refused {
                allow_with: presence.allow_with,
            },
            Answer::Probe(_) => Failure::Declined,
            Answer::Something => Failure::NotAProbe,
            Answer::Nothing => Failure::NoAnswer,
        }
    }

    /// Why `new WebSocket(url)` threw, from the exception's `name` and `message`.
    pub fn unopenable(page: &Page, url: &str, name: &str, message: &str) -> Failure {
        let to_elsewhere = ProbeAddress::of(url).is_some_and(|a| a.plain && !a.is_loopback());
        if name == "SecurityError" && page.secure && to_elsewhere {
            Failure::MixedContent
        } else {
            Failure::Unopenable(format!("{name}: {message}"))
        }
    }

    /// A few words for the status line.
    pub fn summary(&self) -> String {
        match self {
            Failure::Closed(reason) => reason.clone(),
            Failure::NoAnswer => "no probe answered at that address".into(),
            Failure::Refused { .. } => "the probe refused this site".into(),
            Failure::Declined => "the probe refused the connection".into(),
            Failure::NotAProbe => "what answered is not a native-probe".into(),
            Failure::MixedContent => "an https page cannot open ws:// to another machine".into(),
            Failure::Unopenable(_) => "the browser would not open that address".into(),
        }
    }

    /// Whether trying the same address again can help: not when the browser itself refuses.
    pub fn retry_helps(&self) -> bool {
        !matches!(self, Failure::MixedContent | Failure::Unopenable(_))
    }
}

/// What the view says about a failure: a headline, what to do, and a command to copy.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    pub headline: String,
    /// Paragraphs before the command.
    pub before: Vec<String>,
    pub command: Option<String>,
    /// Paragraphs after the command.
    pub after: Vec<String>,
}

impl Advice {
    fn said(headline: String, before: Vec<String>) -> Advice {
        Advice {
            headline,
            before,
            command: None,
            after: Vec::new(),
        }
    }

    /// The advice for `failure` at `url` seen from `page`; `None` when the status line says
    /// all there is (a connection that ended).
    pub fn for_failure(failure: &Failure, page: &Page, url: &str) -> Option<Advice> {
        let address = ProbeAddress::of(url);
        let authority = address
            .as_ref()
            .map_or_else(|| url.to_string(), |a| a.authority.clone());
        let site = address
            .as_ref()
            .map_or_else(String::new, |a| a.site.clone());
        Some(match failure {
            Failure::Closed(_) => return None,
            Failure::Refused { allow_with } => {
                let command = allow_with
                    .as_ref()
                    .map(|flag| format!("native-probe serve {flag}"))
                    .or_else(|| page.allow_command());
                let before = match command {
                    Some(_) => format!(
                        "It answered, but it lets only pages it knows open its counter stream, and this page's origin, {}, is not one of them. Stop it (Ctrl-C) and start it again with this option added to any you gave it:",
                        page.origin
                    ),
                    None => format!(
                        "It answered, but it lets only pages it knows open its counter stream, and a page opened from a file cannot be allowed. Open the lab the probe serves itself, {site}, or serve this copy over http(s)."
                    ),
                };
                Advice {
                    headline: format!("The probe at {authority} refused this site."),
                    before: vec![before],
                    command,
                    after: vec![
                        "This page asks again every few seconds and connects as soon as the probe allows it."
                            .into(),
                    ],
                }
            }
            Failure::Declined => {
                let mut before = Vec::new();
                if let Some(address) = address.as_ref().filter(|a| !a.names_the_stream()) {
                    before.push(format!(
                        "Its stream is at /ws, and this address asks for {}: correct the address, e.g. {authority}.",
                        address.path
                    ));
                }
                before.push(format!("If it was started with --token, add the token to the address: {authority}/ws?token=TOKEN."));
                before.push("It also turns pages away while it serves as many as it will: close other pages showing it, and this one tries again.".into());
                Advice::said(
                    format!(
                        "The probe at {authority} allows this site, but refused the connection."
                    ),
                    before,
                )
            }
            Failure::NotAProbe => {
                let mut before = vec![
                    "It may be another program on that port, or a native-probe older than this page: rebuild it (./lab run does)."
                        .to_string(),
                ];
                if let Some(address) = address.as_ref().filter(|a| !a.is_loopback()) {
                    before.push(format!(
                        "Or it is a probe that does not answer to the name {host}: it answers only names it knows (against DNS rebinding), so start it with --allow-host {host}, or use its IP address.",
                        host = address.host
                    ));
                }
                Advice::said(
                    format!("Something answers at {authority}, but not as a native-probe this page can use."),
                    before,
                )
            }
            Failure::NoAnswer => {
                let mut before = vec![
                    "Check that native-probe serve is running there: it prints the address it listens on when it starts."
                        .to_string(),
                ];
                if !page.local {
                    before.push(if page.secure {
                        "If it is running, your browser may be keeping this site from your machine: Chrome asks whether the site may look for and connect to devices on your local network. Allow it; if you blocked it before, allow Local network access in the site's settings (the icon left of the address)."
                            .to_string()
                    } else {
                        format!("If it is running, your browser may be keeping this site from your machine: Chrome lets only https pages from elsewhere reach local addresses, and asks first. Open this copy of the lab over https, or the lab the probe serves itself: {site}")
                    });
                }
                Advice::said(format!("Nothing answered at {authority}."), before)
            }
            Failure::MixedContent => {
                let (host, port) = address
                    .as_ref()
                    .map(|a| {
                        let port = engine::address::Authority::parse(&a.authority)
                            .ok()
                            .and_then(|a| a.port)
                            .unwrap_or(80);
                        (a.host.clone(), port.to_string())
                    })
                    .unwrap_or_default();
                Advice::said(
                    format!("This page is served over https, so the browser will not open ws://{authority}: an https page may open unencrypted WebSockets only to this machine."),
                    vec![format!(
                        "Open the lab that probe serves itself, {site}; or forward it to this machine, e.g. ssh -L 7878:127.0.0.1:{port} {host}, and connect to 127.0.0.1:7878 (the probe still needs --allow-origin {}).",
                        page.origin
                    )],
                )
            }
            Failure::Unopenable(message) => Advice::said(
                format!("The browser would not open {url}."),
                vec![format!("It said: {message}")],
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::presence::Presence;
    use super::*;

    fn hosted() -> Page {
        Page::at(
            "https://name.github.io",
            "https://name.github.io/rdma-lab/live",
        )
    }

    #[test]
    fn a_refusal_is_named_with_the_command_that_lifts_it() {
        let failure = Failure::from_answer(Answer::Probe(Presence {
            probe: "native-probe".into(),
            origin_allowed: false,
            allow_with: Some("--allow-origin https://name.github.io".into()),
        }));
        assert_eq!(failure.summary(), "the probe refused this site");
        let advice = Advice::for_failure(&failure, &hosted(), "ws://127.0.0.1:7878/ws").unwrap();
        assert_eq!(
            advice.headline,
            "The probe at 127.0.0.1:7878 refused this site."
        );
        assert_eq!(
            advice.command.as_deref(),
            Some("native-probe serve --allow-origin https://name.github.io")
        );
        assert!(!format!("{advice:?}").contains("no probe answered"));
        // An older answer without the flag: the page's own command.
        let bare = Failure::Refused { allow_with: None };
        let advice = Advice::for_failure(&bare, &hosted(), "ws://127.0.0.1:7878/ws").unwrap();
        assert_eq!(advice.command, hosted().allow_command());
        // A file: page has no origin to allow.
        let file = Page::at("null", "file:///dist/index.html");
        let advice = Advice::for_failure(&bare, &file, "ws://127.0.0.1:7878/ws").unwrap();
        assert_eq!(advice.command, None);
        assert!(advice.before[0].contains("http://127.0.0.1:7878/"));
    }

    #[test]
    fn each_answer_is_its_own_failure() {
        let allowed = Answer::Probe(Presence {
            probe: "native-probe".into(),
            origin_allowed: true,
            allow_with: None,
        });
        assert_eq!(Failure::from_answer(allowed), Failure::Declined);
        assert_eq!(Failure::from_answer(Answer::Something), Failure::NotAProbe);
        assert_eq!(Failure::from_answer(Answer::Nothing), Failure::NoAnswer);
        let declined = Advice::for_failure(&Failure::Declined, &hosted(), "ws://127.0.0.1:7878/ws");
        assert!(declined.unwrap().before[0].contains("127.0.0.1:7878/ws?token=TOKEN"));
        let mistyped =
            Advice::for_failure(&Failure::Declined, &hosted(), "ws://h:1/ws127.0.0.1:9").unwrap();
        assert!(
            mistyped.before[0].contains("asks for /ws127.0.0.1:9"),
            "{mistyped:?}"
        );
        // A name the probe may not know is only worth mentioning when it is not loopback.
        let named =
            Advice::for_failure(&Failure::NotAProbe, &hosted(), "ws://box:7878/ws").unwrap();
        assert!(named.before.iter().any(|p| p.contains("--allow-host box")));
        let local =
            Advice::for_failure(&Failure::NotAProbe, &hosted(), "ws://127.0.0.1:7878/ws").unwrap();
        assert!(!local.before.iter().any(|p| p.contains("--allow-host")));
        assert_eq!(
            Advice::for_failure(&Failure::Closed("gone".into()), &hosted(), "ws://h/ws"),
            None
        );
    }

    #[test]
    fn the_browsers_own_limits_are_named_for_pages_from_elsewhere() {
        let advice =
            Advice::for_failure(&Failure::NoAnswer, &hosted(), "ws://127.0.0.1:7878/ws").unwrap();
        assert!(advice.before[1].contains("local network"), "{advice:?}");
        let plain = Page::at(
            "http://lab.example.test:8000",
            "http://lab.example.test:8000/live",
        );
        let advice =
            Advice::for_failure(&Failure::NoAnswer, &plain, "ws://127.0.0.1:7878/ws").unwrap();
        assert!(advice.before[1].contains("only https pages"), "{advice:?}");
        // The lab served by the probe itself needs no leave from anyone.
        let served = Page::at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        let advice =
            Advice::for_failure(&Failure::NoAnswer, &served, "ws://127.0.0.1:9/ws").unwrap();
        assert_eq!(advice.before.len(), 1);

        let mixed = Failure::unopenable(&hosted(), "ws://box:9000/ws", "SecurityError", "insecure");
        assert_eq!(mixed, Failure::MixedContent);
        assert!(!mixed.retry_helps());
        let advice = Advice::for_failure(&mixed, &hosted(), "ws://box:9000/ws").unwrap();
        assert!(
            advice.before[0].contains("ssh -L 7878:127.0.0.1:9000 box"),
            "{advice:?}"
        );
        assert!(advice.before[0].contains("http://box:9000/"), "{advice:?}");
        // Loopback is allowed from https, so a SecurityError there is something else.
        let other =
            Failure::unopenable(&hosted(), "ws://127.0.0.1:7878/ws", "SecurityError", "port");
        assert_eq!(other, Failure::Unopenable("SecurityError: port".into()));
    }
}
