//! `native-probe serve`: the HTTP server the learner's browser talks to: the site, the live
//! counter stream on `/ws` and Prometheus metrics on `/metrics`.

pub mod host;
pub mod live;
pub mod metrics;
mod presence;
mod site;

use std::{
    fmt,
    io::{self, Write},
    net::SocketAddr,
    path::PathBuf,
    sync::{mpsc, Arc},
    time::{Duration, Instant},
};

use axum::{middleware, routing::get, serve::ListenerExt, Router};
use engine::probe::{doctor::Report, Source};
use tokio::{net::TcpListener, sync::watch};

use crate::{
    cli::ServeArgs,
    demo::Demo,
    doctor::{self, HostTrees, Tree},
    sampler::{self, Sampler},
    sysfs::{ReadError, Trees},
};
use host::AllowedHosts;
use live::{Latest, Live, LiveConfig};

/// The kernel send buffer of each connection. Fixed (instead of autotuned up to megabytes) so
/// a WebSocket client that stops reading is noticed within a few samples and loses the
/// oldest ones, rather than the kernel queueing a minute of them.
const SOCKET_SEND_BUFFER_BYTES: usize = 128 * 1024;

/// What every request handler shares.
pub struct ProbeState {
    /// The built site: `index.html` plus its hashed assets.
    pub ui_dir: PathBuf,
    pub live: Live,
    /// The `Host` values every route answers (see `host`).
    pub hosts: Arc<AllowedHosts>,
}

/// Why `serve` could not start or stopped early, written for the person at the terminal.
#[derive(Debug)]
pub enum ServeError {
    SiteMissing { dir: PathBuf },
    SiteIncomplete { dir: PathBuf },
    AddressInUse { addr: SocketAddr },
    Trees(ReadError),
    Demo(io::Error),
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
            ServeError::Trees(source) => write!(
                f,
                "cannot read the device tree: {source}.\n  To fix: point --sysfs-root at a folder laid out like /sys, or try --demo."
            ),
            ServeError::Demo(source) => write!(f, "cannot set up the demo recording: {source}"),
            ServeError::Runtime(source) => write!(f, "the server stopped: {source}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Checks the site, binds the address, prints the URL and serves until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    let ui_dir = site::check_site(&args.ui)?;
    // One thread serves every client: the work per sample is one send each, and handing
    // clients to more workers cost more in wake-ups than it spread (the bench's CPU figure).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    // Installed before the sampler starts, so a signal during its first reading is not lost.
    let signalled = {
        let _inside = runtime.enter();
        shutdown_signal()
    };
    let Started {
        latest,
        source,
        read_from,
        doctor,
        sampling,
        sampler,
    } = start_sampler(&args)?;
    let (stop, stopping) = watch::channel(false);
    let machine = sampler::host_name();
    let served = runtime.block_on(async move {
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
        // After binding: with port 0 only the bound address says which port a Host must name.
        let hosts = AllowedHosts::new(local, &machine, args.allow_host.clone());
        let config = LiveConfig {
            source,
            doctor,
            host: machine,
            interval_ms: args.interval_ms,
            allowed_origins: args.allow_origin.clone(),
            token: args.token.clone(),
        };
        let state = Arc::new(ProbeState {
            ui_dir,
            live: Live::new(config, latest, stopping),
            hosts: Arc::new(hosts),
        });
        announce(format_args!("Serving rdma-lab at http://{local}/ (press Ctrl-C to stop)"));
        match source {
            Source::Live => announce(format_args!("Live counters from {read_from} on ws://{local}/ws and http://{local}/metrics")),
            Source::Demo => announce(format_args!("Demo counters (a recording, not this machine's hardware) on ws://{local}/ws and http://{local}/metrics")),
            Source::Recorded => announce(format_args!("Recorded counters from {read_from} (not this machine's hardware) on ws://{local}/ws and http://{local}/metrics")),
        }
        if sampling.send(state.clone()).is_err() {
            return Err(ServeError::Runtime(io::Error::other(
                "the sampler stopped before the server started",
            )));
        }
        let listener = listener.tap_io(|stream| {
            // Best effort: without it the client queue still bounds memory, only later.
            let _ = socket2::SockRef::from(&*stream).set_send_buffer_size(SOCKET_SEND_BUFFER_BYTES);
        });
        let stopped = async move {
            signalled.await;
            // Tell WebSocket clients to close, or the graceful shutdown would wait for them.
            let _ = stop.send(true);
        };
        axum::serve(listener, router(state))
            .with_graceful_shutdown(stopped)
            .await
            .map_err(ServeError::Runtime)
    });
    // However the server ended, the sampler sees it when woken (the stop signal is sent or
    // gone); its end removes the demo's temporary copy.
    sampler.thread().unpark();
    let _ = sampler.join();
    served?;
    announce(format_args!("native-probe: stopped"));
    Ok(())
}

/// A line for the person at the terminal. Serving goes on, and ends cleanly, when nobody
/// reads them any more (`native-probe serve | head -1` to take the URL); `println!` would
/// panic there.
fn announce(line: fmt::Arguments) {
    let _ = writeln!(io::stdout(), "{line}");
}

/// All routes of the probe. The site is the fallback, so every path the app owns
/// (deep links included) reaches it. The Host check is the outermost layer: nothing is
/// answered, not even a 404, to a request that names another host.
pub fn router(state: Arc<ProbeState>) -> Router {
    let hosts = state.hosts.clone();
    Router::new()
        .route("/ws", get(live::socket))
        .route("/metrics", get(metrics::scrape))
        .route("/probe", get(presence::probe).options(presence::preflight))
        .with_state(state.clone())
        .fallback_service(site::service(state))
        .layer(middleware::from_fn_with_state(hosts, host::admit))
}

/// What the sampler's thread hands over once it took its first reading.
struct Started {
    latest: Latest,
    source: Source,
    /// The sysfs root, for the start-up message.
    read_from: String,
    /// The doctor's checks of the trees the sampler reads.
    doctor: Arc<Report>,
    /// Takes the server's state to the sampler, which then publishes to it every interval.
    sampling: mpsc::SyncSender<Arc<ProbeState>>,
    sampler: std::thread::JoinHandle<()>,
}

/// Starts the sampler on a thread of its own, off the async workers, since sysfs reads block
/// in the driver: it wakes once per interval, where a timer task handing each tick to the
/// blocking pool woke a worker, then the pool's thread, then a worker again to publish. The
/// thread opens the trees itself and takes the first reading, so the first tick already has
/// rates.
fn start_sampler(args: &ServeArgs) -> Result<Started, ServeError> {
    let (started, first) = mpsc::sync_channel(1);
    let (sampling, server) = mpsc::sync_channel::<Arc<ProbeState>>(1);
    let demo = args.demo;
    let (sysfs, debugfs, recorded_as) = (
        args.trees.sysfs(),
        args.trees.debugfs(),
        args.trees.source(),
    );
    // A recorded tree is another host's: this machine's /proc would describe the wrong one.
    let procfs = match (&args.procfs_root, &args.trees.sysfs_root) {
        (Some(dir), _) => Some(dir.clone()),
        (None, None) => Some(PathBuf::from("/proc")),
        (None, Some(_)) => None,
    };
    let interval_ms = args.interval_ms;
    let sampler = std::thread::Builder::new()
        .name("sampler".to_string())
        .spawn(move || {
            // The demo's temporary copy lives (inside the sampler) until the server stops.
            let opened = if demo {
                Demo::start().map_err(ServeError::Demo).and_then(|demo| {
                    let trees = Trees::open(&demo.sysfs_root(), &demo.debugfs_root())
                        .map_err(ServeError::Trees)?;
                    Ok((trees, Some(demo), Source::Demo))
                })
            } else {
                Trees::open(&sysfs, &debugfs)
                    .map_err(ServeError::Trees)
                    .map(|trees| (trees, None, recorded_as))
            };
            let (trees, demo, source) = match opened {
                Ok(opened) => opened,
                Err(error) => {
                    let _ = started.send(Err(error));
                    return;
                }
            };
            let read_from = trees.sysfs.dir().display().to_string();
            let doctor = Arc::new(doctor::report(&match &demo {
                // The recording mirrors a host's /sys, /proc and debugfs: shown as those.
                Some(demo) => HostTrees {
                    sysfs: Tree::shown_as(&demo.sysfs_root(), "/sys"),
                    procfs: Tree::shown_as(&demo.procfs_root(), "/proc"),
                    debugfs: Tree::shown_as(&demo.debugfs_root(), "/sys/kernel/debug"),
                },
                None => HostTrees {
                    sysfs: Tree::lenient(&sysfs),
                    procfs: Tree::at(
                        procfs.as_deref(),
                        "not read: the tree is recorded and --procfs-root was not given",
                    ),
                    debugfs: Tree::lenient(&debugfs),
                },
            }));
            let sampler = Sampler::new(trees, demo);
            let latest = Latest::of(&sampler);
            let _ = started.send(Ok((latest, source, read_from, doctor)));
            // None when the server could not start.
            if let Ok(state) = server.recv() {
                sample_forever(sampler, &state, interval_ms);
            }
        })
        .map_err(ServeError::Runtime)?;
    let (latest, source, read_from, doctor) = first.recv().map_err(|_| {
        ServeError::Runtime(io::Error::other(
            "the sampler stopped before its first reading",
        ))
    })??;
    Ok(Started {
        latest,
        source,
        read_from,
        doctor,
        sampling,
        sampler,
    })
}

/// The one sampler: every client receives what it publishes. Returns when the server stops.
fn sample_forever(mut sampler: Sampler, state: &ProbeState, interval_ms: u64) {
    let interval = Duration::from_millis(interval_ms);
    let mut next = Instant::now() + interval;
    loop {
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            // Woken early when the server stops (or for no reason: then it waits on).
            std::thread::park_timeout(wait);
        }
        if state.live.stopping() {
            return;
        }
        if Instant::now() < next {
            continue;
        }
        let tick = sampler.tick();
        // A slow read (a busy driver) delays the next tick rather than bunching them up.
        next += interval;
        let now = Instant::now();
        if next <= now {
            next = now + interval;
        }
        state.live.publish(Latest::of(&sampler), &tick.messages);
    }
}

/// Resolves on Ctrl-C or SIGTERM. The handlers are installed when this is called, not when
/// it is first awaited, so a signal that arrives right after the URL is printed is not lost.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        // If a handler cannot be installed, that signal still ends the process the default way.
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let mut terminate = signal(SignalKind::terminate()).ok();
        async move {
            let interrupted = async {
                match &mut interrupt {
                    Some(signal) => signal.recv().await,
                    None => std::future::pending().await,
                }
            };
            let terminated = async {
                match &mut terminate {
                    Some(signal) => signal.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = interrupted => {},
                _ = terminated => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
