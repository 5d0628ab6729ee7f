//! nccl-tests' result table, read from a run's pasted output, and set against the model.
//!
//! The table is what `all_reduce_perf` and its siblings print (NVIDIA/nccl-tests v2.19.6,
//! `src/util.cu`): a header line `#  size  count  type  redop  root  time  algbw  busbw
//! #wrong  time  algbw  busbw  #wrong`, a line of units, then one row per size, the
//! out-of-place figures before the in-place ones, and `# Collective test starting:` /
//! `concluded:` lines naming the binary. Rows are read by the header's own column names,
//! so older tables without `root`, `-I`'s per-iteration columns and `-R`'s timestamps read
//! alike; lines that are not rows (NCCL's INFO lines, warnings) are passed over.

use super::{estimate, Collective, CollectiveError, CollectiveRequest, Estimate};
use core::fmt;

/// One size of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfRow {
    /// The row's line in the text, from 1.
    pub line: usize,
    pub bytes: u64,
    /// The out-of-place busbw, GB/s.
    pub busbw_gbs: f64,
}

/// A run's table.
#[derive(Debug, Clone, PartialEq)]
pub struct PerfTable {
    /// The collective the output names (`# Collective test starting: all_reduce_perf`);
    /// `None` when it names none.
    pub collective: Option<Collective>,
    pub rows: Vec<PerfRow>,
}

/// Why a text is not a table, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfTableError {
    /// The line, from 1; 0 for the text as a whole.
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for PerfTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => f.write_str(&self.reason),
            n => write!(f, "line {n}: {}", self.reason),
        }
    }
}

fn refused(line: usize, reason: impl Into<String>) -> PerfTableError {
    let reason = reason.into();
    PerfTableError { line, reason }
}

/// The collective a binary's name says (`./build/all_reduce_perf` → AllReduce).
fn named_collective(line: usize, binary: &str) -> Result<Collective, PerfTableError> {
    let name = binary.rsplit('/').next().unwrap_or(binary);
    // nccl-tests' src/Makefile suggests NAME_SUFFIX=_mpi for MPI builds: `all_reduce_perf_mpi`.
    let stem = name.trim_end_matches("_mpi").trim_end_matches("_perf");
    let id: String = stem.replace('_', "");
    Collective::from_id(&id).ok_or_else(|| {
        let modelled = "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall";
        refused(
            line,
            format!("{name} has no model here (the lab models {modelled})"),
        )
    })
}

/// The most rows a table may have: a sweep of 8 B to 8 GiB by `-f 2` has 31, and each row
/// costs one model estimate, so a runaway paste is refused rather than read for seconds.
pub const MAX_PERF_ROWS: usize = 1000;

/// Reads the result table out of a run's output.
pub fn read_perf_table(text: &str) -> Result<PerfTable, PerfTableError> {
    let mut collective = None;
    // The out-of-place busbw's column and the header's count of columns, once it is seen.
    let mut busbw_at = None;
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let (line, words) = (i + 1, raw.split_whitespace().collect::<Vec<_>>());
        if let Some(comment) = raw.trim_start().strip_prefix('#') {
            let tail = comment.trim();
            for mark in ["Collective test starting:", "Collective test concluded:"] {
                if let Some(binary) = tail.strip_prefix(mark) {
                    collective = Some(named_collective(line, binary.trim())?);
                }
            }
            let columns: Vec<&str> = tail.split_whitespace().collect();
            if columns.first() == Some(&"size") {
                let no_busbw = || refused(line, "the table's header has no busbw column");
                let at = columns
                    .iter()
                    .position(|c| *c == "busbw")
                    .ok_or_else(no_busbw)?;
                busbw_at = Some((at, columns.len()));
            }
            continue;
        }
        let (Some((at, named)), Some(first)) = (busbw_at, words.first()) else {
            continue;
        };
        // A row starts with its size in bytes; anything else between rows is a log line.
        let Ok(bytes) = first.parse::<u64>() else {
            continue;
        };
        if words.len() < named {
            let reason = format!(
                "the row has {} columns where the header names {named}",
                words.len()
            );
            return Err(refused(line, reason));
        }
        let cell = words[at];
        let busbw_gbs = cell
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0);
        let Some(busbw_gbs) = busbw_gbs else {
            return Err(refused(
                line,
                format!("busbw reads {cell:?}, not a bandwidth in GB/s"),
            ));
        };
        if rows.len() == MAX_PERF_ROWS {
            let reason = format!("more than {MAX_PERF_ROWS} rows; paste one run's table");
            return Err(refused(line, reason));
        }
        rows.push(PerfRow {
            line,
            bytes,
            busbw_gbs,
        });
    }
    if busbw_at.is_none() {
        let reason = "no nccl-tests result table: its header line \
                      (# size count type redop root time algbw busbw …) is missing";
        return Err(refused(0, reason));
    }
    if rows.is_empty() {
        return Err(refused(0, "the result table has no rows"));
    }
    Ok(PerfTable { collective, rows })
}

/// One measured size beside the model's answer for it.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredPoint {
    pub row: PerfRow,
    /// The pair the model's automatic choice takes at this size, and its busbw and limit.
    pub model: Estimate,
}

impl MeasuredPoint {
    /// Measured busbw over the model's; `None` where the model moves nothing (0 bytes).
    pub fn ratio(&self) -> Option<f64> {
        (self.model.busbw_gbs > 0.0).then(|| self.row.busbw_gbs / self.model.busbw_gbs)
    }
}

/// Each row of `table` beside the model's estimate for `request` at the row's size. The
/// table must be of the request's collective, when it names one.
pub fn against_model(
    table: &PerfTable,
    request: &CollectiveRequest,
) -> Result<Vec<MeasuredPoint>, MeasuredError> {
    if let Some(named) = table.collective.filter(|c| *c != request.op) {
        return Err(MeasuredError::OtherCollective(named));
    }
    let mut points = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let at_size = CollectiveRequest {
            bytes: row.bytes as f64,
            ..request.clone()
        };
        let report = estimate(&at_size).map_err(|error| MeasuredError::Model {
            line: row.line,
            error,
        })?;
        if let Some(model) = report.chosen_estimate() {
            let model = model.clone();
            points.push(MeasuredPoint { row: *row, model });
        }
    }
    Ok(points)
}

/// Why a table cannot be set against the model.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasuredError {
    /// The run is of another collective than the request's.
    OtherCollective(Collective),
    /// The model refused the size of the row on `line`.
    Model { line: usize, error: CollectiveError },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape `all_reduce_perf` v2.19.6 prints (src/util.cu's header and row formats),
    /// with an NCCL INFO line between rows as a run with NCCL_DEBUG=INFO interleaves them.
    const RUN: &str = "\
# Collective test starting: ./build/all_reduce_perf
# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    24.71    0.00    0.00      0    24.18    0.00    0.00      0
node1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
  8589934592    2147483648     float     sum      -1    71002  120.98  226.84      0    70911  121.14  227.13      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 113.42
#
# Collective test concluded: ./build/all_reduce_perf
";

    #[test]
    fn reads_the_rows_by_the_headers_columns() {
        let t = read_perf_table(RUN).expect("a table");
        assert_eq!(t.collective, Some(Collective::AllReduce));
        assert_eq!(t.rows.len(), 2);
        assert_eq!((t.rows[1].line, t.rows[1].bytes), (9, 8_589_934_592));
        assert_eq!(t.rows[1].busbw_gbs, 226.84, "the out-of-place busbw");
        let mpi = named_collective(1, "/opt/nccl-tests/build/all_gather_perf_mpi");
        assert_eq!(mpi, Ok(Collective::AllGather));
    }

    /// Before `root` existed the same header had one column fewer.
    #[test]
    fn an_older_table_without_root_reads_too() {
        let old = "#  size count type redop time algbw busbw #wrong time algbw busbw #wrong\n\
                   1048576 262144 float sum 105.2 9.97 17.44 0 104.9 10.00 17.49 0\n";
        let t = read_perf_table(old).expect("a table");
        assert_eq!(t.rows[0].busbw_gbs, 17.44);
        assert_eq!(t.collective, None);
    }

    #[test]
    fn garbage_is_refused_with_its_line() {
        let no_table = read_perf_table("hello\nworld\n").unwrap_err();
        assert_eq!(no_table.line, 0);
        let bad = RUN.replace("226.84", "fast");
        let e = read_perf_table(&bad).unwrap_err();
        assert_eq!(e.line, 9, "{e}");
        assert!(
            e.to_string().starts_with("line 9: busbw reads \"fast\""),
            "{e}"
        );
        let cut = RUN.replace(
            "  8589934592    2147483648     float     sum",
            "  8589934592",
        );
        assert!(read_perf_table(&cut)
            .unwrap_err()
            .to_string()
            .contains("columns"));
        let other = RUN.replace("all_reduce_perf", "sendrecv_perf");
        assert!(read_perf_table(&other)
            .unwrap_err()
            .to_string()
            .contains("sendrecv_perf"));
        let long = format!(
            "{}{}",
            &RUN[..RUN.find("  8589934592").unwrap()],
            "1 1 f s -1 1 1 1 0 1 1 1 0\n".repeat(1001)
        );
        let e = read_perf_table(&long).unwrap_err();
        // One row before the cut, then the 1,001st row of the table on line 1008.
        assert_eq!(
            (e.line, e.reason.starts_with("more than 1000 rows")),
            (1008, true),
            "{e}"
        );
        let empty = RUN
            .lines()
            .filter(|l| l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            read_perf_table(&empty).unwrap_err().reason,
            "the result table has no rows"
        );
    }

    /// Two DGX H100-like nodes: 8 GPUs on NVSwitch, 8 × 400G NICs with GDR.
    fn request(op: Collective) -> CollectiveRequest {
        let cluster = super::super::tests::h100(2);
        CollectiveRequest {
            op,
            bytes: 1.0,
            cluster,
            algorithms: None,
            protocols: None,
        }
    }

    #[test]
    fn each_row_meets_the_models_answer_at_its_size() {
        let t = read_perf_table(RUN).expect("a table");
        let points = against_model(&t, &request(Collective::AllReduce)).expect("compares");
        assert_eq!(points.len(), 2);
        let big = &points[1];
        let alone = CollectiveRequest {
            bytes: 8_589_934_592.0,
            ..request(Collective::AllReduce)
        };
        let report = estimate(&alone).expect("estimates");
        assert_eq!(Some(&big.model), report.chosen_estimate());
        assert_eq!(big.ratio(), Some(226.84 / big.model.busbw_gbs));
    }

    #[test]
    fn a_size_the_model_refuses_is_named_with_its_line() {
        let huge = RUN.replace("  8589934592", "1125899906842625");
        let t = read_perf_table(&huge).expect("a table");
        let e = against_model(&t, &request(Collective::AllReduce)).unwrap_err();
        assert!(matches!(e, MeasuredError::Model { line: 9, .. }), "{e:?}");
    }

    #[test]
    fn a_run_of_another_collective_is_not_compared() {
        let t = read_perf_table(&RUN.replace("all_reduce_perf", "all_gather_perf")).unwrap();
        let e = against_model(&t, &request(Collective::AllReduce)).unwrap_err();
        assert_eq!(e, MeasuredError::OtherCollective(Collective::AllGather));
    }
}
