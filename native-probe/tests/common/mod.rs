//! The probe the raw-socket tests talk to: the real binary serving a one-page site and the
//! recorded fixture (read only), on an address the test chooses.

use std::{net::SocketAddr, path::Path};

use lab_tests::probe::{FixtureSite, Probe as Running};

/// A running `native-probe serve` over the fixture; stopped when dropped.
pub struct Probe {
    /// Where to connect: the bound port, on 127.0.0.1 when it listens on every address.
    pub addr: SocketAddr,
    _running: Running,
    _site: FixtureSite,
}

impl Probe {
    /// `serve --listen LISTEN` over the fixture, with `extra` options.
    pub fn start(listen: &str, extra: &[&str]) -> Probe {
        let site = FixtureSite::in_place("probe-test");
        let binary = Path::new(env!("CARGO_BIN_EXE_native-probe"));
        let running = Running::spawn(site.serve(binary, listen, extra));
        Probe {
            addr: running.addr(),
            _running: running,
            _site: site,
        }
    }
}
