//! The /fabric-lab view as its own wasm module, mounted by the shell on its page (see `app::views`).

app::view_module!(app::views::fabric_lab::FabricLabView);
