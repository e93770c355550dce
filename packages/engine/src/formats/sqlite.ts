import type * as Sqlite from 'node:sqlite';

/**
 * Node's built-in SQLite (`node:sqlite`, nothing to install; GeoPackage is SQLite). Node 22 prints an
 * ExperimentalWarning the first time it loads: that one warning is kept out of the logs while it loads, every
 * other warning passes as it was.
 */
let loaded: Promise<typeof Sqlite> | undefined;

export function loadSqlite(): Promise<typeof Sqlite> {
  loaded ??= (async () => {
    const emit = process.emitWarning;
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === 'string' ? warning : warning.message;
      const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
      if (type === 'ExperimentalWarning' && /SQLite/i.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    try {
      // A specifier Vite cannot see: the web app's tests import the engine through the pipeline, and Vite's list of
      // Node built-ins lacks node:sqlite, so a literal import here failed their bundling.
      const specifier = 'node:sqlite';
      return (await import(/* @vite-ignore */ specifier)) as typeof Sqlite;
    } finally {
      process.emitWarning = emit;
    }
  })();
  return loaded;
}

/** An SQLite identifier quoted (names come from the file: never pasted bare). */
export const quoteSqliteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
