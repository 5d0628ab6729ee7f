//! Text a learner pasted, kept for this tab, so following a link and coming Back finds it
//! again: session storage stays in the browser and ends with the tab, unlike the URL.

fn session_storage() -> Option<web_sys::Storage> {
    gloo::utils::window().session_storage().ok().flatten()
}

/// The text this tab kept under `key`, if any.
pub fn kept(key: &str) -> Option<String> {
    session_storage()?
        .get_item(key)
        .ok()
        .flatten()
        .filter(|t| !t.is_empty())
}

/// Keeps `text` under `key` for this tab. A text past the storage quota (several MB) is not
/// kept, and an older one is dropped so that it cannot come back in place of this one.
pub fn keep(key: &str, text: &str) {
    let Some(storage) = session_storage() else {
        return;
    };
    if text.is_empty() || storage.set_item(key, text).is_err() {
        let _ = storage.remove_item(key);
    }
}
