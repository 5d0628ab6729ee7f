//! A view's own module, mounted in its page's `.view-slot`: imported when the page opens
//! (the page itself preloads it), mounted into `.view-root`, unmounted (closing its
//! connections and timers) when the learner moves to another page.

use std::cell::RefCell;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Element;

use super::{describe, find};

#[derive(Default)]
enum Mounted {
    #[default]
    None,
    /// Importing for the slot with this number; the learner may leave before it is done.
    Loading(u32),
    /// The module's handle, whose `unmount()` removes the view.
    Shown(JsValue),
}

thread_local! {
    static MOUNTED: RefCell<Mounted> = const { RefCell::new(Mounted::None) };
    static SLOTS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The module's URL: each page lists every view's module in
/// `<meta name="lab-view" data-view="qp" content="views/qp-…/qp.js">`, relative to the root.
pub(crate) fn module_url(view: &str) -> Result<String, String> {
    let document = gloo::utils::document();
    let meta = find::<Element>(&format!("meta[name=lab-view][data-view=\"{view}\"]"))
        .ok_or_else(|| format!("this build has no module for the {view} view"))?;
    let relative = meta.get_attribute("content").unwrap_or_default();
    let base = document.base_uri().ok().flatten().unwrap_or_default();
    web_sys::Url::new_with_base(&relative, &base)
        .map(|url| url.href())
        .map_err(describe)
}

async fn import(view: &str) -> Result<JsValue, String> {
    let url = module_url(view)?;
    // wasm-bindgen has no dynamic import; a function of the page's own does it.
    let import = Function::new_with_args("url", "return import(url)");
    let exports = JsFuture::from(Promise::from(
        import
            .call1(&JsValue::NULL, &url.into())
            .map_err(describe)?,
    ))
    .await
    .map_err(describe)?;
    let init: Function = Reflect::get(&exports, &"default".into())
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| "its module has no start function".to_string())?;
    JsFuture::from(Promise::from(init.call0(&JsValue::NULL).map_err(describe)?))
        .await
        .map_err(describe)?;
    Ok(exports)
}

fn mount(exports: &JsValue, root: &Element) -> Result<JsValue, String> {
    let mount: Function = Reflect::get(exports, &"mount".into())
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| "its module has no mount function".to_string())?;
    mount.call1(&JsValue::NULL, root).map_err(describe)
}

/// Mounts the view of the page shown, if it has one.
pub fn mount_in_page() {
    let Some(slot) = find::<Element>("#main .view-slot[data-view]") else {
        return;
    };
    let view = slot.get_attribute("data-view").unwrap_or_default();
    let turn = SLOTS.with(|slots| {
        slots.set(slots.get() + 1);
        slots.get()
    });
    MOUNTED.with(|m| *m.borrow_mut() = Mounted::Loading(turn));
    wasm_bindgen_futures::spawn_local(async move {
        let result = match (
            import(&view).await,
            slot.query_selector(".view-root").ok().flatten(),
        ) {
            (Ok(exports), Some(root)) => {
                let still_here =
                    MOUNTED.with(|m| matches!(*m.borrow(), Mounted::Loading(t) if t == turn));
                if !still_here {
                    return;
                }
                mount(&exports, &root)
            }
            (Err(reason), _) => Err(reason),
            (_, None) => Err("its page has no place for it".to_string()),
        };
        let preview = slot.query_selector(".view-preview").ok().flatten();
        match result {
            Ok(handle) => {
                MOUNTED.with(|m| *m.borrow_mut() = Mounted::Shown(handle));
                if let Some(preview) = preview {
                    preview.remove();
                }
                settle(slot).await;
            }
            Err(reason) => {
                MOUNTED.with(|m| *m.borrow_mut() = Mounted::None);
                let _ = slot.class_list().add_1("settled");
                if let Some(preview) = preview {
                    let name = slot
                        .get_attribute("data-name")
                        .unwrap_or_else(|| "view".into());
                    let _ = preview.set_attribute("role", "alert");
                    // No longer a preview: the slot stops holding the view's place.
                    preview.set_class_name("view-failed");
                    preview.set_text_content(Some(&format!(
                        "The {name} could not load ({reason}). Reload the page to try again; the reference text below stands on its own."
                    )));
                }
            }
        }
    });
}

/// Lets the slot take the view's own height once the view has grown past the screen (most
/// do in their first frame; /live once the probe's first sample is in), or after
/// `SETTLE_LIMIT_MS` when it stays short (a view waiting on something that does not come).
async fn settle(slot: Element) {
    const SETTLE_LIMIT_MS: u32 = 1500;
    const STEP_MS: u32 = 50;
    let screen = gloo::utils::window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let mut waited = 0;
    while waited < SETTLE_LIMIT_MS {
        let drawn = slot
            .query_selector(".view-root")
            .ok()
            .flatten()
            .map_or(0.0, |root| root.get_bounding_client_rect().height());
        if drawn >= screen {
            break;
        }
        sleep(STEP_MS).await;
        waited += STEP_MS;
    }
    let _ = slot.class_list().add_1("settled");
    super::navigation::view_settled();
}

async fn sleep(ms: u32) {
    let wait = Promise::new(&mut |resolve, _| {
        let _ = gloo::utils::window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
    });
    let _ = JsFuture::from(wait).await;
}

/// Removes the view shown, if any, and forgets one still loading.
pub fn unmount() {
    let mounted = MOUNTED.with(|m| std::mem::take(&mut *m.borrow_mut()));
    if let Mounted::Shown(handle) = mounted {
        if let Ok(unmount) = Reflect::get(&handle, &"unmount".into()) {
            if let Ok(unmount) = unmount.dyn_into::<Function>() {
                let _ = unmount.call0(&handle);
            }
        }
    }
}
