//! A plain static file server that behaves like GitHub Pages and has no SPA fallback: a
//! folder is served by its `index.html`, `/x` for a folder `x` is redirected to `/x/`
//! (keeping the query), and any other path with no file behind it gets the site's
//! `404.html` with status 404. It proves the built site works without the probe.

use std::{
    io::{BufRead, BufReader, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
};

/// One request the server answered: its method, path (without the query) and status.
#[derive(Debug, Clone)]
pub struct Served {
    pub method: String,
    pub path: String,
    pub status: u16,
}

/// A running server on a loopback port the OS picks; stopped when dropped.
pub struct StaticServer {
    pub origin: String,
    log: Arc<Mutex<Vec<Served>>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl StaticServer {
    /// Serves `root` (the host's document root). `not_found_page` is the host's 404 page,
    /// as GitHub Pages serves a project site's `404.html` for any unknown path in it.
    pub fn start(root: &Path, not_found_page: &Path) -> StaticServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("a bound address").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let site = Arc::new((root.to_path_buf(), not_found_page.to_path_buf()));
        {
            let (log, stop) = (log.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (log, site) = (log.clone(), site.clone());
                    std::thread::spawn(move || {
                        if let Some(served) = answer(stream, &site.0, &site.1) {
                            log.lock().expect("the log is never poisoned").push(served);
                        }
                    });
                }
            });
        }
        StaticServer {
            origin: format!("http://127.0.0.1:{port}"),
            log,
            stop,
            port,
        }
    }

    /// Every request answered so far.
    pub fn served(&self) -> Vec<Served> {
        self.log.lock().expect("the log is never poisoned").clone()
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Answers one request and closes the connection (`Connection: close` keeps this simple).
fn answer(mut stream: TcpStream, root: &Path, not_found_page: &Path) -> Option<Served> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    // The headers are not needed; read them so the client sees its request consumed.
    let mut header = String::new();
    while reader.read_line(&mut header).ok()? > 2 {
        header.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next()?.to_string(), parts.next()?);
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };

    let (status, content_type, body, location) = match resolve(root, path) {
        Resolved::File(file) => (200, content_type(&file), std::fs::read(&file).ok()?, None),
        Resolved::Folder => {
            let location = match query {
                Some(query) => format!("{path}/?{query}"),
                None => format!("{path}/"),
            };
            (301, "text/plain", Vec::new(), Some(location))
        }
        Resolved::Missing => match std::fs::read(not_found_page) {
            Ok(page) => (404, "text/html; charset=utf-8", page, None),
            Err(_) => (404, "text/plain", b"not found\n".to_vec(), None),
        },
    };
    let reason = match status {
        200 => "OK",
        301 => "Moved Permanently",
        _ => "Not Found",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(location) = location {
        head.push_str(&format!("Location: {location}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).ok()?;
    if method != "HEAD" {
        stream.write_all(&body).ok()?;
    }
    Some(Served {
        method,
        path: path.to_string(),
        status,
    })
}

enum Resolved {
    File(PathBuf),
    /// A folder named without its trailing slash.
    Folder,
    Missing,
}

fn resolve(root: &Path, path: &str) -> Resolved {
    let mut file = root.to_path_buf();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        // No way out of the root; the test's URLs need no percent-decoding.
        if segment == ".." || segment.contains('%') {
            return Resolved::Missing;
        }
        file.push(segment);
    }
    if file.is_dir() {
        if !path.ends_with('/') {
            return Resolved::Folder;
        }
        file.push("index.html");
    }
    if file.is_file() {
        Resolved::File(file)
    } else {
        Resolved::Missing
    }
}

fn content_type(file: &Path) -> &'static str {
    match file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
    {
        "html" => "text/html; charset=utf-8",
        // A module script is refused unless it is served as JavaScript.
        "js" => "text/javascript; charset=utf-8",
        // WebAssembly.instantiateStreaming needs this type.
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}
