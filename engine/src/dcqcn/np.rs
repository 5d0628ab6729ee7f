//! The notification point (NP): the receiver NIC turns CE-marked packets into CNPs, at
//! most one per flow per N (paper §3.1: N = 50 µs; mlx5 `np_min_time_between_cnps`).

/// Per-flow CNP pacing at the receiver.
#[derive(Debug, Clone)]
pub struct NotificationPoint {
    min_gap_ps: u64,
    last_cnp_ps: Vec<Option<u64>>,
}

impl NotificationPoint {
    /// `flows` flows, at most one CNP per flow every `min_gap_ps` picoseconds.
    pub fn new(flows: usize, min_gap_ps: u64) -> Self {
        NotificationPoint {
            min_gap_ps,
            last_cnp_ps: vec![None; flows],
        }
    }

    /// A data packet of `flow` arrives at `now_ps`; returns whether a CNP is sent now.
    /// An unknown flow index sends nothing.
    pub fn on_packet(&mut self, flow: usize, ce: bool, now_ps: u64) -> bool {
        if !ce {
            return false;
        }
        let Some(last) = self.last_cnp_ps.get_mut(flow) else {
            return false;
        };
        let due = match *last {
            None => true,
            Some(t) => now_ps.saturating_sub(t) >= self.min_gap_ps,
        };
        if due {
            *last = Some(now_ps);
        }
        due
    }
}
