//! Small loopback chores the harnesses share: a free port, and a plain HTTP/1.0 `GET` that
//! blocks (for a `Drop`, or a harness without a runtime).

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    time::Duration,
};

/// How long one request may take, connecting and answering.
const REQUEST: Duration = Duration::from_secs(10);

/// A port nothing listens on now, for a child process to bind.
pub fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// `GET path` on `addr` over HTTP/1.0 (so the body ends with the connection, unchunked),
/// with `headers`.
pub fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Result<Answer, String> {
    let mut stream =
        TcpStream::connect_timeout(&addr, REQUEST).map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(REQUEST))
        .map_err(|e| e.to_string())?;
    let extra: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n{extra}\r\n")
        .map_err(|e| format!("send to {addr}: {e}"))?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|e| format!("read from {addr}: {e}"))?;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{path}: an answer without a header end"))?;
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{path}: no status in {head:?}"))?;
    let fields: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    if fields
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"))
    {
        return Err(format!("{path}: a chunked answer to HTTP/1.0"));
    }
    Ok(Answer {
        status,
        fields,
        body: answer[split + 4..].to_vec(),
    })
}

/// An HTTP answer: its status, its header fields (names in lowercase) and its body.
pub struct Answer {
    pub status: u16,
    pub fields: Vec<(String, String)>,
    pub body: Vec<u8>,
}
