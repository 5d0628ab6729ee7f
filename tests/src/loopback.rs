//! Small loopback chores the harnesses share: a free port, and a plain HTTP `GET` that
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

/// `GET path` on `addr` with `headers`, over HTTP/1.1 with `Connection: close` so the
/// answer ends with the connection. (chromedriver sends nothing back to HTTP/1.0.)
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
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n"
    )
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
    let body = &answer[split + 4..];
    let chunked = fields
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        dechunk(body).map_err(|e| format!("{path}: {e}"))?
    } else {
        body.to_vec()
    };
    Ok(Answer {
        status,
        fields,
        body,
    })
}

/// The body carried by a chunked transfer coding (RFC 9112 section 7.1): each chunk is its
/// size in hex, an optional extension, CRLF, the bytes and CRLF; a size of 0 ends it.
fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size line without its CRLF")?;
        let line = String::from_utf8_lossy(&rest[..line_end]);
        let hex = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(hex, 16)
            .map_err(|_| format!("a chunk size that is not hex: {line:?}"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = rest
            .get(..size)
            .ok_or(format!("a chunk of {size} bytes cut off"))?;
        body.extend_from_slice(chunk);
        rest = rest.get(size + 2..).ok_or("a chunk without its CRLF")?;
    }
}

/// An HTTP answer: its status, its header fields (names in lowercase) and its body.
pub struct Answer {
    pub status: u16,
    pub fields: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::dechunk;

    #[test]
    fn a_chunked_body_is_joined_and_a_cut_one_is_refused() {
        let body = dechunk(b"4\r\nWiki\r\n6;ext=1\r\npedia \r\n0\r\n\r\n").unwrap();
        assert_eq!(body, b"Wikipedia ");
        assert!(dechunk(b"4\r\nWi").unwrap_err().contains("cut off"));
        assert!(dechunk(b"zz\r\n").unwrap_err().contains("not hex"));
    }
}
