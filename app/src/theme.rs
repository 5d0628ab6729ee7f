//! Light and dark themes. The page follows the system's `prefers-color-scheme` until the
//! learner picks a theme; the pick is remembered in local storage.
//!
//! The colours themselves live in `assets/style.css` (CSS `light-dark()`), so a page with no
//! remembered choice follows the system even before the app has loaded.

use gloo::utils::{document, window};

const STORAGE_KEY: &str = "rdma-lab.theme";
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn from_name(name: &str) -> Option<Theme> {
        match name {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The theme button's label when pressing it shows this theme.
    pub fn switch_label(self) -> String {
        format!("Switch to the {} theme", self.name())
    }

    /// The button's symbol for this theme.
    pub fn symbol(self) -> &'static str {
        match self {
            Theme::Light => "☀",
            Theme::Dark => "☾",
        }
    }

    pub fn other(self) -> Theme {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }

    /// The learner's earlier pick. Storage can be unavailable (private windows, blocked
    /// cookies); then there is simply no remembered choice.
    pub fn remembered() -> Option<Theme> {
        if cfg!(not(target_arch = "wasm32")) {
            return None; // Prerendering: the page's own script applies the pick before paint.
        }
        let storage = window().local_storage().ok().flatten()?;
        let name = storage.get_item(STORAGE_KEY).ok().flatten()?;
        Theme::from_name(&name)
    }

    /// What the operating system asks for.
    pub fn system() -> Theme {
        if cfg!(not(target_arch = "wasm32")) {
            return Theme::Light;
        }
        let dark = window()
            .match_media(DARK_QUERY)
            .ok()
            .flatten()
            .is_some_and(|query| query.matches());
        if dark {
            Theme::Dark
        } else {
            Theme::Light
        }
    }

    /// The theme the page shows now.
    pub fn current() -> Theme {
        Theme::remembered().unwrap_or_else(Theme::system)
    }

    /// Shows this theme and remembers it for the next visit.
    pub fn choose(self) {
        if let Some(storage) = window().local_storage().ok().flatten() {
            // Failing to remember (quota, privacy mode) still leaves the theme applied.
            let _ = storage.set_item(STORAGE_KEY, self.name());
        }
        self.apply();
    }

    /// Pins the page to this theme, overriding the system preference.
    pub fn apply(self) {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", self.name());
        }
    }

    /// The media query to watch for system changes, when the browser has one.
    pub fn system_query() -> Option<web_sys::MediaQueryList> {
        window().match_media(DARK_QUERY).ok().flatten()
    }
}
