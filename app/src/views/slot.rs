//! Where a view appears on its topic's page. The page (and a browser without JavaScript)
//! shows a sentence saying what opens here; in the browser `crate::browser::views` imports
//! the view's module, mounts it in `.view-root` and removes the sentence.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ViewSlotProps {
    /// The topic's route path; `/qp` shows the view built as `view_qp`.
    pub path: &'static str,
    /// What the view is, in words (`content/topics.toml`'s `view`).
    pub name: &'static str,
}

#[function_component]
pub fn ViewSlot(props: &ViewSlotProps) -> Html {
    let name = props.name;
    html! {
        <div class="view-slot" data-view={props.path.trim_matches('/')} data-name={name}>
            <p class="view-preview">
                { format!("The {name} opens here once its code has loaded; it runs in your browser and needs JavaScript. The reference text below stands on its own.") }
            </p>
            <div class="view-root"></div>
        </div>
    }
}
