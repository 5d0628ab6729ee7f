// A view's Web Worker (see app/src/views/worker.rs). The page's first message names the
// view's module script, the page's own compiled WebAssembly.Module (so nothing is
// downloaded again; without it the script fetches its .wasm) and the export to call, which
// installs the handler of every later message and posts "ready".
self.onmessage = (event) => {
  self.onmessage = null;
  const { script, module, entry } = event.data;
  import(script)
    .then(async (exports) => {
      await exports.default(module ? { module_or_path: module } : undefined);
      exports[entry]();
    })
    // Thrown from a task of its own, the error reaches the page's Worker.onerror.
    .catch((error) => setTimeout(() => { throw error; }));
};
