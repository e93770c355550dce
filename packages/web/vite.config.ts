import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = path.dirname(fileURLToPath(import.meta.url));

/** `npm run dev` proxies the API to a studio server on STUDIO_API (default :8080). */
export default defineConfig({
  root: here,
  plugins: [react()],
  // One apache-arrow in the bundle: kepler's CommonJS `require` would get Arrow.dom.js and our imports
  // Arrow.dom.mjs, two copies whose classes differ, so kepler's Table refused our record batches past
  // the first ("Table and inner RecordBatch schemas must be equivalent"; 100k+ row datasets).
  resolve: { alias: [{ find: /^apache-arrow$/, replacement: path.resolve(here, '../../node_modules/apache-arrow/Arrow.dom.mjs') }] },
  // Source maps are written for the server's eyes only: 'hidden' leaves the bundles without a link to them, and
  // the server never serves a .map file.
  build: { outDir: path.join(here, 'dist'), emptyOutDir: true, sourcemap: 'hidden' },
  server: { proxy: { '/v1': process.env.STUDIO_API ?? 'http://127.0.0.1:8080' } },
});
