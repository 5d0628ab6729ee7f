//! The shell every page loads: it gives the page `prerender` wrote its behaviour (see
//! `app::browser`).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    app::browser::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the app runs in a browser: build the site with ./lab site");
}
