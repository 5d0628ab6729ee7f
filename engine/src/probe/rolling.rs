//! A rolling history: the newest points of a series, oldest first, as the live view's charts
//! and the cluster table's trends keep them.

use std::collections::VecDeque;

/// Appends `point` and drops the oldest points beyond `kept`.
pub fn push_newest<T>(points: &mut VecDeque<T>, point: T, kept: usize) {
    points.push_back(point);
    while points.len() > kept {
        points.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_are_kept() {
        let mut points = VecDeque::new();
        for t in 0..5 {
            push_newest(&mut points, t, 3);
        }
        assert_eq!(points, [2, 3, 4]);
    }
}
