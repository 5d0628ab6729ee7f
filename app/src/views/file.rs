//! Files a learner opens: a drop target and a file input that both hand over the file
//! chosen, and a site file fetched as a `Blob`, so a view reads either the same way.

use gloo::utils::window;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, File};
use yew::prelude::*;

/// The first file of a chosen or dropped list.
fn first(files: Option<web_sys::FileList>) -> Option<File> {
    files?.get(0)
}

#[derive(Properties, PartialEq)]
pub struct FileDropProps {
    /// The drop target's class; it gains `dragging` while a file is over it.
    pub class: AttrValue,
    pub on_file: Callback<File>,
    pub children: Html,
}

/// Takes a file dropped anywhere on its children.
#[function_component]
pub fn FileDrop(props: &FileDropProps) -> Html {
    let dragging = use_state_eq(|| false);
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(true);
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let ondrop = {
        let (dragging, on_file) = (dragging.clone(), props.on_file.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            if let Some(file) = first(e.data_transfer().and_then(|d| d.files())) {
                on_file.emit(file);
            }
        })
    };
    let class = classes!(props.class.to_string(), dragging.then_some("dragging"));
    html! {
        <div {class} {ondragover} {ondragleave} {ondrop}>{ props.children.clone() }</div>
    }
}

#[derive(Properties, PartialEq)]
pub struct FileInputProps {
    pub id: AttrValue,
    /// The `accept` list: extensions and media types.
    pub accept: AttrValue,
    pub on_file: Callback<File>,
}

/// A file input that hands over the file chosen.
#[function_component]
pub fn FileInput(props: &FileInputProps) -> Html {
    let on_file = props.on_file.clone();
    let onchange = Callback::from(move |e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        if let Some(file) = first(input.files()) {
            on_file.emit(file);
        }
    });
    html! { <input id={props.id.clone()} type="file" accept={props.accept.clone()} {onchange} /> }
}

/// A file of the site (a path relative to its root, as `<base>` resolves it) as a `Blob`.
pub async fn fetch_blob(url: &str) -> Result<Blob, String> {
    let response = JsFuture::from(window().fetch_with_str(url))
        .await
        .map_err(|_| format!("could not fetch {url}"))?
        .unchecked_into::<web_sys::Response>();
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let unreadable = |_| "could not read the response".to_string();
    let blob = JsFuture::from(response.blob().map_err(unreadable)?).await;
    Ok(blob.map_err(unreadable)?.unchecked_into())
}
