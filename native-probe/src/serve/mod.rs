//! `native-probe serve`: the HTTP server the learner's browser talks to.

mod site;

use std::{fmt, io, net::SocketAddr, path::PathBuf, sync::Arc};

use axum::Router;
use tokio::net::TcpListener;

use crate::cli::ServeArgs;

/// What every request handler shares.
#[derive(Debug)]
pub struct ProbeState {
    /// The built site: `index.html` plus its hashed assets.
    pub ui_dir: PathBuf,
}

/// Why `serve` could not start or stopped early, written for the person at the terminal.
#[derive(Debug)]
pub enum ServeError {
    SiteMissing { dir: PathBuf },
    SiteIncomplete { dir: PathBuf },
    AddressInUse { addr: SocketAddr },
    CannotListen { addr: SocketAddr, source: io::Error },
    Runtime(io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const BUILD_HINT: &str =
            "build the site first: `./lab run` builds it and starts the probe, or run `trunk build --release` in the repository root";
        match self {
            ServeError::SiteMissing { dir } => write!(
                f,
                "the site folder {} does not exist.\n  To fix: {BUILD_HINT}, or point --ui at a built site.",
                dir.display()
            ),
            ServeError::SiteIncomplete { dir } => write!(
                f,
                "the site folder {} has no index.html, so there is no site to serve.\n  To fix: {BUILD_HINT}, or point --ui at a built site.",
                dir.display()
            ),
            ServeError::AddressInUse { addr } => write!(
                f,
                "cannot listen on {addr}: the address is already in use (is another native-probe running?).\n  To fix: stop the other program, or choose another port, e.g. `native-probe serve --listen {}:0` for any free port.",
                addr.ip()
            ),
            ServeError::CannotListen { addr, source } => write!(
                f,
                "cannot listen on {addr}: {source}.\n  To fix: choose an address of this machine, e.g. --listen 127.0.0.1:7878."
            ),
            ServeError::Runtime(source) => write!(f, "the server stopped: {source}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Checks the site, binds the address, prints the URL and serves until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    let state = Arc::new(ProbeState {
        ui_dir: site::check_site(&args.ui)?,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener =
            TcpListener::bind(args.listen)
                .await
                .map_err(|source| match source.kind() {
                    io::ErrorKind::AddrInUse => ServeError::AddressInUse { addr: args.listen },
                    _ => ServeError::CannotListen {
                        addr: args.listen,
                        source,
                    },
                })?;
        let local = listener.local_addr().map_err(ServeError::Runtime)?;
        let shutdown = ShutdownSignal::install().map_err(ServeError::Runtime)?;
        println!("Serving rdma-lab at http://{local}/ (press Ctrl-C to stop)");
        axum::serve(listener, router(state))
            .with_graceful_shutdown(shutdown.received())
            .await
            .map_err(ServeError::Runtime)?;
        println!("native-probe: stopped");
        Ok(())
    })
}

/// All routes of the probe. The site is the fallback, so every path the app owns
/// (deep links included) reaches it.
pub fn router(state: Arc<ProbeState>) -> Router {
    Router::new().fallback_service(site::service(state))
}

/// Ctrl-C (SIGINT) or SIGTERM, listened for from the moment it is created, so a signal
/// that arrives right after the URL is printed still stops the server cleanly.
struct ShutdownSignal {
    #[cfg(unix)]
    streams: [tokio::signal::unix::Signal; 2],
}

impl ShutdownSignal {
    fn install() -> io::Result<ShutdownSignal> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(ShutdownSignal {
                streams: [
                    signal(SignalKind::interrupt())?,
                    signal(SignalKind::terminate())?,
                ],
            })
        }
        #[cfg(not(unix))]
        Ok(ShutdownSignal {})
    }

    async fn received(self) {
        #[cfg(unix)]
        {
            let [mut interrupt, mut terminate] = self.streams;
            tokio::select! {
                _ = interrupt.recv() => {},
                _ = terminate.recv() => {},
            }
        }
        #[cfg(not(unix))]
        {
            // Without a handler Ctrl-C still ends the process, only less politely.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}
