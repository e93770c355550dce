// `npm start`: build the web app and the server when a build is missing or older than its sources, then
// serve the studio (API under /v1 and the web app) on one port with the compiled server, as production
// runs it (node, no tsx). Sample data is loaded by the server on first start.
import path from 'node:path';
import { SERVER_ENV, builds } from './builds.mjs';
import { run } from './lib.mjs';

await builds({ ifStale: true });
// Arguments pass through: `npm start -- --print-config` prints the effective configuration.
// `node` is the pinned Node 22 (node_modules/.bin comes first on run()'s PATH).
const { code } = await run('node', [path.join('packages', 'server', 'dist', 'main.js'), ...process.argv.slice(2)], { env: SERVER_ENV });
process.exit(code);
