//! The /dcqcn view as its own wasm module, mounted by the shell on its page (see
//! `app::views`), and started again in the page's worker to run the packet model.

app::view_module!(
    app::views::dcqcn::DcqcnView,
    worker: app::views::dcqcn::worker::serve
);
