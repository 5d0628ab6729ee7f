//! The /fabric-lab view as its own wasm module, mounted by the shell on its page (see
//! `app::views`), and started again in the page's worker to run the fabric simulator.

app::view_module!(
    app::views::fabric_lab::FabricLabView,
    worker: app::views::fabric_lab::worker::serve
);
