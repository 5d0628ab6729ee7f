//! The "Try this" box at the top of a view: the engine's tasks for it, each ticked off (with
//! what it shows) once the learner has made the model do it. A view with a reducer keeps the
//! [`Progress`] there; one without asks [`use_tried`] for it.

use std::rc::Rc;

use engine::exercise::{Exercise, Progress};
use yew::prelude::*;

/// A view's progress through its exercises, as hook state.
struct Tried<O: 'static> {
    exercises: &'static [Exercise<O>],
    progress: Progress,
}

impl<O: 'static> PartialEq for Tried<O> {
    fn eq(&self, other: &Self) -> bool {
        self.progress == other.progress
    }
}

impl<O: 'static> Reducible for Tried<O> {
    type Action = O;

    fn reduce(self: Rc<Self>, seen: O) -> Rc<Self> {
        let progress = self.progress.observe(self.exercises, &seen);
        if progress == self.progress {
            return self;
        }
        Rc::new(Tried {
            exercises: self.exercises,
            progress,
        })
    }
}

/// The progress so far, and where to send each thing the model did. Observations are
/// applied in order (two in one turn both count) and redraw the view only when a task is
/// newly done.
#[hook]
pub fn use_tried<O: 'static>(exercises: &'static [Exercise<O>]) -> (Progress, Callback<O>) {
    let tried = use_reducer_eq(move || Tried {
        exercises,
        progress: Progress::default(),
    });
    let dispatcher = tried.dispatcher();
    (
        tried.progress,
        Callback::from(move |seen| dispatcher.dispatch(seen)),
    )
}

/// One task as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub id: &'static str,
    pub task: &'static str,
    pub lesson: &'static str,
    pub done: bool,
}

/// The view's exercises with how far the learner has got.
pub fn attempts<O: ?Sized>(exercises: &[Exercise<O>], progress: Progress) -> Vec<Attempt> {
    exercises
        .iter()
        .enumerate()
        .map(|(i, e)| Attempt {
            id: e.id,
            task: e.task,
            lesson: e.lesson,
            done: progress.is_done(i),
        })
        .collect()
}

#[derive(Properties, PartialEq)]
pub struct TryThisProps {
    /// The view's name, for element ids (`qp`, `dcqcn`, …).
    pub view: AttrValue,
    pub attempts: Vec<Attempt>,
}

#[function_component]
pub fn TryThis(props: &TryThisProps) -> Html {
    let title = format!("{}-try-title", props.view);
    let done = props.attempts.iter().filter(|a| a.done).count();
    html! {
        <section class="try-this" aria-labelledby={title.clone()}>
            <h2 id={title}>{ "Try this" }</h2>
            <ol class="try-tasks">
                { for props.attempts.iter().map(|a| html! {
                    <li class={classes!("try-task", a.done.then_some("done"))}
                        data-exercise={a.id} data-done={a.done.to_string()}>
                        <span class="try-mark" aria-hidden="true">{ if a.done { "✓" } else { "○" } }</span>
                        <span class="try-text">
                            { a.task }
                            if a.done { <span class="visually-hidden">{ " Done." }</span> }
                        </span>
                        if a.done { <p class="try-lesson">{ a.lesson }</p> }
                    </li>
                }) }
            </ol>
            <p class="try-count" aria-live="polite">
                { format!("{done} of {} done", props.attempts.len()) }
            </p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASKS: [Exercise<u8>; 2] = [
        Exercise {
            id: "one",
            task: "",
            lesson: "",
            done: |n| *n == 1,
        },
        Exercise {
            id: "two",
            task: "",
            lesson: "",
            done: |n| *n == 2,
        },
    ];

    #[test]
    fn observations_in_one_turn_all_count_and_a_repeat_changes_nothing() {
        let start = Rc::new(Tried {
            exercises: &TASKS,
            progress: Progress::default(),
        });
        let after = start.reduce(1).reduce(2);
        assert_eq!(after.progress.count(), 2);
        let again = after.clone().reduce(1);
        assert!(
            Rc::ptr_eq(&after, &again),
            "nothing new: the same state, no redraw"
        );
        let drawn = attempts(&TASKS, after.progress);
        assert!(drawn.iter().all(|a| a.done));
    }
}
