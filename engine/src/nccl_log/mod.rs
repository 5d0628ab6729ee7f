//! Reading an `NCCL_DEBUG=INFO` log: what NCCL chose, and what went wrong.
//!
//! [`parse`] reads the text as pasted — from a terminal, a Slurm job (`srun -l` task
//! numbers in front), a Kubernetes pod log (timestamps in front), or a GitHub issue
//! (indented, CRLF) — with lines of many ranks and hosts interleaved, and keeps every
//! line as a [`Record`], the ones it cannot read as [`Event::Unrecognised`]. From the
//! records, [`NcclLog::summary`] says which version ran, how many ranks on how many
//! hosts, and which transport joined which ranks; [`diagnose()`] turns known bad signs
//! into [`Finding`]s that point at the lab's troubleshooting page.
//!
//! People paste fragments (a few WARN lines, some channel lines, the tail of a run), so each
//! headline fact is read from whichever line states it, directly or not, and carries a
//! [`FactSource`]: the lines it came from, or, when no line states it, which line would
//! tell. A fact the log does not state is `None` (JSON `null`), never "no".
//!
//! The formats read are those of NVIDIA/nccl v2.4.8-1 to v2.29.3-1; each reader in
//! `record.rs` names the format strings (file and line at a tag) it was written from.
//! Reading is one pass over the lines with fixed-word matching, so time is linear in the
//! length of the log.

mod calculator;
mod diagnose;
mod facts;
mod prefix;
mod record;
mod summary;
pub mod wc_status;

#[cfg(test)]
mod fragment_tests;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use diagnose::{diagnose, Finding, Severity, TOPICS};
pub use facts::{FactSource, GdrHca};
pub use prefix::{Level, Origin};
pub use record::{
    ChannelConnection, Event, LinkLayer, NcclResult, NetDevice, Peer, Side, Transport,
};
pub use summary::{
    ChannelLink, EnvVar, HostSummary, InterNodeTransport, IntraNodeTransport, RankSummary, Summary,
};

/// One line of the log and what it says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// 1-based line number in the text given to [`parse`].
    pub line: usize,
    pub level: Level,
    #[serde(flatten)]
    pub origin: Origin,
    pub event: Event,
}

/// A parsed log: one record per line, in order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NcclLog {
    pub records: Vec<Record>,
}

impl NcclLog {
    /// The lines the reader kept but could not read, in order: each line's number and the
    /// text after NCCL's prefix (the whole line when it has none). Routine start-up lines
    /// ([`Event::Routine`]) and blank lines are read, so they are not among them.
    pub fn unrecognised(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        self.records.iter().filter_map(|r| match &r.event {
            Event::Unrecognised { text } => Some((r.line, text.as_str())),
            _ => None,
        })
    }
}

/// Read a log. Never fails: a line that is not NCCL's, or not one this reader knows, is
/// kept as [`Event::Unrecognised`] with its line number.
pub fn parse(text: &str) -> NcclLog {
    NcclLog {
        records: records(text, 1),
    }
}

/// The records of `text`, numbered from `first_line`.
fn records(text: &str, first_line: usize) -> Vec<Record> {
    text
        // `lines` splits at `\n` and drops the `\r` of a CRLF ending, so numbers match an editor's.
        .lines()
        .enumerate()
        .map(|(i, raw)| {
            let split = prefix::split(raw);
            Record {
                line: first_line + i,
                level: split.level,
                event: record::classify(split.level, split.body),
                origin: split.origin,
            }
        })
        .collect()
}

/// A log read a slice at a time, so a page can read a 100,000-line paste without freezing:
/// [`LogReader::step`] reads up to `lines` more lines, [`LogReader::finish`] gives the
/// [`NcclLog`], the same as [`parse`] of the whole text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogReader {
    /// Byte offset of the next unread line.
    offset: usize,
    log: NcclLog,
}

impl LogReader {
    pub fn new() -> LogReader {
        LogReader::default()
    }

    /// Reads up to `lines` lines of `text` (the same text every call) from where the last
    /// call stopped; returns whether the whole text has been read.
    pub fn step(&mut self, text: &str, lines: usize) -> bool {
        let rest = &text[self.offset.min(text.len())..];
        let end = rest
            .match_indices('\n')
            .nth(lines.max(1) - 1)
            .map_or(rest.len(), |(i, _)| i + 1);
        let first = self.log.records.len() + 1;
        self.log.records.extend(records(&rest[..end], first));
        self.offset += end;
        self.offset >= text.len()
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> usize {
        self.log.records.len()
    }

    pub fn finish(self) -> NcclLog {
        self.log
    }
}
