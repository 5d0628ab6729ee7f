//! PFC headroom: the bytes that still arrive on a port after it decides to pause a
//! priority, from the delay components of IEEE 802.1Qbb Annex N.
//!
//! ```text
//! headroom = frame in progress at the pausing port      (one maximum frame)
//!          + the PFC frame itself                        (64 bytes)
//!          + cable, both ways                            (2 × length × delay per metre)
//!          + interfaces and the peer's response          (time, at the link rate)
//!          + the frame the peer had just started         (one maximum frame)
//! ```
//!
//! Times become bytes at the link's data rate: `bytes = ns × Gb/s / 8`.

use super::qos::parse_whole;
use crate::FieldError;
use serde::{Deserialize, Serialize};

/// A PFC frame is a minimum-size MAC Control frame (IEEE 802.3 Annex 31D).
pub const PFC_FRAME_BYTES: u64 = 64;

/// One link's figures, as the learner gives them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Headroom {
    /// Link data rate, Gb/s.
    pub link_gbps: f64,
    /// Cable length, m.
    pub cable_m: f64,
    /// Propagation delay of the cable, ns per metre (the page assumes 5 for fibre).
    pub ns_per_m: f64,
    /// Largest frame on the link, bytes (9216 for jumbo frames).
    pub max_frame_bytes: u64,
    /// PHY and MAC delays of both interfaces and the peer's reaction time together, ns.
    pub response_ns: f64,
}

/// The headroom, component by component, bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadroomBreakdown {
    pub frame_in_progress: u64,
    pub pfc_frame: u64,
    pub cable_both_ways: u64,
    pub response: u64,
    pub peer_frame: u64,
    pub total: u64,
}

fn finite(field: &str, v: f64, min: f64, max: f64) -> Result<(), FieldError> {
    if !v.is_finite() || v < min || v > max {
        return Err(FieldError::new(
            field,
            format!("{v} is outside [{min}, {max}]"),
        ));
    }
    Ok(())
}

impl Headroom {
    /// The page's worked example: 100 Gb/s, 100 m at 5 ns/m, 9216-byte frames, 1 µs for
    /// the interfaces and the peer.
    pub fn example() -> Headroom {
        Headroom {
            link_gbps: 100.0,
            cable_m: 100.0,
            ns_per_m: 5.0,
            max_frame_bytes: 9216,
            response_ns: 1000.0,
        }
    }

    /// The fields as a page's boxes hold them, by JSON name, in form order.
    pub fn texts(&self) -> Vec<(&'static str, String)> {
        vec![
            ("link_gbps", self.link_gbps.to_string()),
            ("cable_m", self.cable_m.to_string()),
            ("ns_per_m", self.ns_per_m.to_string()),
            ("max_frame_bytes", self.max_frame_bytes.to_string()),
            ("response_ns", self.response_ns.to_string()),
        ]
    }

    /// Reads the boxes back, naming the first field that does not read or is out of range.
    pub fn from_texts(text: impl Fn(&str) -> String) -> Result<Headroom, FieldError> {
        let number = |field: &str| {
            let t = text(field);
            t.trim()
                .parse::<f64>()
                .map_err(|_| FieldError::new(field, format!("{t:?} is not a number")))
        };
        let h = Headroom {
            link_gbps: number("link_gbps")?,
            cable_m: number("cable_m")?,
            ns_per_m: number("ns_per_m")?,
            max_frame_bytes: parse_whole("max_frame_bytes", &text("max_frame_bytes"))?,
            response_ns: number("response_ns")?,
        };
        h.validate()?;
        Ok(h)
    }

    pub fn validate(&self) -> Result<(), FieldError> {
        if !self.link_gbps.is_finite() || self.link_gbps <= 0.0 || self.link_gbps > 3200.0 {
            return Err(FieldError::new(
                "link_gbps",
                format!("{} is outside (0, 3200]", self.link_gbps),
            ));
        }
        // 100 km is past any PFC deployment; it keeps every product far inside u64.
        finite("cable_m", self.cable_m, 0.0, 100_000.0)?;
        finite("ns_per_m", self.ns_per_m, 0.0, 100.0)?;
        finite("response_ns", self.response_ns, 0.0, 1e9)?;
        if !(64..=65_536).contains(&self.max_frame_bytes) {
            return Err(FieldError::new(
                "max_frame_bytes",
                format!("{} is outside [64, 65536]", self.max_frame_bytes),
            ));
        }
        Ok(())
    }

    /// Bytes the link carries in `ns`, rounded up: buffer is whole bytes.
    fn bytes_in(&self, ns: f64) -> u64 {
        (ns * self.link_gbps / 8.0 - 1e-9).ceil().max(0.0) as u64
    }

    pub fn bytes(&self) -> Result<HeadroomBreakdown, FieldError> {
        self.validate()?;
        let cable = self.bytes_in(2.0 * self.cable_m * self.ns_per_m);
        let response = self.bytes_in(self.response_ns);
        let frame = self.max_frame_bytes;
        Ok(HeadroomBreakdown {
            frame_in_progress: frame,
            pfc_frame: PFC_FRAME_BYTES,
            cable_both_ways: cable,
            response,
            peer_frame: frame,
            total: 2 * frame + PFC_FRAME_BYTES + cable + response,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_the_pages_worked_example() {
        // content/topics/lossless.md, "Headroom": 9 216 + 64 + 12 500 + 12 500 + 9 216.
        let b = Headroom::example().bytes().unwrap();
        assert_eq!(b.cable_both_ways, 12_500);
        assert_eq!(b.response, 12_500);
        assert_eq!(b.total, 43_496);
    }

    #[test]
    fn the_cable_term_scales_with_speed_and_length() {
        let at = |gbps, m| {
            Headroom {
                link_gbps: gbps,
                cable_m: m,
                ..Headroom::example()
            }
            .bytes()
            .unwrap()
            .cable_both_ways
        };
        assert_eq!(at(400.0, 100.0), 4 * at(100.0, 100.0));
        assert_eq!(at(100.0, 300.0), 3 * at(100.0, 100.0));
        assert_eq!(at(100.0, 0.0), 0);
    }

    #[test]
    fn texts_read_back_to_the_same_figures() {
        let h = Headroom::example();
        let texts = h.texts();
        let get = |k: &str| texts.iter().find(|(n, _)| *n == k).unwrap().1.clone();
        assert_eq!(Headroom::from_texts(get).unwrap(), h);
        let e = Headroom::from_texts(|k| if k == "cable_m" { "10O".into() } else { get(k) });
        assert_eq!(e.unwrap_err().field, "cable_m");
    }

    #[test]
    fn absurd_values_are_named() {
        let field = |h: Headroom| h.bytes().unwrap_err().field;
        let ex = Headroom::example;
        assert_eq!(
            field(Headroom {
                link_gbps: 0.0,
                ..ex()
            }),
            "link_gbps"
        );
        assert_eq!(
            field(Headroom {
                cable_m: f64::NAN,
                ..ex()
            }),
            "cable_m"
        );
        assert_eq!(
            field(Headroom {
                cable_m: -1.0,
                ..ex()
            }),
            "cable_m"
        );
        assert_eq!(
            field(Headroom {
                max_frame_bytes: 10,
                ..ex()
            }),
            "max_frame_bytes"
        );
        assert_eq!(
            field(Headroom {
                response_ns: f64::INFINITY,
                ..ex()
            }),
            "response_ns"
        );
    }
}
