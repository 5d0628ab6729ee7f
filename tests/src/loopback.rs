//! Small loopback chores the harnesses share: a free port, and a plain HTTP `GET` that
//! blocks (for a `Drop`, or a harness without a runtime). It is the tests' one HTTP client:
//! it sends exactly the headers given and decodes nothing, so a test sees what went over the
//! wire (a compressed body stays compressed).

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
    // Read until the answer is whole by its own framing: chromedriver says `Connection: close`
    // but keeps the connection open.
    let mut answer = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let read = stream
            .read(&mut buf)
            .map_err(|e| format!("read from {addr}: {e}"))?;
        answer.extend_from_slice(&buf[..read]);
        let ended = read == 0;
        if let Some(whole) = Answer::parse(&answer, ended).map_err(|e| format!("{path}: {e}"))? {
            return Ok(whole);
        }
        if ended {
            return Err(format!("{path}: the answer was cut off"));
        }
    }
}

/// The body carried by a chunked transfer coding (RFC 9112 section 7.1): each chunk is its
/// size in hex, an optional extension, CRLF, the bytes and CRLF; a size of 0 ends it. `None`
/// while the last chunk has not arrived.
fn dechunk(mut rest: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut body = Vec::new();
    loop {
        let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") else {
            return Ok(None);
        };
        let line = String::from_utf8_lossy(&rest[..line_end]);
        let hex = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(hex, 16)
            .map_err(|_| format!("a chunk size that is not hex: {line:?}"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(Some(body));
        }
        let Some(chunk) = rest.get(..size) else {
            return Ok(None);
        };
        body.extend_from_slice(chunk);
        let Some(after) = rest.get(size + 2..) else {
            return Ok(None);
        };
        rest = after;
    }
}

/// An HTTP answer: its status, its header fields (names in lowercase) and its body.
pub struct Answer {
    pub status: u16,
    pub fields: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The value of the header field `name` (lowercase), `""` when it is absent.
    pub fn field(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("a UTF-8 body")
    }

    /// The answer in `bytes` once it is whole: its body ends where its length or its last
    /// chunk says, or, with neither, where the connection `ended`.
    fn parse(bytes: &[u8], ended: bool) -> Result<Option<Answer>, String> {
        let Some(split) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            return Ok(None);
        };
        let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no status in {head:?}"))?;
        let fields: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let rest = &bytes[split + 4..];
        let body = if field("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            dechunk(rest)?
        } else if let Some(length) = field("content-length") {
            let length: usize = length
                .parse()
                .map_err(|_| format!("a content length that is not a number: {length:?}"))?;
            rest.get(..length).map(<[u8]>::to_vec)
        } else {
            ended.then(|| rest.to_vec())
        };
        Ok(body.map(|body| Answer {
            status,
            fields,
            body,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::{dechunk, Answer};

    #[test]
    fn a_chunked_body_is_joined_and_a_cut_one_waits_for_more() {
        let body = dechunk(b"4\r\nWiki\r\n6;ext=1\r\npedia \r\n0\r\n\r\n").unwrap();
        assert_eq!(body.unwrap(), b"Wikipedia ");
        assert_eq!(dechunk(b"4\r\nWi").unwrap(), None);
        assert!(dechunk(b"zz\r\n").unwrap_err().contains("not hex"));
    }

    #[test]
    fn an_answer_is_whole_at_its_length_or_when_the_connection_ends() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n";
        assert!(Answer::parse(head, false).unwrap().is_none());
        let whole = Answer::parse(&[&head[..], b"{}{}"].concat(), false)
            .unwrap()
            .unwrap();
        assert_eq!((whole.status, whole.body.as_slice()), (200, &b"{}{}"[..]));
        let unframed = b"HTTP/1.1 404 Not Found\r\n\r\nnope";
        assert!(Answer::parse(unframed, false).unwrap().is_none());
        assert_eq!(
            Answer::parse(unframed, true).unwrap().unwrap().body,
            b"nope"
        );
    }
}
