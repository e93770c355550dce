/**
 * Perspective, loaded on first use only (3.2 MB of WebAssembly): the engine runs in a Web Worker, the
 * viewer in the page. The three wasm files (engine, its client, the viewer) are served by this studio (Vite's `?url`), never fetched elsewhere.
 */
import perspective from '@finos/perspective';
import perspectiveViewer from '@finos/perspective-viewer';
import '@finos/perspective-viewer-datagrid';
import '@finos/perspective-viewer/dist/css/pro.css';
import SERVER_WASM from '@finos/perspective/dist/wasm/perspective-server.wasm?url';
import CLIENT_JS_WASM from '@finos/perspective/dist/wasm/perspective-js.wasm?url';
import CLIENT_WASM from '@finos/perspective-viewer/dist/wasm/perspective-viewer.wasm?url';

type Client = Awaited<ReturnType<typeof perspective.worker>>;
let client: Promise<Client> | null = null;

/** The one Perspective engine of the page, started on first call. */
export function perspectiveClient(): Promise<Client> {
  if (!client) {
    client = (async () => {
      await Promise.all([perspective.init_server(fetch(SERVER_WASM)), perspective.init_client(fetch(CLIENT_JS_WASM)), perspectiveViewer.init_client(fetch(CLIENT_WASM))]);
      return perspective.worker();
    })();
  }
  return client;
}
