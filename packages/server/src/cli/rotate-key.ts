import fs from 'node:fs';
import { configFromEnv } from '../config';
import { openCatalog } from '../store/db';
import { keyFilePath, loadSecrets, newMasterKey, resealSecrets } from '../auth/master-key';
import { Secrets } from '../auth/secrets';

/**
 * `npm run rotate-key`: a new master key. Every stored secret is re-sealed with it in one transaction;
 * then the key file is replaced (or, with STUDIO_SECRET, the new value is printed to set on every node).
 * Run it with the same environment as the server, with the API nodes stopped: a node still holding the
 * old key cannot open secrets sealed with the new one. Safe to run again.
 */
async function main() {
  const config = configFromEnv();
  const store = await openCatalog({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const current = await loadSecrets(store.db, config, (line) => console.log(line));
    const next = newMasterKey();
    // The new key is on disk before any secret is sealed with it: a stop in between leaves it in master.key.new.
    const staged = `${keyFilePath(config)}.new`;
    if (!config.secret) fs.writeFileSync(staged, `${next}\n`, { mode: 0o600 });
    const count = await resealSecrets(store.db, current, new Secrets(next));
    if (config.secret) {
      console.log(`Re-sealed ${count} stored secrets. Set this on every API node before starting them again:\nSTUDIO_SECRET=${next}`);
    } else {
      fs.renameSync(staged, keyFilePath(config));
      console.log(`Re-sealed ${count} stored secrets; the new key is in ${keyFilePath(config)} (copy it to every API node).`);
    }
  } finally {
    await store.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
