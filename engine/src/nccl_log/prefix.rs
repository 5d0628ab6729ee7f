//! Splitting a pasted line into NCCL's prefix and the message after it.
//!
//! NCCL writes `host:pid:tid [cudaDev] NCCL INFO msg` for INFO, `host:pid:tid [cudaDev]
//! file:line NCCL WARN msg` for WARN (after an empty line) and `host:pid:tid [cudaDev]
//! millis file:line NCCL TRACE msg` for TRACE; the same shapes from v2.4 (`src/misc/utils.cc`
//! lines 59-63 at v2.4.8-1) through v2.12 (`src/debug.cc` lines 146-157 at v2.12.12-1) and
//! v2.18 (`src/debug.cc` lines 172-181 at v2.18.3-1). v2.29 builds the same prefix in pieces
//! (`src/debug.cc` lines 368-388 at v2.29.3-1), may put a strftime timestamp in front (on
//! WARN lines by default: the levels at line 156, the format `[%F %T] ` at line 191) and
//! prints `NCCL CALL msg` with no device. The VERSION level prints the bare message (line 390).
//!
//! Whatever came before the prefix — an `srun -l` task number (`0: `), a Kubernetes
//! timestamp, an issue's indentation, Open MPI's `--tag-output` tag (`[1,26]<stdout>:`, with
//! or without a space after it) — is skipped: the prefix is read from the marker
//! (`NCCL INFO` ...) leftwards, so anything further left is decoration.

/// The level NCCL printed, from the marker word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Info,
    Warn,
    Trace,
    Call,
    /// No NCCL marker: a VERSION-level line, an application's line, or noise.
    Plain,
}

/// Who printed a line, as far as its prefix says.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Origin {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tid: Option<u64>,
    /// The `[n]` NCCL prints: the current CUDA device of the printing thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cuda_dev: Option<i64>,
    /// `file:line` of the WARN or TRACE call site.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

/// A line cut into its level, origin and message.
pub struct Split<'a> {
    pub level: Level,
    pub origin: Origin,
    pub body: &'a str,
}

const MARKERS: [(&str, Level); 4] = [
    ("INFO", Level::Info),
    ("WARN", Level::Warn),
    ("TRACE", Level::Trace),
    ("CALL", Level::Call),
];

/// Cut one line (without its newline; a trailing `\r` is allowed) into prefix and message.
pub fn split(line: &str) -> Split<'_> {
    let line = line.trim_end();
    for (at, _) in line.match_indices("NCCL ") {
        // The marker is a word of its own: at the start or after a space.
        if at > 0 && !line[..at].ends_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let after = &line[at + "NCCL ".len()..];
        for (word, level) in MARKERS {
            if let Some(rest) = after.strip_prefix(word) {
                if rest.is_empty() || rest.starts_with(' ') {
                    return Split {
                        level,
                        origin: origin(&line[..at], level),
                        body: rest.trim(),
                    };
                }
            }
        }
    }
    Split {
        level: Level::Plain,
        origin: Origin::default(),
        body: line.trim_start(),
    }
}

/// Read `host:pid:tid [dev] (millis) (file:line)` from the right of `head`.
fn origin(head: &str, level: Level) -> Origin {
    let mut o = Origin::default();
    let mut tokens = head.split_whitespace().rev().peekable();
    if matches!(level, Level::Warn | Level::Trace) {
        if let Some(t) = tokens.peek() {
            if is_site(t) {
                o.site = Some((*t).to_string());
                tokens.next();
            }
        }
    }
    if level == Level::Trace {
        if let Some(t) = tokens.peek() {
            if t.parse::<f64>().is_ok() {
                tokens.next();
            }
        }
    }
    if let Some(t) = tokens.peek() {
        if let Some(dev) = t
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .and_then(|d| d.parse::<i64>().ok())
        {
            o.cuda_dev = Some(dev);
            tokens.next();
        }
    }
    if let Some(t) = tokens.next() {
        let mut parts = t.rsplitn(3, ':');
        let tid = parts.next().and_then(|s| s.parse::<u64>().ok());
        let pid = parts.next().and_then(|s| s.parse::<u64>().ok());
        // The host name is what stands after the last character no host name has: Open
        // MPI's `--tag-output` glues `[1,26]<stdout>:` to the prefix without a space.
        let host = parts
            .next()
            .and_then(|h| h.rsplit(|c: char| !is_host_char(c)).next())
            .filter(|h| !h.is_empty());
        if let (Some(tid), Some(pid), Some(host)) = (tid, pid, host) {
            o.host = Some(host.to_string());
            o.pid = Some(pid);
            o.tid = Some(tid);
        }
    }
    o
}

/// A character of a host name (RFC 1123 letters, digits, hyphens and dots; `_` as some
/// clusters' names have it).
fn is_host_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')
}

/// `init.cc:1234` or `transport/net_ib.cc:99`: a path, a colon, a line number.
fn is_site(t: &str) -> bool {
    match t.rsplit_once(':') {
        Some((file, line)) => {
            !file.is_empty()
                && !file.starts_with('[')
                && !line.is_empty()
                && line.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}
