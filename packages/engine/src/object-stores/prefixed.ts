import type { ObjectStore } from '../store';

/** The part of `store` under `prefix/`: another kind of object beside the datasets in one bucket and one cache. */
export function withinPrefix(store: ObjectStore, prefix: string): ObjectStore {
  const at = (key: string) => `${prefix}/${key}`;
  return {
    put: (key, fromFile) => store.put(at(key), fromFile),
    localPath: (key) => store.localPath(at(key)),
    createReadStream: (key) => store.createReadStream(at(key)),
    delete: (key) => store.delete(at(key)),
    exists: (key) => store.exists(at(key)),
    keys: async function* () {
      for await (const key of store.keys()) if (key.startsWith(`${prefix}/`)) yield key.slice(prefix.length + 1);
    },
  };
}
