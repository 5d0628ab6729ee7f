//! "Try this": small tasks a view sets the learner, each with the check that tells the view
//! the learner has done it.
//!
//! A task is checked on what the learner made the model do (a QP move, a DCQCN run, the
//! step a flow is at, the field picked in a packet), never on which buttons were pressed,
//! so any way to the goal counts. The checks live beside their models: `qp::exercise`,
//! `dcqcn::exercise`, `flows::exercise`, `capture::exercise`, `probe::exercise`.

/// One task and how to recognise it done.
#[derive(Debug)]
pub struct Exercise<O: ?Sized> {
    /// Stable name, for links, tests and the page's `data-exercise`.
    pub id: &'static str,
    /// What to do, in the learner's words.
    pub task: &'static str,
    /// What doing it shows, said once it is done.
    pub lesson: &'static str,
    /// Whether this observation of the model fulfils the task.
    pub done: fn(&O) -> bool,
}

/// Which of a view's exercises have been done so far. Done stays done: the learner may move
/// on from the state that fulfilled a task without losing it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress(u32);

impl Progress {
    /// Progress after `seen`, for a list of at most 32 exercises.
    #[must_use]
    pub fn observe<O: ?Sized>(self, exercises: &[Exercise<O>], seen: &O) -> Progress {
        let newly = exercises
            .iter()
            .take(32)
            .enumerate()
            .filter(|(_, e)| (e.done)(seen))
            .fold(0u32, |bits, (i, _)| bits | 1 << i);
        Progress(self.0 | newly)
    }

    pub fn is_done(self, index: usize) -> bool {
        index < 32 && self.0 & (1 << index) != 0
    }

    /// How many are done.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVEN: [Exercise<u32>; 2] = [
        Exercise {
            id: "even",
            task: "an even number",
            lesson: "",
            done: |n| n % 2 == 0,
        },
        Exercise {
            id: "big",
            task: "more than 10",
            lesson: "",
            done: |n| *n > 10,
        },
    ];

    #[test]
    fn done_stays_done_and_each_task_is_its_own_bit() {
        let p = Progress::default().observe(&EVEN, &3);
        assert_eq!(p.count(), 0);
        let p = p.observe(&EVEN, &4);
        assert!(p.is_done(0) && !p.is_done(1));
        let p = p.observe(&EVEN, &11);
        assert!(
            p.is_done(0) && p.is_done(1),
            "the even task stays done after 11"
        );
        assert_eq!(p.count(), 2);
        assert!(!p.is_done(40));
    }
}
