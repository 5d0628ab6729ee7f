use yew::prelude::*;

/// The search field; `crate::browser::search` fetches the index on first use and draws the
/// results below it.
#[function_component]
pub fn SearchBox() -> Html {
    html! {
        <div class="search" role="search">
            <input
                type="search"
                class="search-input"
                placeholder="Search"
                aria-label="Search the lab"
                aria-keyshortcuts="/"
                title="Search the lab (press / to come here)"
                role="combobox"
                aria-autocomplete="list"
                aria-controls="search-results"
                aria-expanded="false"
                autocomplete="off"
                spellcheck="false"
            />
        </div>
    }
}
