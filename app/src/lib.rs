//! The rdma-lab single-page app. It draws what the engine computes and holds no model logic.
//!
//! One crate, several programs (see `src/bin/`): `prerender`, the native build step that
//! writes every page's HTML from `components`; the shell (`app`, `browser`), the small wasm
//! module every page loads, which follows links without reloading, runs the search box and
//! mounts a view; one wasm module per interactive view (`view_qp`, …, from `views`), loaded
//! only on its page; and the DCQCN worker.

pub mod base;
pub mod browser;
pub mod components;
// The tests use the build script's compiler, not every part of it.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../build/content.rs"]
mod content_compiler;
#[cfg(test)]
mod content_rules;
pub mod search_index;
pub mod theme;
pub mod topics;
pub mod views;

/// The id of the element holding the page, in every page `prerender` writes.
pub const ROOT_ID: &str = "lab";
