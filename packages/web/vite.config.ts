import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const here = path.dirname(fileURLToPath(import.meta.url));
const verbose = process.env.STUDIO_BUILD_VERBOSE === '1';
/**
 * STUDIO_TEST_BUILD=1 (scripts/builds.mjs for the browser tests and benches): the browser tests' map hooks and
 * the bench's page compiled in, into dist-test. Otherwise (`npm run build`, `npm start`) they are not in the
 * bundle at all: `__STUDIO_TEST_HOOKS__` is false and the code behind it is dropped (src/app/test-hooks.ts).
 */
const testBuild = process.env.STUDIO_TEST_BUILD === '1';
/** A bundler message about a file under node_modules (its id, the place it points at, or the importer it names). */
const fromDependency = (log: { id?: string; loc?: { file?: string }; message?: string }) =>
  [log.id, log.loc?.file, log.message].some((f) => f?.includes('/node_modules/'));

/**
 * kepler.gl's imports of `@loaders.gl/arrow` get src/map/loaders-arrow-compat.ts: the GeoArrow helpers kepler 3.2.6
 * calls from it moved to other loaders.gl packages in 4.5 (the file says which). Other importers, the shim too, get
 * the package itself.
 */
function keplerLoadersArrow(): Plugin {
  const shim = path.resolve(here, 'src/map/loaders-arrow-compat.ts');
  return {
    name: 'kepler-loaders-arrow',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === '@loaders.gl/arrow' && importer?.includes('/@kepler.gl/') ? shim : null;
    },
  };
}

/** `npm run dev` proxies the API to a studio server on STUDIO_API (default :8080). */
export default defineConfig({
  root: here,
  plugins: [react(), keplerLoadersArrow()],
  define: { __STUDIO_TEST_HOOKS__: JSON.stringify(testBuild) },
  // One apache-arrow in the bundle: kepler's CommonJS `require` would get Arrow.dom.js and our imports
  // Arrow.dom.mjs, two copies whose classes differ, so kepler's Table refused our record batches past
  // the first ("Table and inner RecordBatch schemas must be equivalent"; 100k+ row datasets).
  resolve: { alias: [{ find: /^apache-arrow$/, replacement: path.resolve(here, '../../node_modules/apache-arrow/Arrow.dom.mjs') }] },
  // Source maps are written for the server's eyes only: 'hidden' leaves the bundles without a link to them, and
  // the server never serves a .map file.
  build: {
    outDir: path.join(here, testBuild ? 'dist-test' : 'dist'),
    emptyOutDir: true,
    sourcemap: 'hidden',
    // Warnings about dependencies' code (loaders.gl's worker code uses direct eval: dozens of coloured blocks at every
    // first start) are not the studio's to fix and buried the start's useful lines; the studio's own still show.
    // STUDIO_BUILD_VERBOSE=1 (`npm start -- --verbose`) shows everything, the bundler's timings too.
    rolldownOptions: verbose
      ? {}
      : {
          checks: { bundlerTimings: false },
          onLog(level, log, handler) {
            if (level === 'warn' && fromDependency(log)) return;
            handler(level, log);
          },
        },
  },
  server: { proxy: { '/v1': process.env.STUDIO_API ?? 'http://127.0.0.1:8080' } },
});
