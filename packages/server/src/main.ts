import { ConfigError, configFromEnv, printableConfig } from './config';
import { buildStudio } from './app';
import { ensureFirstAdmin, firstAdminCaller } from './bootstrap';
import { ensureSampleDatasets } from './samples/datasets';
import { refusedConnections } from './services/connections';

/** `npm start`: one process serving the API under /v1 and the built web app on one port. */
async function main() {
  const config = configFromEnv();
  if (process.argv.includes('--print-config')) {
    console.log(JSON.stringify(printableConfig(config), null, 2));
    return;
  }
  const studio = await buildStudio(config, { logger: true });
  await ensureFirstAdmin(studio.services.db, config, (line) => console.log(line));
  await studio.app.listen({ port: config.port, host: config.host });
  // From the first request on (sample data may still be loading), SIGTERM (a service manager) or SIGINT
  // (Ctrl-C, often sent to the whole process group, so twice): stop taking requests, let those in flight
  // finish, close the stores, once.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await studio.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  console.log(`Studio listening on ${config.publicUrl} (catalog: ${studio.store.kind}, data: ${config.dataDir})`);
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
  if (process.env.STUDIO_SAMPLES !== 'off') {
    void studio.services.analytics.ensureSample().then((made) => made && console.log('Analytic-set sample panel ready'), (e) => console.error('Analytic-set sample failed:', e));
  }
  // Sample data loads after the server answers, so the first start is usable at once.
  if (process.env.STUDIO_SAMPLES !== 'off') {
    const owner = await firstAdminCaller(studio.services);
    if (owner) await ensureSampleDatasets(studio.services, owner, (line) => console.log(line)).catch((e) => console.error('Sample data failed:', e));
  }
}

main().catch((e) => {
  // A bad configuration is the operator's to fix: its message names each variable, no stack needed.
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
