//! The pieces of the page: the shell around every view, and the views themselves.

mod not_found;
mod search_box;
mod shell;
mod sidebar;
mod theme_toggle;
mod topic_page;

pub use not_found::NotFound;
pub use shell::Shell;
pub use topic_page::TopicPage;
