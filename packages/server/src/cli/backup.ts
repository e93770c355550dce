import path from 'node:path';
import { ConfigError, configFromEnv } from '../config';
import { BackupError, backupStudio, restoreStudio } from '../services/backup';

/**
 * `npm run backup -- <folder>` and `npm run restore -- <folder>` (this file with `backup` or `restore` first),
 * with the server's environment; services/backup.ts says what is copied and when to run them.
 */
async function main() {
  const [command, folder] = process.argv.slice(2);
  if (command !== 'backup' && command !== 'restore') throw new BackupError('Run it as npm run backup -- <folder> or npm run restore -- <folder>');
  if (!folder) throw new BackupError(`Name the backup folder: npm run ${command} -- <folder>`);
  const run = command === 'backup' ? backupStudio : restoreStudio;
  const manifest = await run(configFromEnv(), path.resolve(folder), (line) => console.log(line));
  console.log(`${command === 'backup' ? 'Backup' : 'Restore'} done: ${manifest.objects} objects, ${manifest.blobs} blobs, ${manifest.bytes} bytes (backup of ${manifest.createdAt})`);
}

main().catch((e) => {
  // What the operator must fix is said in one line; anything else keeps its stack.
  console.error(e instanceof BackupError || e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
