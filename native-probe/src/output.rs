//! Where the headless subcommands write what they print: buffered, with every write and
//! flush error kept apart from input errors, so that `main` can end a run whose reader left
//! early (`native-probe decode big.pcap | head`) quietly, as `cat` and `rg` do.
//!
//! Rust ignores SIGPIPE, so writing to a closed pipe returns `BrokenPipe` (and `println!`
//! would panic on it): subcommands write through [`to_stdout`], never `println!`.

use std::{
    fmt,
    io::{self, BufWriter, Write},
};

/// Writing a subcommand's output failed.
#[derive(Debug)]
pub struct OutputError {
    stream: &'static str,
    error: io::Error,
}

impl OutputError {
    /// The reader closed its end of the pipe: it has all it wanted, so this is no failure.
    pub fn reader_left(&self) -> bool {
        self.error.kind() == io::ErrorKind::BrokenPipe
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to {}: {}", self.stream, self.error)
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Runs `write` on buffered stdout, then flushes it. Every io error `write` returns counts
/// as an output error, so it only writes: read the inputs before.
pub fn to_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), OutputError> {
    buffered("stdout", io::stdout().lock(), write)
}

/// [`to_stdout`] for text meant for people (summaries) that goes to stderr.
pub fn to_stderr(text: &str) -> Result<(), OutputError> {
    buffered("stderr", io::stderr().lock(), |out| {
        out.write_all(text.as_bytes())
    })
}

fn buffered(
    stream: &'static str,
    inner: impl Write,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    let mut out = BufWriter::new(inner);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|error| OutputError { stream, error })
}
