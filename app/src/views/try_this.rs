//! The "Try this" box at the top of a view: the engine's tasks for it, each ticked off (with
//! what it shows) once the learner has made the model do it. The view keeps the
//! [`Progress`]; this only draws it.

use engine::exercise::{Exercise, Progress};
use yew::prelude::*;

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
