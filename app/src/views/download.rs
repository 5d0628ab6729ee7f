//! Saving a view's output as a file: the browser's download of a temporary `<a download>`,
//! for bytes made on the page (a pcap, a CSV) or a data URL (a canvas's PNG).

use gloo::utils::document;
use wasm_bindgen::JsCast;

/// Saves `bytes` as the file `name` of type `mime`.
pub fn save_bytes(bytes: &[u8], name: &str, mime: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| "the browser refused to make the file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "the browser refused to make a download link".to_string())?;
    let saved = save_url(&url, name);
    // The click has handed the file to the browser: the URL can go.
    let _ = web_sys::Url::revoke_object_url(&url);
    saved
}

/// Saves what `url` holds (a `data:` URL, say) as the file `name`.
pub fn save_url(url: &str, name: &str) -> Result<(), String> {
    let anchor: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .map_err(|_| "no document".to_string())?
        .unchecked_into();
    anchor.set_href(url);
    anchor.set_download(name);
    anchor.click();
    Ok(())
}
