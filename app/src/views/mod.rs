//! The interactive views: one module each, drawn above a topic's reference text. They draw
//! what the engine computes and keep their state in hooks.
//!
//! Each view is its own wasm module (`src/bin/view_<name>.rs`, built by `./lab` into
//! `views/<name>-<hash>/`), so a page downloads a view's code only when it shows that view:
//! the shell's `ViewSlot` imports the module and mounts it in its place.

pub mod dcqcn;
pub mod fabric_lab;
pub mod flows;
pub mod live;
pub mod lossless;
pub mod nccl;
pub mod nccl_log;
pub mod qp;
pub mod roce;
pub mod topology;
pub mod training;

pub mod download;
pub mod figures;
pub mod file;
pub mod form;
pub mod kept;
pub mod page_query;
pub mod redraw;
mod slot;
pub mod timing;
pub mod try_this;
pub mod worker;

pub use slot::ViewSlot;

use std::rc::Rc;

/// Shared data compared by identity: props are compared at every render, and a big list
/// (a capture's frames, a run's series) is one allocation per version, never compared
/// element by element.
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Self {
        Shared(Rc::new(T::default()))
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The performance mark a view sets once its own module has drawn it (the bench's "ready
/// for input").
pub const READY_MARK: &str = "lab-view-ready";

/// Sets `READY_MARK`.
pub fn mark_ready() {
    timing::mark(READY_MARK);
}

/// The exports of a view's module: `mount(element)` draws `$view` into the element and
/// returns the handle whose `unmount()` removes it (closing its connections and timers).
/// With `worker: serve`, the module also runs in the view's Web Worker, where
/// `app::views::worker` calls its `serve_worker` export, which calls `serve`.
#[macro_export]
macro_rules! view_module {
    ($view:path, worker: $serve:path) => {
        $crate::view_module!($view);

        // The name is `app::views::worker::WORKER_ENTRY`.
        #[wasm_bindgen::prelude::wasm_bindgen]
        pub fn serve_worker() {
            $serve()
        }
    };
    ($view:path) => {
        #[yew::function_component]
        fn Root() -> yew::Html {
            yew::functional::use_effect_with((), |_| $crate::views::mark_ready());
            yew::html! { <$view /> }
        }

        #[wasm_bindgen::prelude::wasm_bindgen]
        pub struct MountedView(Option<yew::AppHandle<Root>>);

        #[wasm_bindgen::prelude::wasm_bindgen]
        impl MountedView {
            pub fn unmount(&mut self) {
                if let Some(handle) = self.0.take() {
                    handle.destroy();
                }
            }
        }

        #[wasm_bindgen::prelude::wasm_bindgen]
        pub fn mount(root: web_sys::Element) -> MountedView {
            console_error_panic_hook::set_once();
            MountedView(Some(yew::Renderer::<Root>::with_root(root).render()))
        }

        fn main() {}
    };
}
