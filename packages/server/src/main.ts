import { ConfigError, configFromEnv, printableConfig } from './config';
import { buildStudio } from './app';
import { ensureFirstAdmin, firstAdminCaller } from './bootstrap';
import path from 'node:path';
import { ensureSamples } from './samples';
import { ensureSampleDatasets } from './samples/datasets';
import { refusedConnections } from './services/connections';
import { stopOnSignals } from './stop';

/** `npm start`: one process serving the API under /v1 and the built web app on one port. */
async function main() {
  const config = configFromEnv();
  if (process.argv.includes('--print-config')) {
    console.log(JSON.stringify(printableConfig(config), null, 2));
    return;
  }
  const studio = await buildStudio(config, { logger: true });
  // The one-time password goes in the frame printed last (startFrame), not among the progress lines above it.
  const credentials: string[] = [];
  await ensureFirstAdmin(studio.services.db, config, (line) => line.trim() && credentials.push(line.trim()));
  await studio.app.listen({ port: config.port, host: config.host });
  // From the first request on (sample data may still be loading): SIGTERM or SIGINT stops within 10 s (stop.ts).
  stopOnSignals({ server: studio.app.server, close: (opts) => studio.close(opts) }, { log: (line) => console.log(line), exit: (code) => process.exit(code) });
  console.log(`Studio listening on ${config.publicUrl} (catalog: ${studio.store.kind}, data: ${config.dataDir})`);
  // A user-SQL worker process started now, so the first query does not wait for one (tests start them on first use).
  void studio.services.sandbox.warm().catch((e: unknown) => console.error('Starting a SQL worker process failed:', e));
  // Saved connections the network rule refuses (e.g. saved before STUDIO_CONNECTION_HOSTS existed) are
  // named once, so the administrator can list their hosts; the admin page lists them too.
  void refusedConnections(studio.services.db, studio.services.reach).then(
    (list) => {
      for (const c of list) console.warn(`Data connection "${c.name}" (${c.id}, ${c.connectionType} ${c.host}:${c.port}) cannot connect: ${c.reason}`);
    },
    (e) => console.error('Checking saved data connections failed:', e),
  );
  // The analytic sets' built-in sample panel, generated once into STUDIO_DATA_DIR/analytics/sample
  // (alongside the sample datasets; the views answer 409 until it is there).
  // Sample data loads after the server answers, so the first start is usable at once.
  if (config.samples) {
    const panel = studio.services.analytics.ensureSample().then((made) => made && console.log('Analytic-set sample panel ready'), (e) => console.error('Analytic-set sample failed:', e));
    const owner = await firstAdminCaller(studio.services);
    const log = (line: string) => console.log(line);
    // The datasets load while the panel is generated; what is built over them follows (samples/index.ts).
    if (owner) await ensureSampleDatasets(studio.services, owner, log).catch((e) => console.error('Sample data failed:', e));
    await panel;
    // The sample maps, dashboard and workbook come with the datasets (samples/index.ts); the hexagon map's
    // places are the analytic sets' panel, so that dataset waits for the panel.
    const analytics = studio.services.analytics;
    const placesFile = analytics.sampleReady() ? path.join(analytics.sampleDir, 'places.parquet') : null;
    if (owner) await ensureSamples(studio.services, owner, { placesFile, log }).catch((e) => console.error('Sample data failed:', e));
  }
  console.log(startFrame(config.publicUrl, credentials.length ? credentials : [`Sign in${config.adminEmail ? ` as ${config.adminEmail}` : ''} with your password.`]));
}

/** The address and how to sign in, framed, as the start's last lines: what a newcomer looks for. */
function startFrame(url: string, lines: string[]): string {
  const body = [`The studio is ready: ${url}`, '', ...lines];
  const width = Math.max(...body.map((l) => l.length));
  return ['', `┌${'─'.repeat(width + 2)}┐`, ...body.map((l) => `│ ${l.padEnd(width)} │`), `└${'─'.repeat(width + 2)}┘`, ''].join('\n');
}

main().catch((e) => {
  // A bad configuration is the operator's to fix: its message names each variable, no stack needed.
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
