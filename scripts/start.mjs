// `npm start`: build the web app when its build is missing or older than its sources, then serve the
// studio (API under /v1 and the web app) on one port. Sample data is loaded by the server on first start.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, run } from './lib.mjs';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const web = path.join(ROOT, 'packages', 'web');
const built = path.join(web, 'dist', 'index.html');
if (fs.existsSync(path.join(web, 'src')) && (!fs.existsSync(built) || fs.statSync(built).mtimeMs < newestMtime(path.join(web, 'src')))) {
  console.log('Building the web app…');
  const { code } = await run('npm', ['run', 'build']);
  if (code !== 0) process.exit(code);
}
// Arguments pass through: `npm start -- --print-config` prints the effective configuration.
const { code } = await run('tsx', [path.join('packages', 'server', 'src', 'main.ts'), ...process.argv.slice(2)]);
process.exit(code);
