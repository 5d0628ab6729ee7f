//! The markup of every page: the shell around each topic (header, sidebar, search box, theme
//! button) and the topic itself. `prerender` renders these into each page's HTML; in the
//! browser `crate::browser` gives the same elements their behaviour, so these components
//! hold no state and no handlers.

mod not_found;
mod search_box;
mod shell;
mod sidebar;
mod theme_toggle;
mod topic_page;

pub use not_found::NotFound;
pub use shell::{Shell, ShellProps};
pub use topic_page::{TopicPage, TopicPageProps};
